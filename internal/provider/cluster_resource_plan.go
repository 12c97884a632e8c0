package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// ModifyPlan completes an update plan: it checks a version change against
// CKS's upgrade rule and a size change against the #14159 rule hazards (both
// reads), plans the recovery of a cluster left in Alert or with a stale size,
// and decides which computed values may change.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return // destroy or create: nothing to add
	}
	var plan, state, cfg clusterResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if s := state.State.ValueString(); s == clusterError || s == clusterDestroying {
		// CloudStack only allows deleting a cluster in Error, and a failed
		// delete leaves it Destroying (spec §2.8, §3.9).
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("state"))
		resp.Diagnostics.AddAttributeWarning(path.Root("state"), "Cluster Must Be Replaced",
			fmt.Sprintf("Cluster %s is in state %s, from which CloudStack only allows deleting it; it will be replaced.", state.ID.ValueString(), s))
		return
	}

	planSSHRulesRepair(state, &plan, &resp.Diagnostics)

	offeringChanged := changedString(plan.ServiceOfferingID, state.ServiceOfferingID)
	if offeringChanged {
		// Per-role offerings that are not configured follow the service
		// offering, so CloudStack may report new values for them.
		for _, pair := range []struct {
			cfg  types.String
			plan *types.String
		}{{cfg.ControlOfferingID, &plan.ControlOfferingID}, {cfg.WorkerOfferingID, &plan.WorkerOfferingID}, {cfg.EtcdOfferingID, &plan.EtcdOfferingID}} {
			if pair.cfg.IsNull() {
				*pair.plan = types.StringUnknown()
			}
		}
	}
	offeringChanged = offeringChanged || changedString(plan.ControlOfferingID, state.ControlOfferingID) ||
		changedString(plan.WorkerOfferingID, state.WorkerOfferingID) || changedString(plan.EtcdOfferingID, state.EtcdOfferingID)

	versionChanged := changedString(plan.KubernetesVersionID, state.KubernetesVersionID)
	sizeChanged := plan.Size.IsUnknown() || !plan.Size.Equal(state.Size)
	stateChanged := !plan.State.Equal(state.State)
	autoscalingChanged := !plan.Autoscaling.Equal(state.Autoscaling)
	recovery := r.planRecovery(ctx, plan, state, &resp.Diagnostics)

	if versionChanged && r.data != nil {
		r.checkVersionUpgrade(ctx, state, plan, &resp.Diagnostics)
	}
	as, asKnown, diags := autoscalingOf(ctx, plan.Autoscaling)
	resp.Diagnostics.Append(diags...)
	if sizeChanged && known(plan.Size) && asKnown && !as.enabled() && !recovery && r.data != nil {
		r.checkScaleHazards(ctx, state, plan, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	// Values known only at apply may change the nodes too.
	unknownInputs := plan.ServiceOfferingID.IsUnknown() && !cfg.ServiceOfferingID.IsNull() ||
		plan.KubernetesVersionID.IsUnknown() || plan.State.IsUnknown()
	if offeringChanged || versionChanged || sizeChanged || stateChanged || autoscalingChanged || recovery || unknownInputs {
		plan.Nodes = types.ListUnknown(nodeObjectType)
	} else {
		plan.Nodes = state.Nodes
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planSSHRulesRepair plans ssh_rules_in_sync back to true when the refresh
// found CKS's SSH rules out of sync, so that apply runs Update, which
// repairs them, and says so.
func planSSHRulesRepair(state clusterResourceModel, plan *clusterResourceModel, diags *diag.Diagnostics) {
	if !state.SSHRulesInSync.Equal(types.BoolValue(false)) {
		return
	}
	plan.SSHRulesInSync = types.BoolValue(true)
	diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Out of Sync",
		fmt.Sprintf("Some SSH rules CKS owns on cluster %s are missing or stale, or one of its firewall rules sorts before the "+
			"node SSH range so that the next scale would revoke it (#14159). Apply will repair these rules; your own rules "+
			"are not touched.", state.ID.ValueString()))
}

// planRecovery reports whether the cluster needs recovery (Alert, or a size
// that disagrees with its VM map) and says at plan time what apply will do.
// Such a plan always has a diff: state goes back to the desired value, and
// nodes become unknown.
func (r *clusterResource) planRecovery(ctx context.Context, plan, state clusterResourceModel, diags *diag.Diagnostics) bool {
	nodes, d := nodeModels(ctx, state.Nodes)
	diags.Append(d...)
	var nonEtcd int64
	for _, n := range nodes {
		if n.Role.ValueString() != "etcd" {
			nonEtcd++
		}
	}
	switch state.State.ValueString() {
	case clusterRunning, clusterStopped, clusterAlert:
	default:
		// Mid-operation (Scaling, Starting, ...) the map and the size
		// disagree by design; that is not damage to recover from.
		return false
	}
	workers := nonEtcd - state.ControlNodes.ValueInt64()
	stale := len(nodes) > 0 && workers != state.Size.ValueInt64()
	alert := state.State.ValueString() == clusterAlert
	if !alert && !stale {
		return false
	}
	detail := fmt.Sprintf("Cluster %s is in state %s with size %d and %d worker VM(s) in its VM map. ",
		state.ID.ValueString(), state.State.ValueString(), state.Size.ValueInt64(), workers)
	switch {
	case alert && stale && !plan.AllowRestartForRecovery.ValueBool():
		detail += "CloudStack refuses to scale a cluster in Alert and its state scanner keeps a cluster with a stale size in " +
			"Alert, so recovering it needs a stop and start of the cluster, which interrupts workloads. Apply will repair the " +
			"cluster's SSH rules and then fail unless allow_restart_for_recovery = true."
	case alert && stale:
		detail += "Apply will repair the cluster's SSH rules, stop and start the cluster (allow_restart_for_recovery is set; " +
			"this interrupts workloads), scale it to the configured size and verify the rules again."
	default:
		detail += "Apply will repair the cluster's SSH rules and bring its size in line with the configuration."
	}
	diags.AddAttributeWarning(path.Root("state"), "Cluster Needs Recovery", detail)
	return true
}

// checkVersionUpgrade applies CKS's upgrade rule (same major, at most one
// minor ahead, no downgrade) to the ids' semantic versions.
func (r *clusterResource) checkVersionUpgrade(ctx context.Context, state, plan clusterResourceModel, diags *diag.Diagnostics) {
	attr := path.Root("kubernetes_version_id")
	versions, err := r.data.client.ListKubernetesSupportedVersions(ctx, state.ZoneID.ValueString())
	if err != nil {
		diags.AddAttributeError(attr, "Unable to Check Kubernetes Version Upgrade",
			"Listing the Kubernetes versions of the zone failed: "+err.Error())
		return
	}
	from, fromOK := findVersion(versions, state.KubernetesVersionID.ValueString())
	to, toOK := findVersion(versions, plan.KubernetesVersionID.ValueString())
	if !toOK {
		diags.AddAttributeError(attr, "Unknown Kubernetes Version",
			fmt.Sprintf("No Kubernetes version with id %s exists in zone %s.", plan.KubernetesVersionID.ValueString(), state.ZoneID.ValueString()))
		return
	}
	if !strings.EqualFold(to.State, "Enabled") || !strings.EqualFold(to.ISOState, "Ready") {
		diags.AddAttributeError(attr, "Kubernetes Version Not Usable",
			fmt.Sprintf("Kubernetes version %s (%s) is %s with ISO state %q; an upgrade needs an Enabled version with a Ready ISO.",
				to.SemanticVersion, to.ID, to.State, to.ISOState))
		return
	}
	if !fromOK {
		diags.AddAttributeWarning(attr, "Current Kubernetes Version Unknown",
			fmt.Sprintf("The cluster's current version %s is no longer listed, so the upgrade rule cannot be checked at plan time; CloudStack will check it.",
				state.KubernetesVersionID.ValueString()))
		return
	}
	fromV, errFrom := kubeversion.Parse(from.SemanticVersion)
	toV, errTo := kubeversion.Parse(to.SemanticVersion)
	if errFrom != nil || errTo != nil {
		return // not semantic versions: leave the check to CloudStack
	}
	if err := kubeversion.CheckUpgrade(fromV, toV); err != nil {
		diags.AddAttributeError(attr, "Invalid Kubernetes Version Upgrade",
			fmt.Sprintf("Cannot change kubernetes_version_id from %s (%s) to %s (%s): %s. CloudStack upgrades a cluster "+
				"within its major version, one minor version at a time, and never downgrades it.",
				from.SemanticVersion, from.ID, to.SemanticVersion, to.ID, err))
	}
}

func findVersion(versions []cloudstack.KubernetesVersion, id string) (cloudstack.KubernetesVersion, bool) {
	for _, v := range versions {
		if v.ID == id {
			return v, true
		}
	}
	return cloudstack.KubernetesVersion{}, false
}

// changedString reports a known planned value that differs from the state.
func changedString(planned, prior types.String) bool {
	return known(planned) && !planned.Equal(prior)
}

// checkScaleHazards fails the plan of a size change that would hit a rule the
// provider may not change (a user rule that CloudStack's #14159 predicate
// would revoke, or a user forward its cleanup would delete), naming the rule.
func (r *clusterResource) checkScaleHazards(ctx context.Context, state, plan clusterResourceModel, diags *diag.Diagnostics) {
	check, err := r.engine(&plan).CheckScale(ctx, state.ID.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("size"), "Unable to Check Cluster Scale",
			"Reading the cluster's network rules to check the size change failed: "+err.Error())
		return
	}
	if err := check.Err(); err != nil {
		diags.AddAttributeError(path.Root("size"), "Unsafe Cluster Scale", sentence(err.Error()))
		return
	}
	for _, h := range check.Fixable {
		tflog.Info(ctx, "the scale will re-create a rule so that CloudStack picks the node SSH range", map[string]any{
			"cluster_id": state.ID.ValueString(), "rule": h.Explanation,
		})
	}
}
