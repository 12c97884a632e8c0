package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// The checks of an update against what CloudStack has. ModifyPlan makes them
// to show the plan (refusals become warnings there, see ModifyPlan), and
// Update makes them again and refuses with errors before changing anything.

// updateCheck is what checkUpdate found of an update.
type updateCheck struct {
	changes          planChanges
	bad              *vmmap.Inconsistency
	autoscaling      autoscalingModel
	autoscalingKnown bool
	// scale is the pre-flight of the size change, nil when none was read.
	scale *clusterops.ScaleCheck
}

// checkUpdate judges an update of the cluster against what CloudStack has:
// a size change of a cluster whose VM map disagrees with its size, the
// size change's pre-flight, the version upgrade, and the SSH rule changes.
// What the update may not do is added to refusals as errors; plan is
// completed with ssh_rules_in_sync.
func (r *clusterResource) checkUpdate(ctx context.Context, op *clusterOp, refusals *diag.Diagnostics) updateCheck {
	plan, state, network := op.plan, op.state, op.private.network
	var u updateCheck
	var diags diag.Diagnostics
	u.autoscaling, u.autoscalingKnown, diags = autoscalingOf(ctx, plan.Autoscaling)
	refusals.Append(diags...)
	u.bad = op.private.inconsistency
	if u.bad != nil {
		planInconsistent(*plan, u.autoscaling, u.bad, refusals)
	}
	if network != rules.NetworkDirect {
		for _, name := range []string{"ssh_cidrs", "api_cidrs"} {
			cidrFamilyErrors(ctx, refusals, name, cidrAttrs(plan)[name], knownString(state.IPAddress), func(cidr string) string {
				return sentence(clusterops.CheckCIDRFamily(knownString(state.IPAddress), []string{cidr}).Error())
			})
		}
	}
	if known(plan.APICIDRs) && network == rules.NetworkDirect {
		refusals.AddAttributeWarning(path.Root("api_cidrs"), "Attribute Has No Effect", fmt.Sprintf("api_cidrs has no effect on "+
			"this cluster's %s network: CKS keeps no API rule there, and nothing of CloudStack decides who reaches the API.", network))
	}
	refuseCIDRsOnVPC(ctx, plan, network, refusals)
	u.changes = planChangesOf(plan, state, op.config)
	scaleWanted := u.changes.size && known(plan.Size) && u.autoscalingKnown && !u.autoscaling.enabled() && u.bad == nil
	u.scale = r.checkPlanReads(ctx, op, u.changes, scaleWanted, refusals)
	return u
}

// refusalsAsWarnings turns the refusals of checkUpdate into warnings for a
// plan, saying that apply refuses the change.
func refusalsAsWarnings(refusals diag.Diagnostics) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range refusals {
		if d.Severity() != diag.SeverityError {
			out.Append(d)
			continue
		}
		detail := d.Detail() + " Apply refuses this change before changing anything; a destroy or a replacement of the cluster is not affected."
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			out.AddAttributeWarning(wp.Path(), d.Summary(), detail)
		} else {
			out.AddWarning(d.Summary(), detail)
		}
	}
	return out
}

// checkPlanReads makes the plan-time checks that read CloudStack, when the
// provider is configured: the version upgrade, the scale pre-flight and the
// SSH rule changes. Rules out of sync, or CIDRs to change, plan
// ssh_rules_in_sync back to true.
//
// It returns the pre-flight of the size change, nil when none was read.
func (r *clusterResource) checkPlanReads(ctx context.Context, op *clusterOp, ch planChanges, scaleWanted bool, diags *diag.Diagnostics) *clusterops.ScaleCheck {
	plan, state := op.plan, op.state
	configured := r.data != nil
	if ch.version && configured {
		r.checkVersionUpgrade(ctx, *state, *plan, diags)
		r.checkUpgradeOrder(ctx, op, diags)
	}
	var scale *clusterops.ScaleCheck
	if scaleWanted && configured {
		scale = r.checkScale(ctx, op, diags)
	}
	rulesChange := state.SSHRulesInSync.Equal(types.BoolValue(false)) || ch.cidrs
	if !rulesChange || plan.SSHCIDRs.IsUnknown() || plan.APICIDRs.IsUnknown() {
		return scale // in sync, or CIDRs known only at apply
	}
	switch {
	case scale != nil:
		plan.SSHRulesInSync = types.BoolValue(true)
	case configured:
		plan.SSHRulesInSync = r.describeRuleSync(ctx, op, diags)
	default:
		plan.SSHRulesInSync = types.BoolUnknown()
	}
	return scale
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
// which rules the scale will change first. It returns the pre-flight, nil
// when the rules could not be read.
func (r *clusterResource) checkScale(ctx context.Context, op *clusterOp, diags *diag.Diagnostics) *clusterops.ScaleCheck {
	check, err := r.engine().CheckScale(ctx, op.id(), op.plan.Size.ValueInt64(), op.intent)
	if err != nil {
		// Not a refusal: the scale makes the same checks itself.
		diags.AddAttributeWarning(path.Root("size"), "Unable to Check Cluster Scale",
			"Reading the cluster's network rules to check the size change failed: "+err.Error()+
				". The scale checks them again before it changes anything.")
		return nil
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
		diags.AddAttributeWarning(path.Root("size"), "Cluster In "+check.State, sentence(check.Waits))
	}
	if lines := check.Describe(); len(lines) > 0 {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Will Change",
			"Around the scale, apply will:\n- "+strings.Join(lines, "\n- "))
	}
	return &check
}

