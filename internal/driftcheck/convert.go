package driftcheck

import (
	"cmp"
	"maps"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

func toDriftCluster(c *cloudstack.Cluster) drift.Cluster {
	return drift.Cluster{
		ID:           c.ID,
		Name:         c.Name,
		State:        c.State,
		ClusterType:  c.ClusterType,
		Size:         int(c.Size),
		ControlNodes: int(c.ControlNodes),
		EtcdNodes:    int(c.EtcdNodes),
		// The semantic version from the name, so that policies need not
		// join version ids.
		KubernetesVersion: kubeversion.FromName(c.KubernetesVersionName),
		ServiceOfferingID: c.ServiceOfferingID,
		RoleOfferingIDs: map[naming.Role]string{naming.RoleControl: c.ControlOfferingID,
			naming.RoleWorker: c.WorkerOfferingID, naming.RoleEtcd: c.EtcdOfferingID},
		OfferingNames: offeringNames(c),
	}
}

// offeringNames names every offering the cluster and its VMs report.
func offeringNames(c *cloudstack.Cluster) map[string]string {
	names := maps.Clone(c.OfferingNames)
	if names == nil {
		names = map[string]string{}
	}
	for _, vm := range clusterview.MapVMs(c) {
		if vm.OfferingID != "" && vm.OfferingName != "" {
			names[vm.OfferingID] = vm.OfferingName
		}
	}
	return names
}

func toMap(c *cloudstack.Cluster) []drift.MappedVM {
	vms := clusterview.MapVMs(c)
	out := make([]drift.MappedVM, 0, len(vms))
	for _, vm := range vms {
		out = append(out, drift.MappedVM{ID: vm.ID, Name: vm.Name, IsEtcd: vm.Role == naming.RoleEtcd, IsExternal: vm.External,
			NodeVersion: vm.NodeVersion, OfferingID: vm.OfferingID})
	}
	return out
}

func toVMs(vms []cloudstack.VirtualMachine) []drift.VM {
	out := make([]drift.VM, 0, len(vms))
	for _, vm := range vms {
		out = append(out, drift.VM{ID: vm.ID, Name: vmName(vm), State: vm.State, Created: cloudstack.ParseCreated(vm.Created)})
	}
	return out
}

// vmName is the VM's name, its display name when it has none.
func vmName(vm cloudstack.VirtualMachine) string { return cmp.Or(vm.Name, vm.DisplayName) }

func toNodes(list []nodes.Node) []drift.Node {
	out := make([]drift.Node, 0, len(list))
	for _, n := range list {
		out = append(out, drift.Node{Name: n.Name, Ready: n.Ready, Version: n.Version})
	}
	return out
}
