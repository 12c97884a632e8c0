package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// A cluster's external nodes at its deletion. CloudStack destroys and
// expunges every VM of the map with a cluster on a network the user
// supplied, external nodes included, and refuses to delete a cluster on the
// network it created while one remains. The nodes cks_cluster_node manages
// depend on the cluster, so Terraform removes them first; any other is
// never destroyed silently: the plan refuses, naming it and the way out.

// externalNodesText names the external nodes the provider's
// cks_cluster_node manages (managed), or the others; "" when there are none.
func externalNodesText(nodes []clusterops.ExternalNodeRef, managed bool) string {
	var names []string
	for _, n := range nodes {
		if n.Managed == managed {
			names = append(names, fmt.Sprintf("%s (%s)", n.Name, n.ID))
		}
	}
	return strings.Join(names, ", ")
}

const externalNodesWayOut = "Take them out of the cluster first: import each as a cks_cluster_node " +
	"(terraform import cks_cluster_node.<name> <cluster_id>/<vm_id>) and remove it, or run " +
	"removeNodesFromKubernetesCluster (cmk remove nodesfromkubernetescluster id=<cluster_id> nodeids=<vm_id>); the VMs keep running."

// planDestroyExternalNodes says at a destroy's plan which external nodes
// are removed before the cluster, and refuses those no cks_cluster_node
// manages.
func (r *clusterResource) planDestroyExternalNodes(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if r.data == nil {
		return
	}
	id := stateID(ctx, req)
	nodes, err := r.engine().ExternalNodesOf(ctx, id)
	if err != nil || len(nodes) == 0 {
		return // gone, or unreadable: Delete checks again before any call
	}
	if managed := externalNodesText(nodes, true); managed != "" {
		diags.AddWarning("External Nodes Removed First", fmt.Sprintf("Cluster %s has external nodes that cks_cluster_node "+
			"manages: %s. They depend on the cluster, so the destroy takes them out of it (their VMs keep running) before it "+
			"deletes the cluster. When CloudStack made the cluster's network, it refuses to delete the cluster while VMs "+
			"outside it use that network: those VMs must go in the same run (a VM resource that references the cluster is "+
			"destroyed before it), or live on a network you supply to the cluster.", id, managed))
	}
	if unmanaged := externalNodesText(nodes, false); unmanaged != "" {
		diags.AddError("Cluster Has External Nodes", fmt.Sprintf("Cluster %s has external nodes that no cks_cluster_node "+
			"manages: %s. CloudStack destroys and expunges them with the cluster when it is on a network you supplied, and "+
			"refuses to delete the cluster while they remain when it made the cluster's network, so the cluster is not "+
			"deleted. %s", id, unmanaged, externalNodesWayOut))
	}
}

// refuseDeleteWithExternalNodes stops a delete, before any call, of a
// cluster that still has external nodes: by then Terraform has removed the
// ones the configuration manages.
func (r *clusterResource) refuseDeleteWithExternalNodes(ctx context.Context, id string, diags *diag.Diagnostics) bool {
	nodes, err := r.engine().ExternalNodesOf(ctx, id)
	if err != nil || len(nodes) == 0 {
		return false
	}
	all := externalNodesText(nodes, true)
	if other := externalNodesText(nodes, false); other != "" {
		all = strings.TrimPrefix(all+", "+other, ", ")
	}
	diags.AddError("Cluster Has External Nodes", fmt.Sprintf("Cluster %s still has external nodes: %s. CloudStack would "+
		"destroy and expunge them with the cluster (a network you supplied), or refuse to delete it (the network it made), "+
		"so nothing was deleted. %s", id, all, externalNodesWayOut))
	return true
}
