package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// What the plan asks of the engine: the rule intent, the create request and
// the update request.

// intentOf is what the configuration m asks of the cluster's rules; prior
// is the state before (nil at create and read), whose ssh_cidrs stay the
// cluster's until they are replaced.
func intentOf(ctx context.Context, m, prior *clusterResourceModel, network rules.NetworkKind) (clusterops.Intent, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := clusterops.Intent{MoveUserRules: m.RecreateUserHazardRules.ValueBool(), Network: network}
	var d diag.Diagnostics
	in.SSHCIDRs, in.FormerSSHCIDRs, d = cidrsOf(ctx, m.SSHCIDRs, prior, func(p *clusterResourceModel) types.List { return p.SSHCIDRs })
	diags.Append(d...)
	in.APICIDRs, in.FormerAPICIDRs, d = cidrsOf(ctx, m.APICIDRs, prior, func(p *clusterResourceModel) types.List { return p.APICIDRs })
	diags.Append(d...)
	return in, diags
}

// cidrsOf reads a CIDR list and, from the prior state, the list the rules
// had before when it differs.
func cidrsOf(ctx context.Context, l types.List, prior *clusterResourceModel, of func(*clusterResourceModel) types.List) ([]string, [][]string, diag.Diagnostics) {
	cidrs, diags := stringList(ctx, l)
	if prior == nil {
		return cidrs, nil, diags
	}
	former, d := stringList(ctx, of(prior))
	diags.Append(d...)
	if len(former) > 0 && !slices.Equal(former, cidrs) {
		return cidrs, [][]string{former}, diags
	}
	return cidrs, nil, diags
}

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
// parameters and the update that follows it (rule layout, autoscaler,
// state).
func createRequest(ctx context.Context, plan *clusterResourceModel, deleteTimeout time.Duration) (clusterops.CreateRequest, diag.Diagnostics) {
	as, _, diags := autoscalingOf(ctx, plan.Autoscaling)
	then, d := updateRequest(ctx, plan, plan, "")
	diags.Append(d...)
	then.Size = nil
	return clusterops.CreateRequest{Params: createParams(*plan, as), Then: then, DeleteTimeout: deleteTimeout}, diags
}

// createTimeouts are the plan's create and delete timeouts.
func createTimeouts(ctx context.Context, plan *clusterResourceModel) (create, del time.Duration, diags diag.Diagnostics) {
	create, diags = plan.Timeouts.Create(ctx, defaultClusterTimeout)
	del, d := plan.Timeouts.Delete(ctx, defaultClusterTimeout)
	diags.Append(d...)
	return create, del, diags
}

// updateRequest maps the plan onto the engine's update: what differs from
// the prior state, and the desired autoscaler and size.
func updateRequest(ctx context.Context, plan, prior *clusterResourceModel, network rules.NetworkKind) (clusterops.UpdateRequest, diag.Diagnostics) {
	in, diags := intentOf(ctx, plan, prior, network)
	u := clusterops.UpdateRequest{Intent: in, Stopped: plan.State.ValueString() == clusterstate.Stopped}
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
	as, _, d := autoscalingOf(ctx, plan.Autoscaling)
	diags.Append(d...)
	if as.enabled() {
		u.Autoscaling = &clusterops.Autoscaling{MinSize: as.MinSize.ValueInt64(), MaxSize: as.MaxSize.ValueInt64()}
	} else if known(plan.Size) {
		size := plan.Size.ValueInt64()
		u.Size = &size
	}
	return u, diags
}
