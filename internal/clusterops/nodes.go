package clusterops

import (
	"cmp"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// Node is one VM of a cluster's VM map with its role and SSH port.
type Node struct {
	ID       string
	Name     string
	State    string
	Role     naming.Role
	External bool
	// SSHPort is the public port of the node's SSH forward on the cluster
	// IP (2222+i for control and worker VMs, the etcd start port + j for
	// etcd VMs), 22 on directly accessed networks (the node's own address),
	// 0 when CKS gives the node none.
	SSHPort int
}

// NodesOf returns the cluster's VM map with roles (clusterview.Roles) and the SSH ports
// CKS gives them, without any API call, in the order of SortNodes.
// etcdStartPort 0 means 50000.
func NodesOf(c *cloudstack.Cluster, network rules.NetworkKind, etcdStartPort int) []Node {
	return nodesWithPorts(c, network, etcdStartPort, nil)
}

// nodesWithPorts is NodesOf with the ports the forwards really give when
// they were read (observed not nil): a node without a forward then has no
// port (0), whatever CKS would give it.
func nodesWithPorts(c *cloudstack.Cluster, network rules.NetworkKind, etcdStartPort int, observed map[string]int) []Node {
	ports := observed
	if observed == nil || network == rules.NetworkDirect {
		ports = sshPorts(clusterview.Layout(c, network, etcdStartPort))
	}
	vms := clusterview.MapVMs(c)
	out := make([]Node, 0, len(vms))
	for _, vm := range vms {
		out = append(out, Node{ID: vm.ID, Name: vm.Name, State: vm.State, Role: vm.Role, External: vm.External, SSHPort: ports[vm.ID]})
	}
	SortNodes(out)
	return out
}

// SortNodes orders nodes etcd first, then control, then workers, then
// external nodes, each role by name, then id. CKS names a node after its creation time (and an etcd
// node after its index too), so this is the order the management server's
// VM map, and the SSH ports it gives, have on a healthy cluster; it depends
// neither on the order the API lists the map in, which it does not
// guarantee, nor on the ports, so a repaired forward moves no node.
func SortNodes(nodes []Node) {
	rank := func(n Node) int {
		if n.External {
			return 3
		}
		return map[naming.Role]int{naming.RoleEtcd: 0, naming.RoleControl: 1, naming.RoleWorker: 2}[n.Role]
	}
	slices.SortStableFunc(nodes, func(a, b Node) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
}

// sshPorts maps VM ids to the public SSH port CKS gives them on the layout.
func sshPorts(l rules.Layout) map[string]int {
	ports := map[string]int{}
	if l.Network == rules.NetworkDirect {
		for _, n := range l.Nodes {
			ports[n.ID] = rules.SSHPort
		}
		return ports
	}
	for _, e := range rules.Expected(l) {
		if e.Purpose == rules.PurposeNodeSSHForward || e.Purpose == rules.PurposeEtcdForward {
			ports[e.VMID] = e.StartPort
		}
	}
	return ports
}

// InconsistentMap returns the cluster's VM map inconsistency (a failed
// scale's stale size), or nil.
func InconsistentMap(c *cloudstack.Cluster) *vmmap.Inconsistency {
	return vmmap.Check(vmmap.Cluster{ID: c.ID, Name: c.Name, State: c.State, ControlNodes: c.ControlNodes, Size: c.Size,
		EtcdNodes: c.EtcdNodes, Rows: int64(len(c.VirtualMachines)), External: c.ExternalNodes(), Workers: clusterview.MapWorkers(c)})
}

// NodesAfterResize predicts which of a cluster's nodes (in SortNodes order)
// a change of the worker count from `from` to `to`, and nothing else,
// leaves: the indices of the nodes kept, in order, and how many workers it
// adds after them. A scale-up keeps every node. A scale-down removes the
// workers with the highest SSH ports; CloudStack removes the last workers
// of its map (KubernetesClusterScaleWorker.scaleDownKubernetesClusterSize)
// and workersToRemove the newest, which are the same VMs only when port
// order and creation order (the hex suffix of CKS's names) agree. ok is
// false when the nodes do not show that unambiguously, or do not hold
// `from` workers.
func NodesAfterResize(nodes []Node, from, to int64) (keep []int, added int64, ok bool) {
	var workers []int
	for i, n := range nodes {
		if n.Role == naming.RoleWorker && !n.External {
			workers = append(workers, i)
		} else {
			keep = append(keep, i)
		}
	}
	if int64(len(workers)) != from {
		return nil, 0, false
	}
	for k, i := range workers {
		if nodes[i].SSHPort == 0 {
			return nil, 0, false
		}
		if k > 0 {
			prev := nodes[workers[k-1]]
			if prev.SSHPort >= nodes[i].SSHPort || prev.Name >= nodes[i].Name {
				return nil, 0, false
			}
		}
	}
	keep = append(keep, workers[:min(from, to)]...)
	return keep, to - min(from, to), true
}
