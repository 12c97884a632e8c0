package clusterview

import (
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// MapVM is one row of a cluster's VM map as the engines read it: the VM
// with the role Roles tells.
type MapVM struct {
	ID, Name, State string
	Role            naming.Role
	// External is set for a VM joined with addNodesToKubernetesCluster.
	External bool
	// Created is when CloudStack made the VM (cloudstack.ParseCreated).
	Created time.Time
	// IPAddress is the VM's own address.
	IPAddress string
	// OfferingID and OfferingName are the VM's service offering.
	OfferingID, OfferingName string
	TemplateID               string
	// NodeVersion is the Kubernetes version the map records for the node,
	// "" when the server reports none.
	NodeVersion string
}

// MapVMs reads the cluster's VM map, index for index.
func MapVMs(c *cloudstack.Cluster) []MapVM {
	roles := Roles(c)
	out := make([]MapVM, 0, len(c.VirtualMachines))
	for i, vm := range c.VirtualMachines {
		out = append(out, MapVM{ID: vm.ID, Name: vm.Name, State: vm.State, Role: roles[i], External: vm.IsExternalNode,
			Created: cloudstack.ParseCreated(vm.Created), IPAddress: vm.IPAddress, OfferingID: vm.ServiceOfferingID,
			OfferingName: vm.ServiceOfferingName, TemplateID: vm.TemplateID, NodeVersion: vm.KubernetesNodeVersion})
	}
	return out
}
