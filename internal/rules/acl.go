package rules

import (
	"fmt"
	"slices"
	"strings"
)

// On a VPC tier CKS opens the API, SSH and etcd with items of the tier's
// network ACL list, not with firewall rules
// (KubernetesClusterResourceModifierActionWorker.createVpcTierAclRules,
// provisionVpcTierAllowPortACLRule; KubernetesClusterStartWorker.
// setupKubernetesEtcdNetworkRules): unless the list is default_allow, an
// Allow Ingress item "TCP" for 6443, one for 22 and one per etcd VM for
// 2379, none with a CIDR list (CloudStack then gives 0.0.0.0/0 and ::/0,
// CreateNetworkACLCmd.getSourceCidrList), each moved to the top of the
// list. A list belongs to no tier: every tier that names it gets its items,
// so several clusters may share one. No scale touches the items; the
// destroy of any cluster on the list revokes every Allow item whose
// protocol is exactly "TCP" on exactly 6443 or 22, whoever made it
// (removeVpcTierAllowPortACLRule), and leaves the 2379 items.

// EtcdClientPort is ETCD_NODE_CLIENT_REQUEST_PORT, which CKS opens on a VPC
// tier's list for its etcd nodes.
const EtcdClientPort = 2379

// ACLProtocolCKS is the protocol CKS gives its ACL items as it sends it:
// the server keeps an item's protocol as sent, and the destroy matches this
// one with String.equals, so an item "tcp" outlives every destroy.
const ACLProtocolCKS = "TCP"

// AnyIPv6CIDR is the IPv6 half of the CIDRs CloudStack gives an ACL item
// created without a CIDR list.
const AnyIPv6CIDR = "::/0"

// ACL item traffic types and actions.
const (
	ACLIngress = "Ingress"
	ACLEgress  = "Egress"
	ACLAllow   = "Allow"
	ACLDeny    = "Deny"
)

// Purposes of CKS's ACL items.
const (
	// PurposeAPIACL is the item that lets TCP 6443 into the tier.
	PurposeAPIACL Purpose = "APIACL"
	// PurposeSSHACL is the item that lets TCP 22 into the tier, which the
	// node and etcd SSH forwards need.
	PurposeSSHACL Purpose = "SSHACL"
	// PurposeEtcdACL is the item that lets TCP 2379 into the tier.
	PurposeEtcdACL Purpose = "EtcdACL"
)

// ACLItem is one item of a network ACL list.
type ACLItem struct {
	ID     string
	Number int
	// Protocol is as its creator sent it.
	Protocol string
	// StartPort and EndPort are 0 for an item without ports.
	StartPort   int
	EndPort     int
	CIDRs       []string
	TrafficType string
	Action      string
	Reason      string
}

// TierACL is the network ACL list of a VPC tier, with its items.
type TierACL struct {
	ID   string
	Name string
	// DefaultAllow is the global default_allow list, to which CKS adds no
	// item and from which it removes none.
	DefaultAllow bool
	Items        []ACLItem
}

// ACLExpectation is an item CKS keeps on the tier's list.
type ACLExpectation struct {
	Purpose Purpose
	Port    int
}

// String describes the expectation for messages.
func (e ACLExpectation) String() string {
	return fmt.Sprintf("network ACL item that lets TCP %d in", e.Port)
}

// Item returns the item to create for the expectation, as CKS creates it:
// "TCP", the one port, Allow, Ingress and no CIDR list, so that CloudStack
// gives it 0.0.0.0/0 and ::/0 and CKS's destroy takes it as its own.
func (e ACLExpectation) Item() ACLItem {
	return ACLItem{Protocol: ACLProtocolCKS, StartPort: e.Port, EndPort: e.Port, TrafficType: ACLIngress, Action: ACLAllow}
}

// ExpectedACL returns the items CKS keeps on the list of a VPC tier cluster
// for the layout: none on default_allow (or off VPC tiers); else the API
// (6443), SSH (22) and, with etcd nodes, 2379. CKS makes one 2379 item per
// etcd VM, all alike; one serves them all.
func ExpectedACL(l Layout, acl TierACL) []ACLExpectation {
	if l.Network != NetworkVPC || acl.ID == "" || acl.DefaultAllow {
		return nil
	}
	out := []ACLExpectation{{PurposeAPIACL, APIPort}, {PurposeSSHACL, SSHPort}}
	if len(l.etcdNodes()) > 0 {
		out = append(out, ACLExpectation{PurposeEtcdACL, EtcdClientPort})
	}
	return out
}

