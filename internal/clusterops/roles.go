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
func roleValues(c *cloudstack.Cluster, value func(clusterview.MapVM) string) map[naming.Role]string {
	out := map[naming.Role]string{}
	mixed := map[naming.Role]bool{}
	for _, vm := range clusterview.MapVMs(c) {
		v := value(vm)
		if v == "" || vm.External {
			continue
		}
		if seen, ok := out[vm.Role]; ok && seen != v {
			mixed[vm.Role] = true
		}
		out[vm.Role] = v
	}
	for role := range mixed {
		delete(out, role)
	}
	return out
}
