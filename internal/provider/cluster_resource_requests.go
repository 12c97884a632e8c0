package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// What a plan asks of CloudStack: the create request; what an update plan
// changes, the update request, and the planned values the apply verifies
// afterwards. The rule intent is the operation's (clusterOp).

// createParams maps the plan onto createKubernetesCluster. With the
// autoscaler on, the cluster starts with min_size workers.
func createParams(m clusterResourceModel, as autoscalingModel) cloudstack.CreateClusterParams {
	p := cloudstack.CreateClusterParams{
		Ownership: cloudstack.Ownership{
			Account:   knownString(m.Account),
			DomainID:  knownString(m.DomainID),
			ProjectID: knownString(m.ProjectID),
		},
		Name:                m.Name.ValueString(),
		Description:         knownString(m.Description),
		ZoneID:              m.ZoneID.ValueString(),
		KubernetesVersionID: m.KubernetesVersionID.ValueString(),
		ServiceOfferingID:   knownString(m.ServiceOfferingID),
		ControlNodes:        m.ControlNodes.ValueInt64(),
		EtcdNodes:           m.EtcdNodes.ValueInt64(),
		NodeRootDiskSize:    m.NodeRootDiskSize.ValueInt64(),
		Keypair:             knownString(m.Keypair),
		NetworkID:           knownString(m.NetworkID),
		Hypervisor:          knownString(m.Hypervisor),
		ClusterExtras:       m.clusterExtras(),
	}
	switch {
	case known(m.Size):
		p.Size = m.Size.ValueInt64()
	case as.enabled():
		p.Size = as.MinSize.ValueInt64()
	}
	offerings := map[string]string{}
	for role, v := range map[string]string{
		"control": knownString(m.ControlOfferingID),
		"worker":  knownString(m.WorkerOfferingID),
		"etcd":    knownString(m.EtcdOfferingID),
	} {
		if v != "" {
			offerings[role] = v
		}
	}
	if len(offerings) > 0 {
		p.NodeOfferings = offerings
	}
	return p
}

// createRequest maps the plan onto the engine's create: the create call's
// parameters (the write-only registry password from the configuration) and
// the update that follows it (rule layout, autoscaler, state).
func createRequest(ctx context.Context, op *clusterOp, deleteTimeout time.Duration) (clusterops.CreateRequest, diag.Diagnostics) {
	as, _, diags := autoscalingOf(ctx, op.plan.Autoscaling)
	then, d := updateRequest(ctx, op)
	diags.Append(d...)
	then.Size = nil
	params := createParams(*op.plan, as)
	if op.config != nil {
		params.DockerRegistryPassword = knownString(op.config.DockerRegistryPassword)
	}
	return clusterops.CreateRequest{Params: params, Then: then, DeleteTimeout: deleteTimeout}, diags
}

// createTimeouts are the plan's create and delete timeouts.
func createTimeouts(ctx context.Context, plan *clusterResourceModel) (create, del time.Duration, diags diag.Diagnostics) {
	create, diags = plan.Timeouts.Create(ctx, defaultClusterTimeout)
	del, d := plan.Timeouts.Delete(ctx, defaultClusterTimeout)
	diags.Append(d...)
	return create, del, diags
}

// updateRequest maps the plan onto the engine's update: what differs from
// the prior state (nothing at create), the rule intent, and the desired
// autoscaler and size.
func updateRequest(ctx context.Context, op *clusterOp) (clusterops.UpdateRequest, diag.Diagnostics) {
	plan, prior := op.plan, op.state
	if prior == nil {
		prior = plan // a create: the update after it changes nothing the create set
	}
	u := clusterops.UpdateRequest{Intent: op.intent, Stopped: plan.State.ValueString() == clusterstate.Stopped,
		ExternalSeen: op.private.externalSeen}
	if op.state != nil && op.config != nil {
		u.PlannedOfferings = plannedOfferings(plan, op.config)
	}
	if changedString(plan.KubernetesVersionID, prior.KubernetesVersionID) {
		u.KubernetesVersionID = plan.KubernetesVersionID.ValueString()
	}
	if changedString(plan.ServiceOfferingID, prior.ServiceOfferingID) {
		u.ServiceOfferingID = plan.ServiceOfferingID.ValueString()
	}
	for _, o := range []struct {
		role        string
		plan, prior interface {
			IsNull() bool
			IsUnknown() bool
			ValueString() string
		}
	}{
		{"control", plan.ControlOfferingID, prior.ControlOfferingID},
		{"worker", plan.WorkerOfferingID, prior.WorkerOfferingID},
		{"etcd", plan.EtcdOfferingID, prior.EtcdOfferingID},
	} {
		// A service offering change moves every node type to it, so the
		// node offerings the plan knows (the configured ones) are asked
		// for again.
		if v := knownString(o.plan); v != "" && (v != knownString(o.prior) || u.ServiceOfferingID != "") {
			if u.NodeOfferings == nil {
				u.NodeOfferings = map[string]string{}
			}
			u.NodeOfferings[o.role] = v
		}
	}
	as, _, diags := autoscalingOf(ctx, plan.Autoscaling)
	if as.enabled() {
		u.Autoscaling = &clusterops.Autoscaling{MinSize: as.MinSize.ValueInt64(), MaxSize: as.MaxSize.ValueInt64()}
	} else if known(plan.Size) {
		size := plan.Size.ValueInt64()
		u.Size = &size
	}
	return u, diags
}

// planChanges are what an update plan changes.
type planChanges struct {
	offering, version, size, state, autoscaling, cidrs bool
}

