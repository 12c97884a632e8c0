package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// Update changes the cluster in place through the engine (clusterops.
// Update: rules, start or stop, offerings, version, autoscaler, size) and
// records the cluster as CloudStack reports it afterwards, also after a
// failure, so that the next plan shows what is left to do.
func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer func() { resp.Diagnostics.Append(identityFromState(ctx, resp.State, resp.Identity)...) }()
	var plan, prior, cfg clusterResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The response starts as the planned state, which Terraform records
	// even after an error; until CloudStack is read back, keep the prior one.
	resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := prior.ID.ValueString()
	ctx = tflog.SetField(ctx, "cluster_id", id)
	if plan.AllowRestartForRecovery.ValueBool() {
		resp.Diagnostics.AddAttributeWarning(pathAllowRestart, "Attribute Has No Effect", allowRestartNoEffect)
	}

	if recordOnly(ctx, req.Plan.Raw, &plan, &prior, &cfg, resp) || r.refused(ctx, plan, prior, &cfg, req.Private, &resp.Diagnostics) {
		return
	}
	upd, diags := updateRequest(ctx, &plan, &prior, req.Private)
	resp.Diagnostics.Append(diags...)
	history, diags := recordCIDRsBeforeChanges(ctx, &plan, &prior, req.Private, resp.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	upd.PlannedOfferings = plannedOfferings(&plan, &cfg)
	upd.ExternalSeen = externalSeen(ctx, req.Private)
	rep, err := r.engine().Update(ctx, id, upd)
	addReportWarnings(&resp.Diagnostics, rep)
	if rep.Admin != nil {
		resp.Diagnostics.AddWarning("Cluster Needs an Administrator", "The cluster's SSH rules are restored; nothing else "+
			"can be changed through CloudStack's API. "+adminText(rep.Admin))
	}
	planned := plan
	obs := observationOf(rep)
	if obs == nil {
		var d diag.Diagnostics
		obs, d = r.observe(ctx, &plan, id, resp.Private) // with the CIDR lists this update recorded
		if err == nil {
			resp.Diagnostics.Append(d...)
		}
	}
	if obs == nil {
		resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
		if err != nil {
			addFailure(&resp.Diagnostics, err, "The state keeps its prior values; the next refresh reads the cluster.")
		}
		return
	}
	if err != nil {
		// A state CloudStack does not report as Running or Stopped keeps
		// the value from before the failed update, not the planned one.
		plan.State = prior.State
	}
	resp.Diagnostics.Append(refreshModel(ctx, &plan, obs, resp.Private)...)
	if err != nil {
		if !plan.SSHRulesInSync.Equal(types.BoolValue(true)) {
			// The rules are not in the new CIDRs' layout (a narrowing that
			// failed half-way): the state keeps the CIDRs the rules had,
			// so that the next plan shows the change again and knows the
			// rules of the old CIDRs as the cluster's.
			plan.SSHCIDRs, plan.APICIDRs = prior.SSHCIDRs, prior.APICIDRs
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		addFailure(&resp.Diagnostics, err, "The state now holds the cluster as CloudStack reports it; the next plan shows what is left to do.")
		return
	}
	// Values planned from the prior state are kept: a VM state or an
	// autoscaler size that changed since the plan shows at the next refresh.
	var nodesAsPlanned bool
	plan.Nodes, nodesAsPlanned = keepPlannedNodes(ctx, planned.Nodes, plan.Nodes)
	if !planned.Size.IsUnknown() && upd.Autoscaling != nil {
		plan.Size = planned.Size
	}
	unmet, derived := unmetPlan(planned, &plan, cfg)
	resp.Diagnostics.Append(forgetUnusedCIDRs(ctx, history, &plan, obs, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	addUnmetPlan(&resp.Diagnostics, id, unmet, derived, nodesAsPlanned)
}

// addUnmetPlan says, after an update whose every step succeeded, which
// planned values CloudStack reports otherwise: derived ones (a warning) and
// those the configuration asks for, or other nodes (an error).
func addUnmetPlan(diags *diag.Diagnostics, id string, unmet, derived []plannedValue, nodesAsPlanned bool) {
	if len(derived) > 0 {
		diags.AddWarning("CloudStack Derived Other Values", fmt.Sprintf("The update of cluster %s succeeded, "+
			"and CloudStack now reports %s, which the configuration does not set and the plan did not foresee. The state "+
			"keeps the planned values until the next refresh records CloudStack's; nothing is left to do.", id, describeValues(derived)))
	}
	if len(unmet) > 0 || !nodesAsPlanned {
		what := describeValues(unmet)
		if !nodesAsPlanned {
			what = strings.TrimPrefix(what+", other nodes than the plan showed (see nodes)", ", ")
		}
		diags.AddError("Cluster Not As Planned", fmt.Sprintf("Every step of the update of cluster %s succeeded, "+
			"but CloudStack now reports %s. The state holds what CloudStack reports; the next plan shows what is left to do.",
			id, what))
	}
}

// refused makes the checks the plan showed as warnings (see ModifyPlan)
// again, and reports whether one refuses the update, before any change.
func (r *clusterResource) refused(ctx context.Context, plan, prior clusterResourceModel, cfg *clusterResourceModel, p privateState,
	diags *diag.Diagnostics,
) bool {
	var refusals diag.Diagnostics
	r.checkUpdate(ctx, &plan, &prior, cfg, p, &refusals)
	diags.Append(refusals.Errors()...)
	return refusals.HasError()
}

// recordOnly records, without a call to CloudStack, an update that asks
// nothing of it (localOnly), and one that turns deletion_protection off on
// a cluster CloudStack only allows deleting (planReplacement deferred the
// replacement): the state takes the attributes that live only in it. Any
// other change planned for such a cluster is not made, and the error says
// the next apply replaces it. It reports whether it handled the update.
func recordOnly(ctx context.Context, planned tftypes.Value, plan, prior, cfg *clusterResourceModel, resp *resource.UpdateResponse) bool {
	deferred := liftsProtection(plan, prior) && mustBeReplaced(prior)
	planCopy := *plan
	if !deferred && !localOnly(planChangesOf(&planCopy, prior, cfg), &planCopy, prior, cfg) {
		return false
	}
	rec := withLocalValues(prior, plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &rec)...)
	if !deferred {
		return true
	}
	if waiting := differingAttributes(planned, resp.State.Raw); len(waiting) > 0 {
		resp.Diagnostics.AddError("Cluster Replacement Deferred", fmt.Sprintf("Cluster %s is in state %s, from which "+
			"CloudStack only allows deleting it. This apply recorded deletion_protection = false and nothing else, so the "+
			"change of %s was not made: the next apply replaces the cluster, with them.", prior.ID.ValueString(),
			prior.CloudStackState.ValueString(), strings.Join(waiting, ", ")))
	}
	return true
}

// observationOf is the engine's last read of the cluster, if it made one.
func observationOf(rep clusterops.Report) *clusterops.Observation {
	if rep.Final == nil {
		return nil
	}
	obs := clusterops.ObservationOf(rep.Final)
	if rep.Cluster != nil {
		obs.Cluster = *rep.Cluster
		obs.Inconsistency = clusterops.InconsistentMap(rep.Cluster)
	}
	return obs
}

// keepPlannedNodes is the nodes to record after an update. Each node the
// plan knew keeps its planned value when the refreshed list has that very
// node (id, name, role and SSH port) in its place, so that a VM state that
// changed since the plan shows at the next refresh instead of as an
// inconsistent result; the nodes the plan did not know (those a scale
// added) take the refreshed values. When the refreshed list does not hold
// the planned nodes, it is recorded as it is, since the state records what
// CloudStack has, and matched is false.
func keepPlannedNodes(ctx context.Context, planned, refreshed types.List) (nodes types.List, matched bool) {
	if planned.IsUnknown() || planned.IsNull() {
		return refreshed, true
	}
	p, r := planned.Elements(), refreshed.Elements()
	if len(p) != len(r) {
		return refreshed, false
	}
	out := make([]attr.Value, len(p))
	for i := range p {
		out[i] = r[i]
		if p[i].IsUnknown() {
			continue
		}
		if !sameNode(ctx, p[i], r[i]) {
			return refreshed, false
		}
		out[i] = p[i]
	}
	list, d := types.ListValue(nodeObjectType, out)
	if d.HasError() {
		return refreshed, false
	}
	return list, true
}

// sameNode tells whether two node objects are the same VM in the same
// place: id, name, role and SSH port equal; the VM state may differ.
func sameNode(ctx context.Context, a, b attr.Value) bool {
	var na, nb nodeModel
	oa, okA := a.(types.Object)
	ob, okB := b.(types.Object)
	if !okA || !okB || oa.As(ctx, &na, basetypes.ObjectAsOptions{}).HasError() || ob.As(ctx, &nb, basetypes.ObjectAsOptions{}).HasError() {
		return false
	}
	return na.ID.Equal(nb.ID) && na.Name.Equal(nb.Name) && na.Role.Equal(nb.Role) && na.SSHPort.Equal(nb.SSHPort)
}
