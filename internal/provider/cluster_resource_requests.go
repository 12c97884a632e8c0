package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// What the plan asks of the engine: the rule intent, the create request and
// the update request.

// intentOf is what the configuration m asks of the cluster's rules; prior
// is the state before (nil at create and read), whose CIDRs stay the
// cluster's until they are replaced, and p the private state, with the
// network kind and every CIDR list the provider gave the rules
// (ruleCIDRHistory): rules of those lists are the cluster's too.
func intentOf(ctx context.Context, m, prior *clusterResourceModel, p privateState) (clusterops.Intent, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := clusterops.Intent{MoveUserRules: m.RecreateUserHazardRules.ValueBool(), Network: cachedNetwork(ctx, p)}
	history := cidrHistory(ctx, p)
	var d diag.Diagnostics
	in.SSHCIDRs, in.FormerSSHCIDRs, d = cidrsOf(ctx, m.SSHCIDRs, prior, history.SSH, func(p *clusterResourceModel) types.List { return p.SSHCIDRs })
	diags.Append(d...)
	in.APICIDRs, in.FormerAPICIDRs, d = cidrsOf(ctx, m.APICIDRs, prior, history.API, func(p *clusterResourceModel) types.List { return p.APICIDRs })
	diags.Append(d...)
	return in, diags
}

// cidrsOf reads a CIDR list and the lists the rules had before: the prior
// state's when it differs, and the history's.
func cidrsOf(ctx context.Context, l types.List, prior *clusterResourceModel, history [][]string,
	of func(*clusterResourceModel) types.List,
) ([]string, [][]string, diag.Diagnostics) {
	cidrs, diags := stringList(ctx, l)
	lists := history
	if prior != nil {
		before, d := stringList(ctx, of(prior))
		diags.Append(d...)
		lists = addCIDRList(lists, before)
	}
	return cidrs, former(lists, cidrs), diags
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
	then, d := updateRequest(ctx, plan, plan, nil)
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
func updateRequest(ctx context.Context, plan, prior *clusterResourceModel, p privateState) (clusterops.UpdateRequest, diag.Diagnostics) {
	in, diags := intentOf(ctx, plan, prior, p)
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

// recordCIDRsBeforeChanges records in next, before any rule call, the CIDR
// lists m is about to give the rules, with those of prior (nil at create)
// and the history the prior private state holds: whatever the operation
// ends like, the rules it makes are known as the cluster's.
func recordCIDRsBeforeChanges(ctx context.Context, m, prior *clusterResourceModel, p, next privateState) (ruleCIDRHistory, diag.Diagnostics) {
	h := cidrHistory(ctx, p)
	var diags diag.Diagnostics
	for _, model := range []*clusterResourceModel{prior, m} {
		if model == nil {
			continue
		}
		ssh, d := stringList(ctx, model.SSHCIDRs)
		diags.Append(d...)
		api, d := stringList(ctx, model.APICIDRs)
		diags.Append(d...)
		h = h.with(ssh, api)
	}
	diags.Append(h.save(ctx, next)...)
	return h, diags
}

// forgetUnusedCIDRs keeps, after an operation that succeeded and read the
// rules, only the lists of h that some firewall rule of the cluster still
// has, and m's: a list no rule has any more is no longer the cluster's.
func forgetUnusedCIDRs(ctx context.Context, h ruleCIDRHistory, m *clusterResourceModel, obs *clusterops.Observation, next privateState) diag.Diagnostics {
	if obs == nil || !obs.RulesRead {
		return nil
	}
	ssh, diags := stringList(ctx, m.SSHCIDRs)
	api, d := stringList(ctx, m.APICIDRs)
	diags.Append(d...)
	diags.Append(h.keep(obs.OwnedCIDRs, ssh, api).save(ctx, next)...)
	return diags
}
