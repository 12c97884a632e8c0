package provider

import (
	"context"
	"encoding/json"

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
// privateExternalSeen holds, for each external node, the control and worker
// VMs the cluster had when a refresh first saw the node in its map: the
// upgrade needs it to tell where the node's row lies in CloudStack's VM map,
// which the API does not show (clusterops.CheckUpgradeOrder).
const (
	privateNetworkKind  = "network_kind"
	privateVMMap        = "vm_map_inconsistency"
	privateImported     = "imported"
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
