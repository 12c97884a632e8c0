package driftcheck

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// CloudStack commands the checker calls, as Stats names them.
const (
	cmdListClusters = "listKubernetesClusters"
	cmdListVMs      = "listVirtualMachines"
	cmdListFirewall = "listFirewallRules"
	cmdListForwards = "listPortForwardingRules"
	cmdListNetworks = "listNetworks"
	cmdListLB       = "listLoadBalancerRules"
	cmdCapabilities = "listCapabilities"
	cmdGetConfig    = "getKubernetesClusterConfig"
)

// allProjects is the projectid that lists the resources of every project
// the caller may see.
const allProjects = "-1"

// clusterIndex holds one listing of clusters and tells which cluster maps
// each VM, so that a VM in another cluster's map is not called unmapped.
type clusterIndex struct {
	clusters []cloudstack.Cluster
	byID     map[string]int
	mappedBy map[string][]string // VM id -> ids of the clusters whose map holds it
}

func newClusterIndex(list []cloudstack.Cluster) *clusterIndex {
	idx := &clusterIndex{byID: map[string]int{}, mappedBy: map[string][]string{}}
	idx.add(list)
	return idx
}

// add indexes clusters not seen yet.
func (x *clusterIndex) add(list []cloudstack.Cluster) {
	for _, c := range list {
		if _, seen := x.byID[c.ID]; seen {
			continue
		}
		x.byID[c.ID] = len(x.clusters)
		x.clusters = append(x.clusters, c)
		for _, vm := range c.VirtualMachines {
			x.mappedBy[vm.ID] = append(x.mappedBy[vm.ID], c.ID)
		}
	}
}

// find returns the cluster with the id, or nil.
func (x *clusterIndex) find(id string) *cloudstack.Cluster {
	if i, ok := x.byID[id]; ok {
		return &x.clusters[i]
	}
	return nil
}

// mappedElsewhere maps each of the VMs that another cluster's map holds to
// that cluster's id. Only the owner's VMs matter to the comparison.
func (x *clusterIndex) mappedElsewhere(clusterID string, vms []cloudstack.VirtualMachine) map[string]string {
	out := map[string]string{}
	for _, vm := range vms {
		for _, id := range x.mappedBy[vm.ID] {
			if id != clusterID {
				out[vm.ID] = id
				break
			}
		}
	}
	return out
}

// ownerOf is the ownership filter that lists the cluster owner's VMs.
func ownerOf(c *cloudstack.Cluster) cloudstack.Ownership {
	if c.ProjectID != "" {
		return cloudstack.Ownership{ProjectID: c.ProjectID}
	}
	return cloudstack.Ownership{Account: c.Account, DomainID: c.DomainID}
}

// ownerKey identifies an owner for sharing VM lists.
func ownerKey(o cloudstack.Ownership) string {
	if o.ProjectID != "" {
		return "project/" + o.ProjectID
	}
	return "account/" + o.DomainID + "/" + o.Account
}
