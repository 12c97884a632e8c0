package clusterview

import (
	"cmp"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// Roles tells the role of each VM of the cluster's VM map, index for index.
// The map's VMs are KubernetesUserVmResponses: isexternalnode, isetcdnode
// (absent before separate etcd nodes came), no control-node flag. So:
//   - an etcd VM is one with isetcdnode, or, in a response without the
//     flag, one that has the name CKS gives this cluster's etcd VMs while the
//     cluster has etcd nodes;
//   - an external node is a worker;
//   - a control or worker VM is told by the name CKS gives it
//     (<prefix>-control-<hex>, <prefix>-node-<hex>), this cluster's prefix
//     first, then the pattern of any cluster;
//   - a VM with neither fills the control slots the named control VMs left
//     (ControlNodes minus them) in name order, and is a worker after that.
//
// The result does not depend on the order the API lists the map in. Today's
// server lists it by map row id (createKubernetesClusterResponse walks
// KubernetesClusterVmMapDaoImpl.listByClusterId, which orders by id), but no
// API documentation promises that, and a row re-inserted by hand or a
// proxy that reorders would move a VM's position, never its name or flags.
func Roles(c *cloudstack.Cluster) []naming.Role {
	m := naming.NewMatcher(c.Name, c.ID)
	roles := make([]naming.Role, len(c.VirtualMachines))
	var unnamed []int
	controls := int64(0)
	for i, vm := range c.VirtualMachines {
		_, ownEtcd := m.EtcdIndex(vm.Name)
		role, named := m.Role(vm.Name)
		if !named {
			role, named = naming.RoleOf(vm.Name)
		}
		switch {
		case vm.IsEtcdNode || (ownEtcd && c.EtcdNodes > 0):
			roles[i] = naming.RoleEtcd
		case vm.IsExternalNode:
			roles[i] = naming.RoleWorker
		case named && role != naming.RoleEtcd:
			roles[i] = role
			if role == naming.RoleControl {
				controls++
			}
		default:
			unnamed = append(unnamed, i)
		}
	}
	slices.SortFunc(unnamed, func(a, b int) int {
		va, vb := c.VirtualMachines[a], c.VirtualMachines[b]
		return cmp.Or(cmp.Compare(va.Name, vb.Name), cmp.Compare(va.ID, vb.ID))
	})
	for _, i := range unnamed {
		roles[i] = naming.RoleWorker
		if controls < c.ControlNodes {
			roles[i] = naming.RoleControl
			controls++
		}
	}
	return roles
}