// IsCKSACLItem reports whether an item is one CKS makes for a port: Allow,
// Ingress, TCP (any case), exactly that port, and open to everyone
// (0.0.0.0/0, with or without ::/0). Any other item is the user's: an item
// narrowed to some CIDRs, for instance, serves those CIDRs, not CloudStack's
// management servers.
func IsCKSACLItem(it ACLItem, port int) bool {
	if !strings.EqualFold(it.Action, ACLAllow) || !strings.EqualFold(it.TrafficType, ACLIngress) ||
		!strings.EqualFold(strings.TrimSpace(it.Protocol), ProtocolTCP) || it.StartPort != port || it.End() != port {
		return false
	}
	c := NormalCIDRs(it.CIDRs)
	return slices.Equal(c, []string{AnyCIDR}) || slices.Equal(c, NormalCIDRs([]string{AnyCIDR, AnyIPv6CIDR}))
}

// End is the item's last port: EndPort, or StartPort when it is unset.
func (it ACLItem) End() int {
	if it.EndPort == 0 {
		return it.StartPort
	}
	return it.EndPort
}

// ACLMatch pairs an expectation with an item that fulfils it.
type ACLMatch struct {
	Expectation ACLExpectation
	Item        ACLItem
}

// ACLClassification compares a tier's list with ExpectedACL.
type ACLClassification struct {
	// Matched pairs each fulfilled expectation with the item that lets its
	// port in; the other items CKS made for the same port (one per cluster
	// on the list, one per etcd VM) are not stale, only spare.
	Matched []ACLMatch
	// Missing are the expectations nothing on the list lets in, in
	// ExpectedACL order.
	Missing []ACLExpectation
}

// InSync reports whether every expected item is there.
func (c ACLClassification) InSync() bool { return len(c.Missing) == 0 }

// ClassifyACL compares the tier's list with what CKS keeps for the layout,
// whatever order the items were listed in. An expectation is met when the
// list lets its port in from somewhere (LetsIn): CKS's own item, or an item
// of the user's that narrows it, which the provider leaves alone. Who must
// get in (CloudStack's management servers among them) the API does not
// tell.
func ClassifyACL(l Layout, acl TierACL) ACLClassification {
	var c ACLClassification
	for _, e := range ExpectedACL(l, acl) {
		if it, ok := LetsIn(acl.Items, e.Port); ok {
			c.Matched = append(c.Matched, ACLMatch{Expectation: e, Item: it})
			continue
		}
		c.Missing = append(c.Missing, e)
	}
	return c
}

// LetsIn tells whether a list's items let TCP traffic in to a port from
// some source, as the router evaluates them: the Ingress items that cover
// TCP on that port, in number order; the first Allow lets it in; a Deny from
// everyone (0.0.0.0/0) before any Allow keeps it out; a Deny from some
// CIDRs keeps out only those. It returns the item that lets it in.
func LetsIn(items []ACLItem, port int) (ACLItem, bool) {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b ACLItem) int {
		if a.Number != b.Number {
			return a.Number - b.Number
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, it := range sorted {
		if !strings.EqualFold(it.TrafficType, ACLIngress) || !coversTCPPort(it, port) {
			continue
		}
		if strings.EqualFold(it.Action, ACLAllow) {
			return it, true
		}
		if slices.Contains(NormalCIDRs(it.CIDRs), AnyCIDR) {
			return ACLItem{}, false
		}
	}
	return ACLItem{}, false
}

// coversTCPPort tells whether an item's protocol and ports cover TCP on a
// port: tcp (any case), all or protocol number 6, without ports or with a
// range that holds it.
func coversTCPPort(it ACLItem, port int) bool {
	p := strings.TrimSpace(it.Protocol)
	if !strings.EqualFold(p, ProtocolTCP) && !strings.EqualFold(p, "all") && p != "6" {
		return false
	}
	return it.StartPort == 0 || (it.StartPort <= port && port <= it.End())
}

// DestroyRevokes returns the items of the list that CloudStack's destroy of
// any cluster on it revokes: every Allow item whose protocol is exactly
// "TCP" and whose ports are exactly 6443 or exactly 22, whatever its CIDRs
// or traffic type (removeVpcTierAllowPortACLRule). Nothing on default_allow.
func DestroyRevokes(acl TierACL) []ACLItem {
	if acl.DefaultAllow {
		return nil
	}
	var out []ACLItem
	for _, it := range acl.Items {
		if it.Protocol == ACLProtocolCKS && it.Action == ACLAllow && it.StartPort != 0 && it.StartPort == it.End() &&
			(it.StartPort == APIPort || it.StartPort == SSHPort) {
			out = append(out, it)
		}
	}
	return out
}

// DescribeACLItem words an item for messages.
func DescribeACLItem(it ACLItem) string {
	ports := "all ports"
	if it.StartPort > 0 {
		ports = PortRange(it.StartPort, it.End())
	}
	what := fmt.Sprintf("%s %s %q %s from %s", it.Action, it.TrafficType, it.Protocol, ports, CIDRText(NormalCIDRs(it.CIDRs)))
	if it.Reason != "" {
		what += fmt.Sprintf(" (%q)", it.Reason)
	}
	return fmt.Sprintf("network ACL item %s (number %d: %s)", it.ID, it.Number, what)
}
