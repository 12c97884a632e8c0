package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// What the plan asks of the engine: the create request and the update
// request (the rule intent is the operation's, clusterOp).

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
