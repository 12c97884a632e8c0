package drift

import (
	"fmt"
	"sort"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// compareNodes pairs Kubernetes nodes with VMs and reports the leftovers on
// both sides and NotReady nodes. Nodes are not compared when they were not
// listed, when listing failed, or when the cluster is Stopped.
func (c *comparison) compareNodes() (checked bool, checkErr string) {
	view := c.in.Nodes
	switch {
	case view == nil:
		return false, ""
	case view.Err != nil:
		return false, view.Err.Error()
	case c.clusterStopped():
		return false, ""
	}

	// Candidates: every mapped VM, then the unmapped VMs named as this
	// cluster's nodes, so a stray VM's node is not reported twice.
	candidates := append(append([]vmRef(nil), c.mapped...), c.unmapped...)
	owner := pairNodes(view.Nodes, candidates)

	claimed := map[string]bool{}
	nodes := sortedNodes(view.Nodes)
	for _, n := range nodes {
		v, ok := owner[n.Name]
		if !ok {
			c.add(Finding{Kind: KindNodeWithoutVM, NodeName: n.Name,
				Message: fmt.Sprintf("Kubernetes node %s matches no VM of cluster %s", n.Name, c.in.Cluster.Name)})
			continue
		}
		claimed[v.id] = true
		c.nodeOf[v.id] = n
		if !n.Ready {
			c.add(Finding{Kind: KindNodeNotReady, NodeName: n.Name, VMID: v.id, VMName: v.name, VMState: v.state,
				Message: fmt.Sprintf("Kubernetes node %s of %s is not Ready", n.Name, v.label())})
		}
	}

	for _, v := range c.mapped {
		if v.etcd || claimed[v.id] || v.state != vmRunning || !c.pastGrace(v.created) {
			continue
		}
		c.add(Finding{Kind: KindVMNotNode, VMID: v.id, VMName: v.name, VMState: v.state,
			Message: fmt.Sprintf("%s of cluster %s is running but is not a Kubernetes node", v.label(), c.in.Cluster.Name)})
	}
	return true, ""
}

// pairNodes gives each node at most one VM and each VM at most one node:
// exact (lowercase) names first, then a node named with the VM's FQDN. A
// second node for the same VM stays unpaired: it is a stale registration.
func pairNodes(nodes []Node, vms []vmRef) map[string]vmRef {
	owner := map[string]vmRef{}
	taken := map[string]bool{}
	sorted := sortedNodes(nodes)
	for _, exactPass := range []bool{true, false} {
		for _, n := range sorted {
			if _, done := owner[n.Name]; done {
				continue
			}
			for _, v := range vms {
				if taken[v.id] || v.name == "" {
					continue
				}
				if exact, ok := naming.MatchNode(v.name, n.Name); ok && exact == exactPass {
					owner[n.Name] = v
					taken[v.id] = true
					break
				}
			}
		}
	}
	return owner
}

func sortedNodes(nodes []Node) []Node {
	out := append([]Node(nil), nodes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
