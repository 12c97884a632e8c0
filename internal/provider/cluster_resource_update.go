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
	op, diags := newUpdateOp(ctx, req.Plan, req.State, req.Config, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The response starts as the planned state, which Terraform records
	// even after an error; until CloudStack is read back, keep the prior one.
	resp.Diagnostics.Append(resp.State.Set(ctx, op.state)...)
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := op.plan.Timeouts.Update(ctx, defaultClusterTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = tflog.SetField(ctx, "cluster_id", op.id())
	if op.plan.AllowRestartForRecovery.ValueBool() {
		resp.Diagnostics.AddAttributeWarning(pathAllowRestart, "Attribute Has No Effect", allowRestartNoEffect)
	}
	if recordOnly(ctx, req.Plan.Raw, op, resp) || r.refused(ctx, op, &resp.Diagnostics) {
		return
	}
	upd, diags := updateRequest(ctx, op)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(op.recordCIDRs(ctx, resp.Private)...) // before any rule call
	if resp.Diagnostics.HasError() {
		return
	}
	rep, err := r.engine().Update(ctx, op.id(), upd)
	addUpdateReport(&resp.Diagnostics, rep)
	obs := r.readBack(ctx, op, rep, err, resp)
	switch {
	case obs == nil:
		resp.Diagnostics.Append(resp.State.Set(ctx, op.state)...)
		if err != nil {
			addFailure(&resp.Diagnostics, err, "The state keeps its prior values; the next refresh reads the cluster.")
		}
	case err != nil:
		recordFailedUpdate(ctx, op, obs, err, resp)
	default:
		recordUpdated(ctx, req.Plan.Raw, op, upd, obs, resp)
	}
}

// addUpdateReport reports what the engine changed, and a cluster only an
// administrator can repair now.
func addUpdateReport(diags *diag.Diagnostics, rep clusterops.Report) {
	addReportWarnings(diags, rep)
	if rep.Admin != nil {
		diags.AddWarning("Cluster Needs an Administrator", "The cluster's SSH rules are restored; nothing else "+
			"can be changed through CloudStack's API. "+adminText(rep.Admin))
	}
}

// readBack is the cluster after the update: the engine's last read of it,
// else a read now with the CIDR lists this update recorded; nil when the
// cluster cannot be read. A failed read is reported only when the update
// succeeded (a failed one reports its own error).
func (r *clusterResource) readBack(ctx context.Context, op *clusterOp, rep clusterops.Report, err error, resp *resource.UpdateResponse) *clusterops.Observation {
	if obs := observationOf(rep); obs != nil {
		return obs
	}
	obs, d := r.observe(ctx, op, op.id())
	if err == nil {
		resp.Diagnostics.Append(d...)
	}
	return obs
}

// recordFailedUpdate records the cluster as CloudStack reports it after a
// failed update. A state CloudStack does not report as Running or Stopped
// keeps the value from before, not the planned one.
func recordFailedUpdate(ctx context.Context, op *clusterOp, obs *clusterops.Observation, err error, resp *resource.UpdateResponse) {
	rec := *op.plan
	rec.State = op.state.State
	resp.Diagnostics.Append(refreshModel(ctx, &rec, obs, resp.Private)...)
	if !rec.SSHRulesInSync.Equal(types.BoolValue(true)) {
		// The rules are not in the new CIDRs' layout (a narrowing that
		// failed half-way): the state keeps the CIDRs the rules had, so
		// that the next plan shows the change again and knows the rules
		// of the old CIDRs as the cluster's.
		rec.SSHCIDRs, rec.APICIDRs = op.state.SSHCIDRs, op.state.APICIDRs
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &rec)...)
	addFailure(&resp.Diagnostics, err, "The state now holds the cluster as CloudStack reports it; the next plan shows what is left to do.")
}

