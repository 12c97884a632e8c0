package drift

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
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
		case c.clusterRunning() && strings.EqualFold(v.state, stateStopped):
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

// compareSize reports a size that differs from the map's worker count, the
// stale count a failed scale leaves behind.
func (c *comparison) compareSize() {
	workers, controls, unknown := 0, 0, 0
	for _, v := range c.mapped {
		switch {
		case v.etcd || v.external:
		case v.role == naming.RoleControl:
			controls++
		case v.role == naming.RoleWorker:
			workers++
		default:
			unknown++
		}
	}
	// A VM not named by CKS rules fills the missing control slots first.
	workers += max(0, unknown-max(0, c.in.Cluster.ControlNodes-controls))
	if workers == c.in.Cluster.Size {
		return
	}
	c.add(Finding{Kind: KindSizeMismatch,
		Message: fmt.Sprintf("cluster %s has size %d but its VM map has %d worker %s",
			c.in.Cluster.Name, c.in.Cluster.Size, workers, plural(workers, "VM", "VMs"))})
}

func roleWord(r naming.Role) string {
	if r == "" {
		return "cluster"
	}
	return string(r)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
