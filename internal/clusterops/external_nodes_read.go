package clusterops

import (
	"context"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
)

// ExternalNode is one external node of a cluster as read for its resource.
type ExternalNode struct {
	ClusterID string
	VMID      string
	Name      string
	State     string
	// SSHPort is the public port of its SSH forward on the cluster's IP, 0
	// when it has none (or the network is directly accessed).
	SSHPort int
	// KubernetesVersion is the version the VM map records for the node.
	KubernetesVersion string
	// ManualUpgrade is what the provider's tag says of how it was joined;
	// Tagged is false when the VM has no such tag (joined by another client).
	ManualUpgrade, Tagged bool
}

// ReadExternalNode reads a cluster's external node. It returns an error for
// which cloudstack.IsNotFound holds when the cluster is gone or the VM is no
// longer an external node of it.
func (e *Engine) ReadExternalNode(ctx context.Context, clusterID, vmID string) (*ExternalNode, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, err
	}
	found, ok := mapVM(c, vmID)
	if !ok || !found.External {
		return nil, cloudstack.NewNotFoundError("listKubernetesClusters", "external node", vmID)
	}
	n := &ExternalNode{ClusterID: c.ID, VMID: vmID, Name: found.Name, State: found.State, KubernetesVersion: found.NodeVersion}
	s, err := e.snapshotOf(ctx, c, Intent{})
	if err != nil {
		return nil, fmt.Errorf("reading the rules of cluster %s: %w", c.ID, err)
	}
	for _, r := range s.NetworkForwards {
		if r.VMID == vmID && r.IPAddressID == s.PublicIPID && r.PrivatePort == 22 {
			n.SSHPort = r.StartPort
		}
	}
	vm, err := e.api.GetVirtualMachine(ctx, vmID)
	if err != nil {
		return nil, fmt.Errorf("reading VM %s: %w", vmID, err)
	}
	if v, ok := vm.Tags[TagManualUpgrade]; ok {
		n.Tagged, n.ManualUpgrade = true, v == "true"
	}
	return n, nil
}

// RecordManualUpgrade sets the provider's tags of an external node to say
// how it was joined, for a node the provider did not join (an import):
// CloudStack shows it nowhere, and its upgrades skip the node when it was
// joined with manualupgrade.
func (e *Engine) RecordManualUpgrade(ctx context.Context, clusterID, vmID string, manual bool) error {
	return e.tagJoined(ctx, JoinRequest{ClusterID: clusterID, VMID: vmID, ManualUpgrade: manual})
}

// ExternalNodeRef is an external node of a cluster, and whether the
// provider's cks_cluster_node joined it to this cluster (its tag says so).
type ExternalNodeRef struct {
	ID, Name string
	Managed  bool
}

// ExternalNodesOf lists a cluster's external nodes, for its deletion:
// CloudStack destroys and expunges them with a cluster on a network the user
// supplied, and refuses to delete a cluster on the network it created while
// any remains.
func (e *Engine) ExternalNodesOf(ctx context.Context, clusterID string) ([]ExternalNodeRef, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, err
	}
	var out []ExternalNodeRef
	for _, vm := range clusterview.MapVMs(c) {
		if !vm.External {
			continue
		}
		ref := ExternalNodeRef{ID: vm.ID, Name: vm.Name}
		v, err := e.api.GetVirtualMachine(ctx, vm.ID)
		if err != nil && !cloudstack.IsNotFound(err) {
			return nil, fmt.Errorf("reading external node %s: %w", vm.ID, err)
		}
		ref.Managed = v != nil && v.Tags[TagJoinedCluster] == clusterID
		out = append(out, ref)
	}
	return out, nil
}
