package rules

import "fmt"

// Purpose is the reason a rule exists: one of CKS's purposes, or User.
type Purpose string

// Purposes of the rules CKS provisions, and User for everything else.
const (
	PurposeUser Purpose = "User"
	// PurposeNodeSSHRange is the firewall range 2222..2222+C+W-1, which the
	// provider widens to 2222..2222+C+W+X-1 over the forwards of the X
	// external nodes.
	PurposeNodeSSHRange Purpose = "NodeSSHRange"
	// PurposeExternalSSHFirewall is CKS's single-port firewall rule of an
	// external node, right after the node range
	// (KubernetesClusterAddWorker.validateAndSetupNode,
	// KubernetesClusterResourceModifierActionWorker.addFirewallRulesForNodes).
	// It has the exact ports of its forward to port 22, so CloudStack's SSH
	// rule selector matches it (#14159), and it sits where a scale-up
	// rebuilds the node range, which then conflicts with it: the provider
	// replaces these rules with a node range over the external nodes too.
	PurposeExternalSSHFirewall Purpose = "ExternalSSHFirewall"
	// PurposeNodeSSHForward is the forward 2222+i -> 22 of node i.
	PurposeNodeSSHForward Purpose = "NodeSSHForward"
	// PurposeAPIFirewall is the firewall rule for 6443.
	PurposeAPIFirewall Purpose = "APIFirewall"
	// PurposeAPILoadBalancer is the "api-lb" rule 6443 -> 6443.
	PurposeAPILoadBalancer Purpose = "APILoadBalancer"
	// PurposeAPIForward is the VPC forward 6443 -> 6443 to the first control VM.
	PurposeAPIForward Purpose = "APIForward"
	// PurposeEtcdFirewall is CKS's own single-port firewall rule for etcd
	// node j (port 50000+j). It has the exact ports of its forward to port
	// 22, so CloudStack's SSH rule selector matches it (#14159); the
	// provider replaces these rules with PurposeEtcdSSHRange.
	PurposeEtcdFirewall Purpose = "EtcdFirewall"
	// PurposeEtcdSSHRange is the provider's one firewall rule for every etcd
	// node's SSH port, 50000..50000+E-1 (50000..50001 for one etcd node). No
	// forward has its exact ports, so no scale can pick it.
	PurposeEtcdSSHRange Purpose = "EtcdSSHRange"
	// PurposeEtcdForward is the forward 50000+j -> 22 of etcd VM j.
	PurposeEtcdForward Purpose = "EtcdForward"
)

// describe names the purpose in words, for messages.
func (p Purpose) describe() string {
	switch p {
	case PurposeNodeSSHRange:
		return "node SSH range"
	case PurposeExternalSSHFirewall:
		return "external node SSH"
	case PurposeNodeSSHForward:
		return "node SSH"
	case PurposeAPIFirewall, PurposeAPILoadBalancer, PurposeAPIForward:
		return "API"
	case PurposeEtcdFirewall, PurposeEtcdForward:
		return "etcd SSH"
	case PurposeEtcdSSHRange:
		return "etcd SSH range"
	default:
		return "user"
	}
}

// Expectation is one rule CKS owns for a layout.
type Expectation struct {
	Purpose Purpose
	// Index is the node index i over the SSH nodes (forwards, external
	// firewall rules) or the 0-based etcd index j; 0 for single rules.
	Index int
	// VMID is the VM the rule serves: the target of a forward, or the VM
	// whose forward an external or etcd firewall rule opens.
	VMID           string
	Kind           Kind
	Protocol       string
	StartPort      int
	EndPort        int
	PrivatePort    int
	PrivateEndPort int
	CIDRs          []string
	// Optional marks rules that may legitimately be absent or take another
	// form (the API LB versus the VPC API forward, while the network
	// offering's conserve mode, which decides between them, is not known).
	// They are never reported missing.
	Optional bool
	// alternates are other port ranges that fulfil the expectation, tried
	// in order when StartPort..EndPort cannot be created.
	alternates []portSpan
}

// portSpan is a public port range.
type portSpan struct{ start, end int }

