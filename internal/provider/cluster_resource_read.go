package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Reading a cluster: Read, and the refresh that Create and Update reuse to
// record what CloudStack really has after they ran.

// Read refreshes every attribute from CloudStack and removes the resource
// when the cluster no longer exists.
func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	op, diags := newStateOp(ctx, req.State, req.Private)
	resp.Diagnostics.Append(diags...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(setIdentity(ctx, resp.Identity, op.state.ID)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	id := op.id()
	ctx = tflog.SetField(readShared(ctx), "cluster_id", id)
	state := op.state
	obs, err := r.engine().Observe(ctx, id, op.intent)
	if cloudstack.IsNotFound(err) || (err == nil && obs.Cluster.State == clusterstate.Destroyed) {
		tflog.Warn(ctx, "cluster no longer exists; removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Cluster", fmt.Sprintf("Reading cluster %s failed: %s", id, err))
		return
	}
	resp.Diagnostics.Append(refreshModel(ctx, state, obs, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if op.private.imported {
		resp.Diagnostics.Append(adoptImported(ctx, state, obs, resp.Private)...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	if obs.Stuck != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("cloudstack_state"), "Cluster Stuck in "+obs.Stuck.State,
			sentence(obs.Stuck.Error())+" Until then an apply that changes it, and a destroy, stop with this message.")
	}
	addExposureWarnings(&resp.Diagnostics, id, obs.Exposures)
}

// addExposureWarnings names each rule of someone else's that opens the API
// port, or an SSH port, to addresses api_cidrs or ssh_cidrs do not admit:
// the narrowing does not hold while it exists, and the provider never
// deletes a rule that is not the cluster's.
func addExposureWarnings(diags *diag.Diagnostics, id string, exposures []rules.Exposure) {
	for _, e := range exposures {
		attr, what := "ssh_cidrs", "SSH port(s) "+e.Ports
		if e.API {
			attr, what = "api_cidrs", "the Kubernetes API port "+e.Ports
		}
		source := strings.Join(e.Rule.CIDRs, ",")
		if source == "" {
			source = rules.AnyCIDR
		}
		diags.AddAttributeWarning(path.Root(attr), "Cluster Open Beyond "+attr, fmt.Sprintf("Firewall rule %s (%s %s from %s) "+
			"on the public IP of cluster %s opens %s to addresses outside %s = [%s] (%s, for one), so the narrowing does not "+
			"hold. It is not the cluster's rule, and the provider never deletes it: narrow or delete it yourself, or add its "+
			"CIDRs to %s if they are meant to be let in.", e.Rule.ID, strings.ToLower(e.Rule.Protocol),
			rulePorts(e.Rule), source, id, what, attr, strings.Join(e.Allowed, ", "), e.Outside, attr))
	}
}

// rulePorts words a firewall rule's ports.
func rulePorts(r rules.Rule) string {
	switch {
	case r.StartPort <= 0:
		return "all ports"
	case r.EndPort == 0 || r.EndPort == r.StartPort:
		return fmt.Sprint(r.StartPort)
	}
	return fmt.Sprintf("%d-%d", r.StartPort, r.EndPort)
}

// adoptImported fills in, on the first read after an import or a move,
// the inputs CloudStack does not return but the cluster shows: the node
// templates from the VM map's templates, and the external load balancer
// address from the endpoint of a cluster on a Shared network. Without them
// a configuration that sets them would plan a change right after the
// import. Later reads keep the configured values, as for the other inputs
// CloudStack does not return.
func adoptImported(ctx context.Context, m *clusterResourceModel, obs *clusterops.Observation, next privateState) diag.Diagnostics {
	if m.NodeTemplates.IsNull() {
		m.NodeTemplates = stringMapOrNull(clusterops.NodeTemplates(&obs.Cluster))
	}
	if m.ExternalLoadBalancerIP.IsNull() {
		m.ExternalLoadBalancerIP = stringOrNull(clusterops.ExternalLoadBalancerIP(&obs.Cluster, obs.Network))
	}
	return next.SetKey(ctx, privateImported, nil)
}

// readBackTimeout bounds the read that records the real state after an
// operation failed or ran out of time (its own context may be over).
const readBackTimeout = 2 * time.Minute

// observe reads the cluster and its rules with the operation's intent
// (whose CIDRs decide which rules are the cluster's), also when ctx is
// over.
func (r *clusterResource) observe(ctx context.Context, op *clusterOp, id string) (*clusterops.Observation, diag.Diagnostics) {
	if ctx.Err() != nil {
		fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
		defer cancel()
		ctx = fresh
	}
	obs, err := r.engine().Observe(ctx, id, op.intent)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Unable to Read Cluster", fmt.Sprintf("Reading cluster %s failed: %s", id, err))}
	}
	return obs, nil
}

// refreshModel sets m's observed attributes from the observation, keeping
// the inputs the API does not return, and caches what the next operation
// needs in next (may be nil).
func refreshModel(ctx context.Context, m *clusterResourceModel, obs *clusterops.Observation, next privateState) diag.Diagnostics {
	var diags diag.Diagnostics
	c := &obs.Cluster
	if obs.RulesErr != nil {
		tflog.Warn(ctx, "could not read the cluster's network or rules", map[string]any{"error": obs.RulesErr.Error()})
	}
	desired := m.State
	diags.Append(m.refresh(ctx, c, obs.Network, obs.Nodes())...)
	m.refreshReturned(c)
	m.CloudStackState = stringOrNull(c.State)
	switch {
	case c.State == clusterstate.Running || c.State == clusterstate.Stopped:
	case known(desired):
		m.State = desired
	default:
		m.State = types.StringValue(clusterstate.Running)
	}
	if obs.Inconsistency != nil {
		// What really exists: the workers of the VM map.
		m.Size = types.Int64Value(obs.Inconsistency.Workers)
	}
	switch {
	case obs.RulesRead:
		m.SSHRulesInSync = types.BoolValue(obs.RulesInSync)
	case obs.Network == rules.NetworkDirect || !clusterstate.Settled(c.State):
		// No rules, or rules in flux while an operation runs.
		m.SSHRulesInSync = types.BoolValue(true)
	case m.SSHRulesInSync.IsUnknown():
		// Never read: not known to be in sync. A later refresh reads them.
		m.SSHRulesInSync = types.BoolNull()
	}
	diags.Append(savePrivate(ctx, next, obs)...)
	as, d := refreshedAutoscaling(ctx, m.Autoscaling, c)
	diags.Append(d...)
	m.Autoscaling = as
	if m.RecreateUserHazardRules.IsNull() || m.RecreateUserHazardRules.IsUnknown() {
		m.RecreateUserHazardRules = types.BoolValue(false)
	}
	if m.AllowRestartForRecovery.IsNull() || m.AllowRestartForRecovery.IsUnknown() {
		m.AllowRestartForRecovery = types.BoolValue(false)
	}
	if m.DeletionProtection.IsNull() || m.DeletionProtection.IsUnknown() {
		m.DeletionProtection = types.BoolValue(false) // imported or moved: the default
	}
	return diags
}
