package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// ModifyPlan completes an update plan: it judges a size change with the
// engine's pre-flight and a version change with CKS's upgrade rule (both
// reads), says which SSH rules apply will change and with which CIDRs,
// handles a cluster whose VM map disagrees with its size, and decides which
// computed values may change.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: nothing to add
	}
	if req.State.Raw.IsNull() {
		r.modifyCreatePlan(ctx, req, resp) // cluster_resource_create.go
		return
	}
	var plan, state, cfg clusterResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if s := state.CloudStackState.ValueString(); s == clusterError || s == clusterDestroying {
		// CloudStack only allows deleting a cluster in Error, and a failed
		// delete leaves it Destroying.
		plan.CloudStackState = types.StringUnknown()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("cloudstack_state"))
		resp.Diagnostics.AddAttributeWarning(path.Root("cloudstack_state"), "Cluster Must Be Replaced",
			fmt.Sprintf("Cluster %s is in state %s, from which CloudStack only allows deleting it; it will be replaced.", state.ID.ValueString(), s))
		return
	}
	if cfg.AllowRestartForRecovery.ValueBool() {
		resp.Diagnostics.AddAttributeWarning(pathAllowRestart, "Attribute Has No Effect", allowRestartNoEffect)
	}
	as, asKnown, diags := autoscalingOf(ctx, plan.Autoscaling)
	resp.Diagnostics.Append(diags...)
	bad := recordedInconsistency(ctx, req.Private)
	if bad != nil {
		planInconsistent(plan, as, bad, &resp.Diagnostics)
	}

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
	cidrsChanged := !plan.SSHCIDRs.Equal(state.SSHCIDRs)

	if versionChanged && r.data != nil {
		r.checkVersionUpgrade(ctx, state, plan, &resp.Diagnostics)
	}
	scaleChecked := false
	if sizeChanged && known(plan.Size) && asKnown && !as.enabled() && bad == nil && r.data != nil {
		scaleChecked = r.checkScale(ctx, &plan, &state, req.Private, &resp.Diagnostics)
	}
	if (!state.SSHRulesInSync.Equal(types.BoolValue(false)) && !cidrsChanged) || plan.SSHCIDRs.IsUnknown() {
		// In sync, or CIDRs known only at apply.
	} else {
		plan.SSHRulesInSync = types.BoolValue(true)
		if !scaleChecked && r.data != nil {
			r.describeRuleSync(ctx, &plan, &state, req.Private, &resp.Diagnostics)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}

	// Values known only at apply may change the nodes too.
	unknownInputs := plan.ServiceOfferingID.IsUnknown() && !cfg.ServiceOfferingID.IsNull() ||
		plan.KubernetesVersionID.IsUnknown() || plan.State.IsUnknown()
	if offeringChanged || versionChanged || (sizeChanged && bad == nil) || stateChanged || autoscalingChanged || unknownInputs {
		plan.Nodes = types.ListUnknown(nodeObjectType)
		plan.CloudStackState = types.StringUnknown()
	} else {
		plan.Nodes = state.Nodes
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planInconsistent handles a cluster whose VM map disagrees with its size:
// apply can restore its rules and nothing else, so a size other than the
// workers that exist can never be applied.
func planInconsistent(plan clusterResourceModel, as autoscalingModel, bad *vmmap.Inconsistency, diags *diag.Diagnostics) {
	if !as.enabled() && known(plan.Size) && plan.Size.ValueInt64() != bad.Workers {
		diags.AddAttributeError(path.Root("size"), "Cluster Size Cannot Change",
			fmt.Sprintf("size = %d cannot be applied: CloudStack refuses every size change of this cluster. Set size = %d, the "+
				"workers it has, to let apply restore its SSH rules. %s", plan.Size.ValueInt64(), bad.Workers, adminText(bad)))
		return
	}
	diags.AddAttributeWarning(path.Root("size"), "Cluster Needs an Administrator",
		"Apply restores the cluster's SSH rules, if any is missing, and makes no start, stop or scale call. "+adminText(bad))
}

// checkScale fails the plan of a size change that the engine's pre-flight
// refuses, naming the rule and the attribute that gives consent, and says
// which rules the scale will change first. It reports whether it read the
// rules.
func (r *clusterResource) checkScale(ctx context.Context, plan, state *clusterResourceModel, prior privateState, diags *diag.Diagnostics) bool {
	in, d := intentOf(ctx, plan, state, cachedNetwork(ctx, prior))
	diags.Append(d...)
	check, err := r.engine().CheckScale(ctx, state.ID.ValueString(), plan.Size.ValueInt64(), in)
	if err != nil {
		diags.AddAttributeError(path.Root("size"), "Unable to Check Cluster Scale",
			"Reading the cluster's network rules to check the size change failed: "+err.Error())
		return false
	}
	var herr *clusterops.HazardError
	var inconsistent *vmmap.Inconsistency
	switch err := check.Err(); {
	case errors.As(err, &herr):
		diags.AddAttributeError(path.Root("size"), "Unsafe Cluster Scale", hazardText(herr))
	case errors.As(err, &inconsistent):
		diags.AddAttributeError(path.Root("size"), "Cluster Size Cannot Change", adminText(inconsistent))
	case err != nil:
		diags.AddAttributeError(path.Root("size"), "Cluster Cannot Be Scaled", sentence(err.Error()))
	}
	if check.Waits != "" {
		diags.AddAttributeWarning(path.Root("size"), "Cluster In Alert", sentence(check.Waits))
	}
	if lines := check.Describe(); len(lines) > 0 {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Will Change",
			"Before the scale, apply will:\n- "+strings.Join(lines, "\n- "))
	}
	return true
}

// describeRuleSync says at plan time which SSH rules apply will create or
// delete, with their CIDRs.
func (r *clusterResource) describeRuleSync(ctx context.Context, plan, state *clusterResourceModel, prior privateState, diags *diag.Diagnostics) {
	in, d := intentOf(ctx, plan, state, cachedNetwork(ctx, prior))
	diags.Append(d...)
	s, err := r.engine().Snapshot(ctx, state.ID.ValueString(), in)
	if err != nil {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Out of Sync",
			"Apply will bring the cluster's SSH rules to the provider's layout; reading them now to say how failed: "+err.Error())
		return
	}
	lines := s.DescribePlan(s.Sync)
	if len(lines) == 0 {
		return
	}
	diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Will Change",
		fmt.Sprintf("Apply will change the SSH rules of cluster %s; your own rules are not touched:\n- %s",
			state.ID.ValueString(), strings.Join(lines, "\n- ")))
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
