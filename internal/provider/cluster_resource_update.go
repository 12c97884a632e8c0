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

	// The plan showed what the update may not do as warnings (see
	// ModifyPlan); the same checks refuse it now, before any change.
	var refusals diag.Diagnostics
	planCopy, priorCopy := plan, prior
	r.checkUpdate(ctx, &planCopy, &priorCopy, &cfg, req.Private, &refusals)
	if refusals.HasError() {
		resp.Diagnostics.Append(refusals.Errors()...)
		return
	}
	upd, diags := updateRequest(ctx, &plan, &prior, cachedNetwork(ctx, req.Private))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	upd.PlannedOfferings = plannedOfferings(&plan, &cfg)
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
		obs, d = r.observe(ctx, &plan, id, req.Private)
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
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if len(derived) > 0 {
		resp.Diagnostics.AddWarning("CloudStack Derived Other Values", fmt.Sprintf("The update of cluster %s succeeded, "+
			"and CloudStack now reports %s, which the configuration does not set and the plan did not foresee. The state "+
			"keeps the planned values until the next refresh records CloudStack's; nothing is left to do.", id, describeValues(derived)))
	}
	if len(unmet) > 0 || !nodesAsPlanned {
		what := describeValues(unmet)
		if !nodesAsPlanned {
			what = strings.TrimPrefix(what+", other nodes than the plan showed (see nodes)", ", ")
		}
		resp.Diagnostics.AddError("Cluster Not As Planned", fmt.Sprintf("Every step of the update of cluster %s succeeded, "+
			"but CloudStack now reports %s. The state holds what CloudStack reports; the next plan shows what is left to do.",
			id, what))
	}
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