// spans are the port ranges that fulfil the expectation, its own first.
func (e Expectation) spans() []portSpan {
	return append([]portSpan{{e.StartPort, e.EndPort}}, e.alternates...)
}

// Rule returns the rule to create for the expectation on the layout's IP.
// Forwards must be created with openfirewall=false: CKS forwards have no
// linked firewall rule, and one would conflict with the node range.
func (e Expectation) Rule(l Layout) Rule {
	r := Rule{
		Kind:           e.Kind,
		Protocol:       e.Protocol,
		StartPort:      e.StartPort,
		EndPort:        e.EndPort,
		PrivatePort:    e.PrivatePort,
		PrivateEndPort: e.PrivateEndPort,
		IPAddressID:    l.IPAddressID,
		NetworkID:      l.NetworkID,
	}
	if e.Kind == KindPortForward {
		r.VMID = e.VMID
	}
	if len(e.CIDRs) > 0 {
		r.CIDRs = append([]string(nil), e.CIDRs...)
	}
	return r
}

// String describes the expectation for messages.
func (e Expectation) String() string {
	switch e.Kind {
	case KindFirewall:
		return fmt.Sprintf("%s firewall %s %s", e.Purpose, e.Protocol, PortRange(e.StartPort, e.EndPort))
	case KindPortForward:
		return fmt.Sprintf("%s forward %s %d -> %d to VM %s", e.Purpose, e.Protocol, e.StartPort, e.PrivatePort, e.VMID)
	default:
		return fmt.Sprintf("%s load balancer %s %d -> %d", e.Purpose, e.Protocol, e.StartPort, e.PrivatePort)
	}
}

// Expected returns the rules the provider keeps for the layout, in the order
// CKS creates them (KubernetesClusterStartWorker.startKubernetesClusterOnCreate
// for isolated networks, setupKubernetesClusterVpcTierRules for VPC tiers):
//
//   - isolated: node SSH firewall range 2222..2222+C+W+X-1 (with SSHCIDRs)
//     over every node's forward, the X external nodes' included, instead of
//     CKS's range 2222..2222+C+W-1 and a single-port rule per external node;
//     API firewall 6443, a forward 2222+i -> 22 per node, the API LB, a
//     forward 50000+j -> 22 per etcd VM j, and ONE etcd SSH firewall range
//     over those forwards' ports (with SSHCIDRs) instead of CKS's
//     single-port etcd rules;
//   - VPC: the API forward, or the API LB when the tier's offering is in
//     conserve mode (both optional when that is not known), the node
//     forwards and the etcd forwards, no firewall rules (CKS's network ACL
//     items are ExpectedACL's);
//   - direct (shared, routed): nothing.
//
// The single-port etcd rules CKS creates (PurposeEtcdFirewall) match
// CloudStack's SSH rule selector through their twin forwards, so the next
// scale can revoke one of them instead of the node range (#14159); the
// merged range has ports no forward has, so no scale, by any client, can
// pick it, whatever the order the server evaluates rules in. The external
// nodes' single-port rules match the selector the same way and, worse, sit
// on the ports a scale-up rebuilds the node range over, so every scale-up
// conflicts with them (the job fails and leaves the cluster in Alert). With
// the node range over them instead, every scale, by any client, revokes
// the range, deletes the forwards up to its end (the external nodes'
// included) and rebuilds CKS's own layout without a conflict; the provider
// widens the range again afterwards.
func Expected(l Layout) []Expectation {
	switch l.Network {
	case NetworkIsolated:
		return expectedIsolated(l)
	case NetworkVPC:
		return expectedVPC(l)
	default:
		return nil
	}
}