// planChangesOf compares the plan with the state. Per-role offerings that
// are not configured follow the service offering, so when it changes
// CloudStack may report new values for them: they become unknown.
func planChangesOf(plan, state, cfg *clusterResourceModel) planChanges {
	ch := planChanges{offering: changedString(plan.ServiceOfferingID, state.ServiceOfferingID)}
	if ch.offering {
		for _, pair := range []struct {
			cfg  types.String
			plan *types.String
		}{{cfg.ControlOfferingID, &plan.ControlOfferingID}, {cfg.WorkerOfferingID, &plan.WorkerOfferingID}, {cfg.EtcdOfferingID, &plan.EtcdOfferingID}} {
			if pair.cfg.IsNull() {
				*pair.plan = types.StringUnknown()
			}
		}
	}
	ch.offering = ch.offering || changedString(plan.ControlOfferingID, state.ControlOfferingID) ||
		changedString(plan.WorkerOfferingID, state.WorkerOfferingID) || changedString(plan.EtcdOfferingID, state.EtcdOfferingID)
	ch.version = changedString(plan.KubernetesVersionID, state.KubernetesVersionID)
	ch.size = plan.Size.IsUnknown() || !plan.Size.Equal(state.Size)
	ch.state = !plan.State.Equal(state.State)
	ch.autoscaling = !plan.Autoscaling.Equal(state.Autoscaling)
	ch.cidrs = !plan.SSHCIDRs.Equal(state.SSHCIDRs) || !plan.APICIDRs.Equal(state.APICIDRs)
	return ch
}

// localOnly tells whether applying the plan asks nothing of CloudStack:
// no change planChanges sees, no value known only at apply, and no rules
// to bring back to the layout. Only attributes that live in the state
// (deletion_protection, timeouts, the consents) change.
func localOnly(ch planChanges, plan, state, cfg *clusterResourceModel) bool {
	return !ch.offering && !ch.version && !ch.size && !ch.state && !ch.autoscaling && !ch.cidrs &&
		!ch.unknownInputs(plan, cfg) && !state.SSHRulesInSync.Equal(types.BoolValue(false))
}

// nodesMayChange tells whether the apply may change the nodes; a size
// change of a cluster whose VM map disagrees with its size makes none.
func (ch planChanges) nodesMayChange(bad *vmmap.Inconsistency) bool {
	return ch.offering || ch.version || (ch.size && bad == nil) || ch.state || ch.autoscaling
}

// repairsRules: an apply that brings rules out of sync back re-creates
// missing forwards, which may give nodes their SSH ports again.
func repairsRules(plan, state *clusterResourceModel) bool {
	return known(plan.SSHRulesInSync) && plan.SSHRulesInSync.ValueBool() &&
		known(state.SSHRulesInSync) && !state.SSHRulesInSync.ValueBool()
}

// unknownInputs: values known only at apply may change the nodes too.
func (ch planChanges) unknownInputs(plan, cfg *clusterResourceModel) bool {
	return plan.ServiceOfferingID.IsUnknown() && !cfg.ServiceOfferingID.IsNull() ||
		plan.KubernetesVersionID.IsUnknown() || plan.State.IsUnknown()
}

// plannedValue is an attribute the apply verifies against the plan.
type plannedValue struct {
	name         string
	planned, got attr.Value
	// intent: the configuration sets it (or it is the provider's own
	// target, such as the state or the rule layout).
	intent bool
	// keep sets the value in the recorded model back to the planned one.
	keep func()
}

// unmetPlan sorts the planned values CloudStack does not report after an
// update that seemed to succeed: those the configuration asks for
// (unmet), and those CloudStack derives (derived). A derived value the
// plan knew is kept as planned in got, since Terraform takes a planned
// value as a promise; the refresh before the next plan records
// CloudStack's.
func unmetPlan(planned clusterResourceModel, got *clusterResourceModel, cfg clusterResourceModel) (unmet, derived []plannedValue) {
	values := []plannedValue{
		{name: "state", planned: planned.State, got: got.State, intent: true},
		{name: "size", planned: planned.Size, got: got.Size, intent: true},
		{name: "kubernetes_version_id", planned: planned.KubernetesVersionID, got: got.KubernetesVersionID, intent: true},
		{name: "autoscaling", planned: planned.Autoscaling, got: got.Autoscaling, intent: true},
		// Rules in sync when the plan expected a user's rule in the way
		// (it was changed meanwhile) are good news, not a failure.
		{name: "ssh_rules_in_sync", planned: planned.SSHRulesInSync, got: got.SSHRulesInSync, intent: planned.SSHRulesInSync.ValueBool(),
			keep: func() { got.SSHRulesInSync = planned.SSHRulesInSync }},
		{name: "service_offering_id", planned: planned.ServiceOfferingID, got: got.ServiceOfferingID,
			intent: !cfg.ServiceOfferingID.IsNull(), keep: func() { got.ServiceOfferingID = planned.ServiceOfferingID }},
	}
	configured, reported := roleOfferingsOf(&cfg), roleOfferingsOf(got)
	for i, o := range roleOfferingsOf(&planned) {
		field, want := reported[i].value, *o.value
		values = append(values, plannedValue{name: o.name, planned: want, got: *field,
			intent: !configured[i].value.IsNull(), keep: func() { *field = want }})
	}
	for _, v := range values {
		if v.planned.IsUnknown() || v.planned.Equal(v.got) {
			continue
		}
		if v.intent {
			unmet = append(unmet, v)
			continue
		}
		v.keep()
		derived = append(derived, v)
	}
	return unmet, derived
}

// describeValues words planned values as "name got (planned p)".
func describeValues(values []plannedValue) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, fmt.Sprintf("%s %s (planned %s)", v.name, v.got, v.planned))
	}
	return strings.Join(parts, ", ")
}