// describeRuleSync says at plan time which SSH rules apply will create or
// delete, with their CIDRs, and returns the ssh_rules_in_sync the apply
// leaves: true, false when a rule of the user's blocks the layout and apply
// can change nothing (so that the plan stays empty), unknown when the
// rules cannot be read now.
func (r *clusterResource) describeRuleSync(ctx context.Context, op *clusterOp, diags *diag.Diagnostics) types.Bool {
	plan, id := op.plan, op.id()
	s, err := r.engine().Snapshot(ctx, id, op.intent)
	if err != nil {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Out of Sync",
			"Apply will bring the cluster's SSH rules to the provider's layout; reading them now to say how failed: "+err.Error())
		plan.Nodes = types.ListUnknown(nodeObjectType)
		return types.BoolUnknown()
	}
	lines := s.DescribePlan(s.Sync)
	if s.OnlyBlocked() {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Blocked",
			fmt.Sprintf("The SSH or API rules of cluster %s are not in the provider's layout, and apply can change nothing: a rule of "+
				"yours is in the way. Change or delete it, and the next plan brings the rules back:\n- %s",
				id, strings.Join(lines, "\n- ")))
		return types.BoolValue(false)
	}
	if len(lines) > 0 {
		diags.AddAttributeWarning(path.Root("ssh_rules_in_sync"), "Cluster SSH Rules Will Change",
			fmt.Sprintf("Apply will change the SSH or API rules of cluster %s; your own rules are not touched:\n- %s",
				id, strings.Join(lines, "\n- ")))
	}
	// The nodes the repair leaves: only the SSH ports of the forwards it
	// creates change, so a reviewer sees which.
	if nodes, d := nodesList(ctx, s.NodesAfterSync(), s.Layout.Network); !d.HasError() {
		plan.Nodes = nodes
	}
	return types.BoolValue(len(s.Sync.Blocked) == 0)
}

// checkVersionUpgrade applies CKS's upgrade rule to a change of
// kubernetes_version_id.
func (r *clusterResource) checkVersionUpgrade(ctx context.Context, state, plan clusterResourceModel, diags *diag.Diagnostics) {
	attr := path.Root("kubernetes_version_id")
	check, err := r.engine().CheckUpgrade(ctx, state.ZoneID.ValueString(), state.KubernetesVersionID.ValueString(),
		plan.KubernetesVersionID.ValueString())
	if err != nil {
		// Not a refusal: CloudStack applies the same rule to the upgrade.
		diags.AddAttributeWarning(attr, "Unable to Check Kubernetes Version Upgrade", sentence(err.Error())+
			" CloudStack applies the same upgrade rule when it upgrades.")
		return
	}
	switch check.Verdict {
	case clusterops.UpgradeUnknownTarget:
		diags.AddAttributeError(attr, "Unknown Kubernetes Version", check.Message)
	case clusterops.UpgradeTargetNotUsable:
		diags.AddAttributeError(attr, "Kubernetes Version Not Usable", check.Message)
	case clusterops.UpgradeCurrentUnknown:
		diags.AddAttributeWarning(attr, "Current Kubernetes Version Unknown", check.Message)
	case clusterops.UpgradeRefused:
		diags.AddAttributeError(attr, "Invalid Kubernetes Version Upgrade", check.Message)
	}
}

// checkUpgradeOrder refuses the upgrade of a cluster with external nodes
// whose place in CloudStack's VM map cannot be told (the upgrade reaches
// its nodes by that order), and says which external nodes are taken to be
// upgraded because nothing says they were joined with manual_upgrade.
func (r *clusterResource) checkUpgradeOrder(ctx context.Context, op *clusterOp, diags *diag.Diagnostics) {
	attr := path.Root("kubernetes_version_id")
	p, err := r.engine().CheckUpgradeOrder(ctx, op.id(), op.private.externalSeen)
	var order *clusterops.UpgradeOrderError
	switch {
	case errors.As(err, &order):
		diags.AddAttributeError(attr, "Upgrade Order Unknown", sentence(order.Error()))
	case err != nil:
		diags.AddAttributeWarning(attr, "Unable to Check the Upgrade's Node Order", sentence(err.Error())+
			" The apply checks it again before the upgrade.")
	case p != nil && len(p.Assumed) > 0:
		diags.AddAttributeWarning(attr, "External Nodes Taken to Be Upgraded", fmt.Sprintf("CloudStack's API does not show "+
			"whether an external node was joined with manual_upgrade, and no cks_cluster_node tag says so for %s: they are taken "+
			"to be joined without it (CloudStack's default), so the upgrade reaches them. If one was joined with manualupgrade, "+
			"tag its VM %s=true first.", strings.Join(p.Assumed, ", "), clusterops.TagManualUpgrade))
	}
}