func expectedIsolated(l Layout) []Expectation {
	var out []Expectation
	nodes := l.sshNodes()
	if len(nodes) > 0 {
		out = append(out, firewallExpectation(PurposeNodeSSHRange, 0, "", NodeSSHStartPort, NodeSSHStartPort+len(nodes)-1, l.sshCIDRs()))
	}
	if len(nodes) > 0 {
		api := firewallExpectation(PurposeAPIFirewall, 0, "", APIPort, APIPort, l.apiCIDRs())
		out = append(out, api)
	}
	out = append(out, nodeForwards(nodes)...)
	if len(nodes) > 0 {
		lb := apiLoadBalancer()
		lb.Optional = false // CKS always balances the API of an isolated cluster
		out = append(out, lb)
	}
	start := l.etcdStart()
	for j, n := range l.etcdNodes() {
		out = append(out, forwardExpectation(PurposeEtcdForward, j, n.ID, start+j, SSHPort))
	}
	if spans := l.etcdRanges(); len(spans) > 0 {
		e := firewallExpectation(PurposeEtcdSSHRange, 0, "", spans[0].start, spans[0].end, l.sshCIDRs())
		e.alternates = spans[1:]
		out = append(out, e)
	}
	return out
}

// etcdRanges returns the ports the merged etcd SSH firewall rule may take:
// S..S+E-1, or for one etcd node S..S+1 and else S-1..S, because a
// single-port rule would have the exact ports of its forward and match
// CloudStack's selector, and neither two-port range is a forward's.
func (l Layout) etcdRanges() []portSpan {
	e := len(l.etcdNodes())
	if e == 0 {
		return nil
	}
	start := l.etcdStart()
	if e > 1 {
		return []portSpan{{start, start + e - 1}}
	}
	return []portSpan{{start, start + 1}, {start - 1, start}}
}

// isEtcdRange reports whether a rule has the ports of an etcd SSH range.
func (l Layout) isEtcdRange(r Rule) bool {
	for _, s := range l.etcdRanges() {
		if r.StartPort == s.start && r.End() == s.end {
			return true
		}
	}
	return false
}

func expectedVPC(l Layout) []Expectation {
	var out []Expectation
	nodes := l.sshNodes()
	if len(nodes) > 0 {
		api := forwardExpectation(PurposeAPIForward, 0, nodes[0].ID, APIPort, APIPort)
		lb := apiLoadBalancer()
		switch l.VPCAPI {
		case VPCAPIForward:
			out = append(out, api)
		case VPCAPILoadBalancer:
			lb.Optional = false
			out = append(out, lb)
		default:
			api.Optional = true
			out = append(out, api, lb)
		}
	}
	out = append(out, nodeForwards(nodes)...)
	start := l.etcdStart()
	for j, n := range l.etcdNodes() {
		out = append(out, forwardExpectation(PurposeEtcdForward, j, n.ID, start+j, SSHPort))
	}
	return out
}

func nodeForwards(nodes []Node) []Expectation {
	out := make([]Expectation, 0, len(nodes))
	for i, n := range nodes {
		out = append(out, forwardExpectation(PurposeNodeSSHForward, i, n.ID, NodeSSHStartPort+i, SSHPort))
	}
	return out
}

func firewallExpectation(p Purpose, index int, vmID string, start, end int, cidrs []string) Expectation {
	return Expectation{
		Purpose: p, Index: index, VMID: vmID, Kind: KindFirewall, Protocol: ProtocolTCP,
		StartPort: start, EndPort: end, CIDRs: append([]string(nil), cidrs...),
	}
}

func forwardExpectation(p Purpose, index int, vmID string, public, private int) Expectation {
	return Expectation{
		Purpose: p, Index: index, VMID: vmID, Kind: KindPortForward, Protocol: ProtocolTCP,
		StartPort: public, EndPort: public, PrivatePort: private, PrivateEndPort: private,
	}
}

func apiLoadBalancer() Expectation {
	return Expectation{
		Purpose: PurposeAPILoadBalancer, Kind: KindLoadBalancer, Protocol: ProtocolTCP,
		StartPort: APIPort, EndPort: APIPort, PrivatePort: APIPort, PrivateEndPort: APIPort, Optional: true,
	}
}

// PortRange words a port range for messages: "2222-2224", "6443", or
// "(all ports)" for a rule without ports.
func PortRange(start, end int) string {
	switch {
	case start == 0 && end == 0:
		return "(all ports)"
	case end == 0 || end == start:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d-%d", start, end)
}
