package clusterops

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// roleValues is, for each role, the value that all of its VMs (external
// nodes left out) have, e.g. their offering or template; a role whose VMs
// have none, or disagree, is left out, so that no VM's place in the map
// decides.
func roleValues(c *cloudstack.Cluster, value func(cloudstack.ClusterVM) string) map[naming.Role]string {
	roles := clusterview.Roles(c)
	out := map[naming.Role]string{}
	mixed := map[naming.Role]bool{}
	for i, vm := range c.VirtualMachines {
		v := value(vm)
		if v == "" || vm.IsExternalNode {
			continue
		}
		if seen, ok := out[roles[i]]; ok && seen != v {
			mixed[roles[i]] = true
		}
		out[roles[i]] = v
	}
	for role := range mixed {
		delete(out, role)
	}
	return out
}
