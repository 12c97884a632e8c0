package drift

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// compareMap reports map rows whose VM is missing or not running.
func (c *comparison) compareMap() {
	name := c.in.Cluster.Name
	for _, v := range c.mapped {
		switch {
		case !v.listed:
			c.add(Finding{Kind: KindMappedVMMissing, VMID: v.id, VMName: v.name,
				Message: fmt.Sprintf("%s is in the VM map of cluster %s but does not exist", v.label(), name)})
		case isGone(v.state):
			c.add(Finding{Kind: KindMappedVMNotRunning, VMID: v.id, VMName: v.name, VMState: v.state,
				Message: fmt.Sprintf("%s is in the VM map of cluster %s but is %s", v.label(), name, v.state)})
		case c.clusterRunning() && v.state == vmStopped:
			c.add(Finding{Kind: KindMappedVMNotRunning, VMID: v.id, VMName: v.name, VMState: v.state,
				Message: fmt.Sprintf("%s is in the VM map of cluster %s but is Stopped while the cluster is Running", v.label(), name)})
		}
	}
}

// compareUnmapped reports VMs named as nodes of this cluster that no map
// holds, once they are past the grace period (an operation may not have
// mapped them yet).
func (c *comparison) compareUnmapped() {
	for _, v := range c.unmapped {
		if !c.pastGrace(v.created) {
			continue
		}
		c.add(Finding{Kind: KindUnmappedVM, VMID: v.id, VMName: v.name, VMState: v.state,
			Message: fmt.Sprintf("%s is named as a %s node of cluster %s but is in no cluster's VM map",
				v.label(), roleWord(v.role), c.in.Cluster.Name)})
	}
}

// compareSize reports a VM map that disagrees with the cluster's size, the
// stale count a failed scale leaves behind, with what only an
// administrator can do about it.
func (c *comparison) compareSize() {
	var workers, controls, unknown, external int64
	for _, v := range c.mapped {
		switch {
		case v.external:
			external++
		case v.etcd:
		case v.role == naming.RoleControl:
			controls++
		case v.role == naming.RoleWorker:
			workers++
		default:
			unknown++
		}
	}
	// A VM not named by CKS rules fills the missing control slots first.
	cl := c.in.Cluster
	workers += max(0, unknown-max(0, int64(cl.ControlNodes)-controls))
	bad := vmmap.Check(vmmap.Cluster{ID: cl.ID, Name: cl.Name, State: cl.State, ControlNodes: int64(cl.ControlNodes),
		Size: int64(cl.Size), EtcdNodes: int64(cl.EtcdNodes), Rows: int64(len(c.mapped)), External: external, Workers: workers})
	if bad == nil {
		return
	}
	c.add(Finding{Kind: KindVMMapInconsistent, Message: fmt.Sprintf("cluster %s: %s", cl.Name, bad.Explanation())})
}

func roleWord(r naming.Role) string {
	if r == "" {
		return "cluster"
	}
	return string(r)
}
