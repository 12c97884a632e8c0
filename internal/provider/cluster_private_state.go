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

// clusterPrivate is what the last operation kept in private state, read
// once when an operation starts (readPrivate). A key that is missing or
// cannot be read leaves its zero value: nothing known.
type clusterPrivate struct {
	// network is the network kind a refresh cached, "" when none did.
	network rules.NetworkKind
	// inconsistency is the VM map inconsistency the last refresh found.
	inconsistency *vmmap.Inconsistency
	// imported marks a state just imported or moved (privateImported).
	imported bool
	// history is every CIDR list the provider gave the rules.
	history ruleCIDRHistory
	// deleteMemo is what a failed delete knew of the rules.
	deleteMemo clusterops.DeleteMemo
	// externalSeen is what the refreshes saw of the external nodes.
	externalSeen map[string][]string
}

// readPrivate reads every key the resource keeps; p may be nil (a create).
func readPrivate(ctx context.Context, p privateState) clusterPrivate {
	var c clusterPrivate
	if p == nil {
		return c
	}
	if !readKey(ctx, p, privateNetworkKind, &c.network) {
		c.network = ""
	}
	if bad := new(vmmap.Inconsistency); readKey(ctx, p, privateVMMap, bad) && bad.ClusterID != "" {
		c.inconsistency = bad
	}
	raw, _ := p.GetKey(ctx, privateImported)
	c.imported = len(raw) > 0
	if !readKey(ctx, p, privateRuleCIDRs, &c.history) {
		c.history = ruleCIDRHistory{}
	}
	if !readKey(ctx, p, privateDeleteMemo, &c.deleteMemo) {
		c.deleteMemo = clusterops.DeleteMemo{}
	}
	if !readKey(ctx, p, privateExternalSeen, &c.externalSeen) {
		c.externalSeen = nil
	}
	return c
}

// readKey decodes the JSON value of a key into v; false when it is missing
// or does not decode.
func readKey(ctx context.Context, p privateState, key string, v any) bool {
	raw, _ := p.GetKey(ctx, key)
	return len(raw) > 0 && json.Unmarshal(raw, v) == nil
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
	var seen map[string][]string
	if !readKey(ctx, next, privateExternalSeen, &seen) {
		seen = nil
	}
	seen = clusterops.SightExternalNodes(&obs.Cluster, seen)
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
