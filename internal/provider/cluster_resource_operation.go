package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// One operation on a cks_cluster (the plan of a create, an update or a
// destroy; Create, Read, Update, Delete): what Terraform hands it, read
// once, and what the glue derives from that once. Every check, request and
// read-back of the operation takes this value, so that no two of them can
// see the rule intent, the network kind or the private state differently.

// clusterOp is one operation on a cluster.
type clusterOp struct {
	// plan is what the operation asks for: the planned values of a create
	// or an update (and of their plans), the state of a read, a delete or
	// a destroy's plan.
	plan *clusterResourceModel
	// state is the prior state, nil at create.
	state *clusterResourceModel
	// config is the configuration, nil at read and delete.
	config *clusterResourceModel
	// private is what the last operation kept in private state.
	private clusterPrivate
	// intent is what plan asks of the cluster's rules. The rules of the
	// CIDR lists of state and of the history are the cluster's too.
	intent clusterops.Intent
}

// modelSource is a plan, a state or a configuration.
type modelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// readModel reads the cks_cluster model from src.
func readModel(ctx context.Context, src modelSource, diags *diag.Diagnostics) *clusterResourceModel {
	var m clusterResourceModel
	diags.Append(src.Get(ctx, &m)...)
	return &m
}

// newCreateOp is a create, or the plan of one: no state, no private state.
func newCreateOp(ctx context.Context, plan, config modelSource) (*clusterOp, diag.Diagnostics) {
	var diags diag.Diagnostics
	p, c := readModel(ctx, plan, &diags), readModel(ctx, config, &diags)
	if diags.HasError() {
		return nil, diags
	}
	return opOf(ctx, p, nil, c, clusterPrivate{}, diags)
}

// newUpdateOp is an update, or the plan of one.
func newUpdateOp(ctx context.Context, plan, state, config modelSource, prior privateState) (*clusterOp, diag.Diagnostics) {
	var diags diag.Diagnostics
	p, s, c := readModel(ctx, plan, &diags), readModel(ctx, state, &diags), readModel(ctx, config, &diags)
	if diags.HasError() {
		return nil, diags
	}
	return opOf(ctx, p, s, c, readPrivate(ctx, prior), diags)
}

// newStateOp is an operation on the cluster the state holds: a read, a
// delete, the plan of a destroy.
func newStateOp(ctx context.Context, state modelSource, prior privateState) (*clusterOp, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := readModel(ctx, state, &diags)
	if diags.HasError() {
		return nil, diags
	}
	return opOf(ctx, s, s, nil, readPrivate(ctx, prior), diags)
}

// opOf derives the operation's intent.
func opOf(ctx context.Context, plan, state, config *clusterResourceModel, private clusterPrivate, diags diag.Diagnostics) (*clusterOp, diag.Diagnostics) {
	op := &clusterOp{plan: plan, state: state, config: config, private: private}
	op.intent = clusterops.Intent{
		MoveUserRules: plan.RecreateUserHazardRules.ValueBool(),
		Network:       private.network,
		EarlierDelete: private.deleteMemo,
	}
	var d diag.Diagnostics
	op.intent.SSHCIDRs, op.intent.FormerSSHCIDRs, d = op.cidrs(ctx, private.history.SSH, func(m *clusterResourceModel) types.List { return m.SSHCIDRs })
	diags.Append(d...)
	op.intent.APICIDRs, op.intent.FormerAPICIDRs, d = op.cidrs(ctx, private.history.API, func(m *clusterResourceModel) types.List { return m.APICIDRs })
	diags.Append(d...)
	return op, diags
}

// cidrs reads a CIDR list of the plan and the lists the rules had before:
// the prior state's when it differs, and the history's.
func (op *clusterOp) cidrs(ctx context.Context, history [][]string, of func(*clusterResourceModel) types.List) ([]string, [][]string, diag.Diagnostics) {
	cidrs, diags := stringList(ctx, of(op.plan))
	lists := history
	if op.state != nil {
		before, d := stringList(ctx, of(op.state))
		diags.Append(d...)
		lists = addCIDRList(lists, before)
	}
	return cidrs, former(lists, cidrs), diags
}

// destroying is the destroy of the state's cluster that a plan of a
// replacement makes too: its intent is the state's.
func (op *clusterOp) destroying(ctx context.Context) (*clusterOp, diag.Diagnostics) {
	return opOf(ctx, op.state, op.state, nil, op.private, nil)
}

// id is the cluster's id; "" before a create.
func (op *clusterOp) id() string {
	if op.state == nil {
		return ""
	}
	return op.state.ID.ValueString()
}

// scratch is the operation with copies of the plan and the state, for the
// checks that complete them (ssh_rules_in_sync, nodes) when the operation
// itself must keep them as Terraform planned them.
func (op *clusterOp) scratch() *clusterOp {
	c := *op
	plan := *op.plan
	c.plan = &plan
	if op.state != nil {
		state := *op.state
		c.state = &state
	}
	return &c
}

// recordCIDRs records in next, before any rule call, the CIDR lists the
// plan is about to give the rules, with those of the prior state and the
// history: whatever the operation ends like, the rules it makes are known
// as the cluster's.
func (op *clusterOp) recordCIDRs(ctx context.Context, next privateState) diag.Diagnostics {
	var diags diag.Diagnostics
	h := op.private.history
	for _, m := range []*clusterResourceModel{op.state, op.plan} {
		if m == nil {
			continue
		}
		ssh, d := stringList(ctx, m.SSHCIDRs)
		diags.Append(d...)
		api, d := stringList(ctx, m.APICIDRs)
		diags.Append(d...)
		h = h.with(ssh, api)
	}
	op.private.history = h
	diags.Append(h.save(ctx, next)...)
	return diags
}

// forgetUnusedCIDRs keeps, after an operation that succeeded and read the
// rules, only the lists of the history that some firewall rule of the
// cluster still has, and the plan's: a list no rule has any more is no
// longer the cluster's.
func (op *clusterOp) forgetUnusedCIDRs(ctx context.Context, obs *clusterops.Observation, next privateState) diag.Diagnostics {
	if obs == nil || !obs.RulesRead {
		return nil
	}
	ssh, diags := stringList(ctx, op.plan.SSHCIDRs)
	api, d := stringList(ctx, op.plan.APICIDRs)
	diags.Append(d...)
	diags.Append(op.private.history.keep(obs.OwnedCIDRs, ssh, api).save(ctx, next)...)
	return diags
}
