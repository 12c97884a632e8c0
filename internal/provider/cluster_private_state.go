package provider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// privateState is the part of the framework's private state the resource
// uses (resource responses' Private fields implement it).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// Private state keys: the network kind (it never changes, so a refresh
// needs no listNetworks) and the VM map inconsistency the last refresh
// found (so that the plan can judge a size change without a read).
//
// privateImported marks a state just imported, whose first refresh also
// reads what an import has no other way to learn (node_templates).
//
// privateRuleCIDRs is every CIDR list the provider has given the cluster's
// SSH and API firewall rules (ruleCIDRHistory), and privateDeleteMemo what
// a failed delete of the cluster knew of its rules (clusterops.DeleteMemo),
// for the next attempt.
//
// privateExternalSeen holds, for each external node, the control and worker
// VMs the cluster had when a refresh first saw the node in its map: the
// upgrade needs it to tell where the node's row lies in CloudStack's VM map,
// which the API does not show (clusterops.CheckUpgradeOrder).
const (
	privateNetworkKind  = "network_kind"
	privateVMMap        = "vm_map_inconsistency"
	privateImported     = "imported"
	privateRuleCIDRs    = "rule_cidrs"
	privateDeleteMemo   = "delete_memo"
	privateExternalSeen = "external_nodes_seen"
)

// externalSeen reads what the refreshes saw of the external nodes.
func externalSeen(ctx context.Context, prior privateState) map[string][]string {
	if prior == nil {
		return nil
	}
	raw, _ := prior.GetKey(ctx, privateExternalSeen)
	var seen map[string][]string
	if len(raw) == 0 || json.Unmarshal(raw, &seen) != nil {
		return nil
	}
	return seen
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
	seen := clusterops.SightExternalNodes(&obs.Cluster, externalSeen(ctx, next))
	if b, err := json.Marshal(seen); err == nil {
		diags.Append(next.SetKey(ctx, privateExternalSeen, b)...)
	}
	return diags
}

// ruleCIDRHistory is every CIDR list the provider has given the cluster's
// SSH firewall rules and its API rule, so that it recognises the rules it
// made whatever happened after: a create whose answer was lost, a delete
// that failed, a configuration reverted since. An operation records the
// lists it is about to give the rules before it asks for any rule (the
// framework returns private state with errors too), and a successful one
// keeps only the lists some rule of the cluster still has, so that a rule a
// user makes later with a list the provider used long ago stays the user's.
type ruleCIDRHistory struct {
	SSH [][]string `json:"ssh,omitempty"`
	API [][]string `json:"api,omitempty"`
}

// cidrHistory reads the history the last operation recorded.
func cidrHistory(ctx context.Context, prior privateState) ruleCIDRHistory {
	var h ruleCIDRHistory
	if prior == nil {
		return h
	}
	raw, _ := prior.GetKey(ctx, privateRuleCIDRs)
	if len(raw) > 0 && json.Unmarshal(raw, &h) != nil {
		return ruleCIDRHistory{}
	}
	return h
}

// with adds the lists an operation is about to give the rules.
func (h ruleCIDRHistory) with(ssh, api []string) ruleCIDRHistory {
	return ruleCIDRHistory{SSH: addCIDRList(h.SSH, ssh), API: addCIDRList(h.API, api)}
}

func addCIDRList(lists [][]string, list []string) [][]string {
	n := rules.NormalCIDRs(list)
	if len(n) == 0 || slices.ContainsFunc(lists, func(l []string) bool { return slices.Equal(l, n) }) {
		return lists
	}
	return append(slices.Clone(lists), n)
}

// former are the lists of the history other than the current one.
func former(lists [][]string, current []string) [][]string {
	n := rules.NormalCIDRs(current)
	var out [][]string
	for _, l := range lists {
		if !slices.Equal(l, n) {
			out = append(out, l)
		}
	}
	return out
}

// keep leaves the lists some firewall rule of the cluster still has, and
// the current ones.
func (h ruleCIDRHistory) keep(inUse [][]string, ssh, api []string) ruleCIDRHistory {
	used := func(lists [][]string, current []string) [][]string {
		var out [][]string
		for _, l := range lists {
			if slices.Equal(l, rules.NormalCIDRs(current)) ||
				slices.ContainsFunc(inUse, func(u []string) bool { return slices.Equal(u, l) }) {
				out = append(out, l)
			}
		}
		return out
	}
	return ruleCIDRHistory{SSH: used(h.SSH, ssh), API: used(h.API, api)}
}

// save records the history.
func (h ruleCIDRHistory) save(ctx context.Context, next privateState) diag.Diagnostics {
	if next == nil {
		return nil
	}
	raw, err := json.Marshal(h)
	if err != nil {
		return nil
	}
	return next.SetKey(ctx, privateRuleCIDRs, raw)
}

// deleteMemo reads what a failed delete recorded.
func deleteMemo(ctx context.Context, prior privateState) clusterops.DeleteMemo {
	var m clusterops.DeleteMemo
	if prior == nil {
		return m
	}
	raw, _ := prior.GetKey(ctx, privateDeleteMemo)
	if len(raw) > 0 && json.Unmarshal(raw, &m) != nil {
		return clusterops.DeleteMemo{}
	}
	return m
}

// saveDeleteMemo records it for the next delete.
func saveDeleteMemo(ctx context.Context, next privateState, m clusterops.DeleteMemo) diag.Diagnostics {
	if next == nil {
		return nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return next.SetKey(ctx, privateDeleteMemo, raw)
}
