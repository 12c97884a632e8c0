package clusterview

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// NetworkKind tells where CKS keeps a cluster's SSH rules, as
// KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort decides
// where to reach the cluster: a VPC tier (forwards on the cluster's own VPC
// IP), an isolated network (firewall rules and forwards on the source NAT
// IP), or a directly accessed network (Shared, or ROUTED: isolated without
// source NAT) that has no rules at all. n is the cluster's network as
// listNetworks returns it, nil when the caller cannot see it: then only the
// cluster's own fields tell, and a source NAT address (ipaddressid, which
// createKubernetesClusterResponse sets only then) means an isolated
// network.
func NetworkKind(c *cloudstack.Cluster, n *cloudstack.Network) rules.NetworkKind {
	switch {
	case c.NetworkID == "":
		return rules.NetworkDirect
	case n == nil && c.IPAddressID != "":
		return rules.NetworkIsolated
	case n == nil:
		return rules.NetworkDirect
	case n.VPCID != "":
		return rules.NetworkVPC
	case strings.EqualFold(n.Type, "Shared"):
		return rules.NetworkDirect
	case c.IPAddressID == "" && c.Endpoint != "" && strings.EqualFold(n.Type, "Isolated"):
		// A ROUTED isolated network has no source NAT IP: CKS reaches the
		// control node directly.
		return rules.NetworkDirect
	default:
		return rules.NetworkIsolated
	}
}

// FindNetwork is the network with the id in a listNetworks answer, or nil.
func FindNetwork(list []cloudstack.Network, id string) *cloudstack.Network {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// Tier is what a VPC tier decides of the rules of the clusters on it.
type Tier struct {
	ID, Name, VPCID string
	// ACLID is the tier's network ACL list, "" when it names none.
	ACLID string
	// API is how CKS opens the API of a cluster there, which the conserve
	// mode of the tier's network offering decides (rules.VPCAPIPathOf).
	API rules.VPCAPIPath
}

// TierOf reads a VPC tier as listNetworks returns it.
func TierOf(n *cloudstack.Network) Tier {
	return Tier{ID: n.ID, Name: n.Name, VPCID: n.VPCID, ACLID: n.ACLID, API: rules.VPCAPIPathOf(n.ConserveMode)}
}

// SourceNATAddress finds the source NAT IP in a listPublicIPAddresses
// answer: its id and address.
func SourceNATAddress(ips []cloudstack.PublicIPAddress) (id, address string, ok bool) {
	for _, p := range ips {
		if p.IsSourceNat {
			return p.ID, p.IPAddress, true
		}
	}
	return "", "", false
}

// AddressID finds the id of the public IP with the address in a
// listPublicIPAddresses answer.
func AddressID(ips []cloudstack.PublicIPAddress, address string) (string, bool) {
	for _, p := range ips {
		if p.IPAddress == address {
			return p.ID, true
		}
	}
	return "", false
}

// ForwardedAddressID finds the id of a public IP from the port forwards
// that use its address (listPortForwardingRules names both); "" when none
// does.
func ForwardedAddressID(forwards []cloudstack.PortForwardingRule, address string) string {
	if address == "" {
		return ""
	}
	for _, pf := range forwards {
		if pf.IPAddress == address && pf.IPAddressID != "" {
			return pf.IPAddressID
		}
	}
	return ""
}
