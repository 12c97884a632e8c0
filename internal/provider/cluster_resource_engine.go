package provider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// Private state keys: the network kind (it never changes, so a refresh
// needs no listNetworks) and the VM map inconsistency the last refresh
// found (so that the plan can judge a size change without a read).
//
// privateImported marks a state just imported, whose first refresh also
// reads what an import has no other way to learn (node_templates).
const (
	privateNetworkKind = "network_kind"
	privateVMMap       = "vm_map_inconsistency"
	privateImported    = "imported"
)

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

func stringList(ctx context.Context, l types.List) ([]string, diag.Diagnostics) {
	if l.IsNull() || l.IsUnknown() {
		return nil, nil
	}
	var out []string
	diags := l.ElementsAs(ctx, &out, false)
	return out, diags
}

// cachedNetwork reads the network kind a previous refresh cached.
func cachedNetwork(ctx context.Context, prior privateState) rules.NetworkKind {
	if prior == nil {
		return ""
	}
	raw, _ := prior.GetKey(ctx, privateNetworkKind)
	var kind rules.NetworkKind
	if len(raw) == 0 || json.Unmarshal(raw, &kind) != nil {
		return ""
	}
	return kind
}

// recordedInconsistency reads the VM map inconsistency the last refresh
// recorded, or nil.
func recordedInconsistency(ctx context.Context, prior privateState) *vmmap.Inconsistency {
	if prior == nil {
		return nil
	}
	raw, _ := prior.GetKey(ctx, privateVMMap)
	var bad vmmap.Inconsistency
	if len(raw) > 0 && json.Unmarshal(raw, &bad) == nil && bad.ClusterID != "" {
		return &bad
	}
	return nil
}

// savePrivate caches the observation's network kind and inconsistency.
func savePrivate(ctx context.Context, next privateState, obs *clusterops.Observation) diag.Diagnostics {
	var diags diag.Diagnostics
	if next == nil {
		return diags
	}
	if raw, err := json.Marshal(obs.Network); err == nil && !obs.NetworkGuessed {
		diags.Append(next.SetKey(ctx, privateNetworkKind, raw)...)
	}
	raw := []byte("{}")
	if obs.Inconsistency != nil {
		if b, err := json.Marshal(obs.Inconsistency); err == nil {
			raw = b
		}
	}
	diags.Append(next.SetKey(ctx, privateVMMap, raw)...)
	return diags
}