// recordUpdated records the cluster after an update whose every step
// succeeded. What CloudStack reports otherwise than planned is reported
// (addUnmetPlan). Otherwise every value the plan knew is kept as planned,
// since Terraform takes it as a promise: a VM state, an autoscaler size, or
// a capacity that changed since the plan (another client, the autoscaler)
// shows at the next refresh.
func recordUpdated(ctx context.Context, planned tftypes.Value, op *clusterOp, upd clusterops.UpdateRequest, obs *clusterops.Observation,
	resp *resource.UpdateResponse,
) {
	plan, rec := *op.plan, *op.plan
	resp.Diagnostics.Append(refreshModel(ctx, &rec, obs, resp.Private)...)
	var nodesAsPlanned bool
	rec.Nodes, nodesAsPlanned = keepPlannedNodes(ctx, plan.Nodes, rec.Nodes)
	if !plan.Size.IsUnknown() && upd.Autoscaling != nil {
		rec.Size = plan.Size
	}
	unmet, derived := unmetPlan(plan, &rec, *op.config)
	resp.Diagnostics.Append(op.forgetUnusedCIDRs(ctx, obs, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &rec)...)
	if len(unmet) == 0 && nodesAsPlanned && !resp.Diagnostics.HasError() {
		kept, err := keepPlannedValues(planned, &resp.State)
		if err != nil {
			resp.Diagnostics.AddError("Unable to Record Cluster", fmt.Sprintf("Recording cluster %s failed: %s. This is a "+
				"bug in the provider; the next refresh reads the cluster.", op.id(), err))
		}
		if len(kept) > 0 {
			tflog.Info(ctx, "kept planned values CloudStack reports otherwise since the plan", map[string]any{"attributes": kept})
		}
	}
	addUnmetPlan(&resp.Diagnostics, op.id(), unmet, derived, nodesAsPlanned)
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
// They complete copies of the plan and state, not the update's own.
func (r *clusterResource) refused(ctx context.Context, op *clusterOp, diags *diag.Diagnostics) bool {
	var refusals diag.Diagnostics
	r.checkUpdate(ctx, op.scratch(), &refusals)
	diags.Append(refusals.Errors()...)
	return refusals.HasError()
}

// recordOnly records, without a call to CloudStack, an update that asks
// nothing of it (localOnly): the state takes the plan, whose values
// CloudStack reports are the prior state's (ModifyPlan kept them), so only
// the attributes that live in the state change: deletion_protection,
// timeouts, the consents, and an input CloudStack returns nowhere set on an
// imported cluster. It also records an update that turns
// deletion_protection off on a cluster CloudStack only allows deleting
// (planReplacement deferred the replacement): the state takes the local
// attributes alone, any other change planned for such a cluster is not
// made, and the error says the next apply replaces it. It reports whether
// it handled the update.
func recordOnly(ctx context.Context, planned tftypes.Value, op *clusterOp, resp *resource.UpdateResponse) bool {
	plan, prior, cfg := op.plan, op.state, op.config
	deferred := liftsProtection(plan, prior) && mustBeReplaced(prior)
	planCopy := *plan
	if !deferred && !localOnly(planChangesOf(&planCopy, prior, cfg), &planCopy, prior, cfg) {
		return false
	}
	if !deferred {
		raw, err := knownOverPrior(planned, resp.State.Raw)
		if err != nil {
			resp.Diagnostics.AddError("Unable to Record Cluster", fmt.Sprintf("Recording the update of cluster %s failed: %s. "+
				"This is a bug in the provider; nothing was changed in CloudStack.", op.id(), err))
			return true
		}
		resp.State.Raw = raw
		return true
	}
	rec := withLocalValues(prior, plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &rec)...)
	if waiting := differingAttributes(planned, resp.State.Raw); len(waiting) > 0 {
		resp.Diagnostics.AddError("Cluster Replacement Deferred", fmt.Sprintf("Cluster %s is in state %s, from which "+
			"CloudStack only allows deleting it. This apply recorded deletion_protection = false and nothing else, so the "+
			"change of %s was not made: the next apply replaces the cluster, with them.", prior.ID.ValueString(),
			prior.CloudStackState.ValueString(), strings.Join(waiting, ", ")))
	}
	return true
}

// knownOverPrior is the planned value with the prior one in every
// top-level attribute the plan does not wholly know.
func knownOverPrior(planned, prior tftypes.Value) (tftypes.Value, error) {
	var want, had map[string]tftypes.Value
	if err := planned.As(&want); err != nil {
		return prior, err
	}
	if err := prior.As(&had); err != nil {
		return prior, err
	}
	for name, v := range want {
		if !v.IsFullyKnown() {
			want[name] = had[name]
		}
	}
	return tftypes.NewValue(planned.Type(), want), nil
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
