package clusterview

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Layout is the layout of a cluster's rules as far as the cluster itself
// tells it: the network kind (NetworkKind), the VM map with roles
// (LayoutNodes), the network, and etcdStartPort, the configured etcd SSH
// start port, until the etcd forwards tell the cluster's own (ReadRules).
// The caller adds what other records tell: the IP the rules are on, the
// source CIDRs it keeps, a VPC tier's API path.
func Layout(c *cloudstack.Cluster, kind rules.NetworkKind, etcdStartPort int) rules.Layout {
	return rules.Layout{Network: kind, EtcdStartPort: etcdStartPort, NetworkID: c.NetworkID, Nodes: LayoutNodes(c)}
}

// LayoutNodes is the VM map as the rule planner sees it: each VM with the
// role Roles tells, in the order CKS made them (the client sorts the map
// so, whatever order the API lists it in).
func LayoutNodes(c *cloudstack.Cluster) []rules.Node {
	vms := MapVMs(c)
	out := make([]rules.Node, 0, len(vms))
	for _, vm := range vms {
		out = append(out, rules.Node{ID: vm.ID, Name: vm.Name, Role: vm.Role, External: vm.External})
	}
	return out
}

// MapWorkers is the number of worker VMs CKS made that the cluster's VM map
// holds: its control and worker VMs (etcd VMs and external nodes left out,
// as Roles tells them) minus the control node count.
func MapWorkers(c *cloudstack.Cluster) int64 {
	return int64(rules.Layout{Nodes: LayoutNodes(c)}.InternalCount()) - c.ControlNodes
}
