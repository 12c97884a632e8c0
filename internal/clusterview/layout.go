package clusterview

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// LayoutNodes is the VM map as the rule planner sees it: each VM with the
// role Roles tells, in the order the API listed the map.
func LayoutNodes(c *cloudstack.Cluster) []rules.Node {
	roles := Roles(c)
	out := make([]rules.Node, 0, len(c.VirtualMachines))
	for i, vm := range c.VirtualMachines {
		out = append(out, rules.Node{ID: vm.ID, Name: vm.Name, Role: roles[i], External: vm.IsExternalNode})
	}
	return out
}

// LoadBalancerRule converts a listed load balancer rule.
func LoadBalancerRule(lb cloudstack.LoadBalancerRule) rules.Rule {
	return rules.Rule{ID: lb.ID, Kind: rules.KindLoadBalancer, Protocol: lb.Protocol, StartPort: lb.PublicPort,
		EndPort: lb.PublicPort, PrivatePort: lb.PrivatePort, PrivateEndPort: lb.PrivatePort,
		IPAddressID: lb.PublicIPID, NetworkID: lb.NetworkID}
}
