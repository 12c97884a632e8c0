package clusterview

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// The rule records of a cluster as rules.Rule values. CloudStack lists a
// rule it is revoking until its job has removed it (state Revoke, or
// Deleting for a load balancer rule), and a network ACL item likewise; such
// a rule no longer counts for anything, so no reading keeps it.

// inForce converts the listed records that are in force or about to be,
// in the order listed; state is a record's state.
func inForce[R, V any](list []R, state func(R) string, convert func(R) V) []V {
	var out []V
	for _, r := range list {
		if s := state(r); !strings.EqualFold(s, "Revoke") && !strings.EqualFold(s, "Deleting") {
			out = append(out, convert(r))
		}
	}
	return out
}

// FirewallRules converts listed firewall rules.
func FirewallRules(list []cloudstack.FirewallRule) []rules.Rule {
	return inForce(list, func(fw cloudstack.FirewallRule) string { return fw.State }, func(fw cloudstack.FirewallRule) rules.Rule {
		return rules.Rule{Listed: fw.Listed, ID: fw.ID, Kind: rules.KindFirewall, Protocol: fw.Protocol, StartPort: fw.StartPort,
			EndPort: fw.EndPort, CIDRs: fw.CIDRList, IPAddressID: fw.IPAddressID, NetworkID: fw.NetworkID}
	})
}

// ForwardRules converts listed port forwards.
func ForwardRules(list []cloudstack.PortForwardingRule) []rules.Rule {
	return inForce(list, func(pf cloudstack.PortForwardingRule) string { return pf.State }, func(pf cloudstack.PortForwardingRule) rules.Rule {
		return rules.Rule{ID: pf.ID, Kind: rules.KindPortForward, Protocol: pf.Protocol, StartPort: pf.PublicPort,
			EndPort: pf.PublicEndPort, PrivatePort: pf.PrivatePort, PrivateEndPort: pf.PrivateEndPort,
			VMID: pf.VirtualMachineID, CIDRs: pf.CIDRList, IPAddressID: pf.IPAddressID, NetworkID: pf.NetworkID}
	})
}

// LoadBalancerRules converts listed load balancer rules: one public port
// to one private port, on the IP CloudStack names publicipid.
func LoadBalancerRules(list []cloudstack.LoadBalancerRule) []rules.Rule {
	return inForce(list, func(lb cloudstack.LoadBalancerRule) string { return lb.State }, func(lb cloudstack.LoadBalancerRule) rules.Rule {
		return rules.Rule{ID: lb.ID, Kind: rules.KindLoadBalancer, Protocol: lb.Protocol, StartPort: lb.PublicPort,
			EndPort: lb.PublicPort, PrivatePort: lb.PrivatePort, PrivateEndPort: lb.PrivatePort,
			IPAddressID: lb.PublicIPID, NetworkID: lb.NetworkID}
	})
}

// RuleRecords are the records a cluster's rules are read from, as listed:
// the firewall and load balancer rules of the public IP CKS keeps the
// cluster's rules on (none off isolated networks and VPC tiers), and the
// port forwards of the cluster's whole network, which the scale's SSH rule
// selector and its forward cleanup look at.
type RuleRecords struct {
	Firewalls     []cloudstack.FirewallRule
	LoadBalancers []cloudstack.LoadBalancerRule
	Forwards      []cloudstack.PortForwardingRule
}

// ClusterRules are a cluster's rules as both engines judge them.
type ClusterRules struct {
	// Layout is the layout they were read for, with the etcd SSH start port
	// the etcd forwards show (rules.DetectEtcdStartPort): the setting is
	// dynamic, so the cluster may have been made with another than the
	// configured one.
	Layout rules.Layout
	// OnIP are the rules on Layout.IPAddressID: the firewall rules, the
	// load balancer rules, then the forwards, each kind in the order
	// CloudStack listed it, which nothing but rules.ArmedEtcdRules relies
	// on.
	OnIP []rules.Rule
	// NetworkForwards are the port forwards of the whole network.
	NetworkForwards []rules.Rule
}

// ReadRules reads the records of the rules of a cluster whose layout is l
// (Layout, with the IP CKS keeps the rules on).
func ReadRules(l rules.Layout, rec RuleRecords) ClusterRules {
	out := ClusterRules{Layout: l, NetworkForwards: ForwardRules(rec.Forwards)}
	out.OnIP = append(FirewallRules(rec.Firewalls), LoadBalancerRules(rec.LoadBalancers)...)
	for _, pf := range out.NetworkForwards {
		if l.IPAddressID != "" && pf.IPAddressID == l.IPAddressID {
			out.OnIP = append(out.OnIP, pf)
		}
	}
	if start, ok := rules.DetectEtcdStartPort(l, out.OnIP); ok {
		out.Layout.EtcdStartPort = start
	}
	return out
}
