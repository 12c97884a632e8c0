package rules

import (
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// Ports and values CKS uses for the rules it provisions.
const (
	// NodeSSHStartPort is the public port of the first node's SSH forward.
	NodeSSHStartPort = 2222
	// SSHPort is the private port every CKS SSH forward targets.
	SSHPort = 22
	// APIPort is the Kubernetes API port, public and private.
	APIPort = 6443
	// DefaultEtcdStartPort is the default of cloud.kubernetes.etcd.node.start.port.
	DefaultEtcdStartPort = 50000
	// ProtocolTCP is the protocol of every CKS rule, as the server stores it.
	ProtocolTCP = "tcp"
	// AnyCIDR is the source CIDR hard-coded in every CKS firewall rule
	// (KubernetesClusterResourceModifierActionWorker.provisionFirewallRules).
	AnyCIDR = "0.0.0.0/0"
)

// Kind is the kind of a network rule on a public IP.
type Kind string

// Rule kinds. CloudStack numbers all three from one id sequence.
const (
	KindFirewall     Kind = "Firewall"
	KindPortForward  Kind = "PortForward"
	KindLoadBalancer Kind = "LoadBalancer"
)

// Rule is one firewall, port forwarding or load balancer rule.
//
// StartPort and EndPort are the public ports (firewall ports; a zero pair is
// a rule without ports, "all ports"). PrivatePort and PrivateEndPort are the
// destination ports of forwards and load balancers. VMID is the target of a
// port forward. CIDRs are the source CIDRs; CKS forwards have none.
type Rule struct {
	// Listed is a firewall rule's place in CloudStack's listing (0 for
	// the first listed). Lists reach the engines sorted by id, so nothing
	// depends on an order the server does not promise; ArmedEtcdRules
	// alone reads Listed, as a hint of age it calibrates before use.
	Listed         int `json:"-"`
	ID             string
	Kind           Kind
	Protocol       string
	StartPort      int
	EndPort        int
	PrivatePort    int
	PrivateEndPort int
	VMID           string
	CIDRs          []string
	IPAddressID    string
	NetworkID      string
}

// NetworkKind is the kind of network a cluster runs on.
type NetworkKind string

// Network kinds, which decide where CKS puts its rules.
const (
	// NetworkIsolated has firewall, forward and LB rules on the source NAT IP.
	NetworkIsolated NetworkKind = "Isolated"
	// NetworkVPC has forwards (and the API LB or forward) on the cluster's VPC IP.
	NetworkVPC NetworkKind = "VPC"
	// NetworkDirect (Shared or Routed) has no CKS rules at all.
	NetworkDirect NetworkKind = "Direct"
)

// Node is one VM of the cluster's VM map.
type Node struct {
	ID       string
	Name     string
	Role     naming.Role
	External bool
}

// Layout is what decides the rules CKS owns: the network kind and the VM map.
type Layout struct {
	Network NetworkKind
	// Nodes is the VM map as listKubernetesClusters lists it, in no
	// guaranteed order; roles come from isetcdnode and the names (the
	// position only for VMs CKS did not name).
	Nodes []Node
	// EtcdStartPort is cloud.kubernetes.etcd.node.start.port; 0 means 50000.
	// Read it from the etcd forwards (DetectEtcdStartPort): the setting is
	// dynamic, so the configured value may not be the one the cluster got.
	EtcdStartPort int
	// SourceCIDRs are the source CIDRs the provider gives the SSH and API
	// firewall rules it keeps, and those it gave them before.
	SourceCIDRs
	// IPAddressID and NetworkID are copied into the rules a plan creates.
	IPAddressID string
	NetworkID   string
	// VPCAPI is how CKS opened the API of a cluster on a VPC tier, which
	// the tier's network offering decides; "" when it is not known, and
	// then neither way is required.
	VPCAPI VPCAPIPath
}

// SourceCIDRs are the source CIDRs the provider gives the firewall rules
// it keeps on a cluster's IP, and the lists it gave them before: what a
// configuration asks of the rules (the engine's intent) and what a layout
// decides ownership by.
type SourceCIDRs struct {
	// SSHCIDRs are the source CIDRs of the SSH firewall rules the provider
	// keeps (the node SSH range and the merged etcd SSH range); empty means
	// 0.0.0.0/0, which is what CKS hard-codes.
	SSHCIDRs []string
	// FormerSSHCIDRs are CIDR lists the provider used before the current
	// SSHCIDRs; SSH firewall rules with them are still CKS's, to be
	// re-created with SSHCIDRs.
	FormerSSHCIDRs [][]string
	// APICIDRs are the source CIDRs of the API firewall rule (6443) the
	// provider keeps; empty means 0.0.0.0/0, as CKS makes it, and then
	// the API rule is left as it is, unless FormerAPICIDRs says the provider
	// narrowed it before (then it is opened again).
	APICIDRs []string
	// FormerAPICIDRs are CIDR lists the provider gave the API rule before.
	FormerAPICIDRs [][]string
}

// VPCAPIPath is how CKS opens the API of a cluster on a VPC tier
// (KubernetesClusterResourceModifierActionWorker.setupKubernetesClusterVpcTierRules).
type VPCAPIPath string

// The API paths of a VPC tier cluster.
const (
	// VPCAPIForward is a forward 6443 -> 6443 to the first control VM: the
	// tier's network offering is not in conserve mode.
	VPCAPIForward VPCAPIPath = "forward"
	// VPCAPILoadBalancer is the api-lb load balancer over the control VMs:
	// the offering is in conserve mode.
	VPCAPILoadBalancer VPCAPIPath = "load_balancer"
)

// VPCAPIPathOf is the API path CKS gives a cluster on a tier whose network
// offering is, or is not, in conserve mode.
func VPCAPIPathOf(conserveMode bool) VPCAPIPath {
	if conserveMode {
		return VPCAPILoadBalancer
	}
	return VPCAPIForward
}

func (l Layout) etcdStart() int {
	if l.EtcdStartPort > 0 {
		return l.EtcdStartPort
	}
	return DefaultEtcdStartPort
}

// sshNodes returns the nodes that get a 2222+i forward, in the order CKS
// gives the ports when it creates them: control nodes, workers, then the
// external ones, each in map order. Which port serves which node is read
// from the forwards (matchForwards); this order only says which port a
// missing forward gets first.
func (l Layout) sshNodes() []Node {
	var controls, workers, external []Node
	for _, n := range l.Nodes {
		switch {
		case n.Role == naming.RoleEtcd:
		case n.External:
			external = append(external, n)
		case n.Role == naming.RoleControl:
			controls = append(controls, n)
		default:
			workers = append(workers, n)
		}
	}
	return append(append(controls, workers...), external...)
}

// InternalCount is C+W, the size of CKS's own node SSH firewall range
// (the provider's range covers the external nodes too: len(sshNodes())).
func (l Layout) InternalCount() int {
	n := 0
	for _, node := range l.Nodes {
		if node.Role != naming.RoleEtcd && !node.External {
			n++
		}
	}
	return n
}

func (l Layout) etcdNodes() []Node {
	var out []Node
	for _, n := range l.Nodes {
		if n.Role == naming.RoleEtcd {
			out = append(out, n)
		}
	}
	return out
}

// nodePortLimit is the first port above any possible node SSH port: the
// range can never reach the API port or the etcd ports.
func (l Layout) nodePortLimit() int {
	return min(APIPort, l.etcdStart())
}

func isTCP(r Rule) bool {
	return strings.EqualFold(strings.TrimSpace(r.Protocol), ProtocolTCP)
}

// PortlessTCP tells whether a rule is a TCP firewall rule without ports,
// which the scale's SSH rule selector of some versions throws on
// (Server.PortlessRuleBreaksScale).
func PortlessTCP(r Rule) bool {
	return r.Kind == KindFirewall && r.StartPort <= 0 && isTCP(r)
}

// cidrs returns the rule's CIDRs without blanks.
func cidrs(r Rule) []string {
	var out []string
	for _, c := range r.CIDRs {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func isAnyCIDROnly(r Rule) bool {
	c := cidrs(r)
	return len(c) == 1 && c[0] == AnyCIDR
}

// NarrowsSSH tells whether the layout asks for SSH source CIDRs narrower
// than the open rules CloudStack makes.
func (l Layout) NarrowsSSH() bool { return narrows(l.sshCIDRs()) }

// NarrowsAPI tells whether the layout asks for API source CIDRs narrower
// than the open rule CloudStack makes.
func (l Layout) NarrowsAPI() bool { return narrows(l.apiCIDRs()) }

// keepsAPIRule tells whether the provider keeps the API firewall rule:
// when it narrows it, or narrowed it before and must open it again.
func (l Layout) keepsAPIRule() bool { return l.NarrowsAPI() || len(l.FormerAPICIDRs) > 0 }

func narrows(c []string) bool { return len(c) != 1 || c[0] != AnyCIDR }

// sshCIDRs returns the CIDRs the provider gives its SSH firewall rules.
func (l Layout) sshCIDRs() []string { return effectiveCIDRs(l.SSHCIDRs) }

// apiCIDRs returns the CIDRs the provider gives the API firewall rule.
func (l Layout) apiCIDRs() []string { return effectiveCIDRs(l.APICIDRs) }

func effectiveCIDRs(list []string) []string {
	if out := NormalCIDRs(list); len(out) > 0 {
		return out
	}
	return []string{AnyCIDR}
}

// ownsSSHCIDRs reports whether an SSH firewall rule with these CIDRs can be
// CKS's: the CIDRs CKS hard-codes, the provider's, or ones it used before.
func (l Layout) ownsSSHCIDRs(r Rule) bool { return ownsCIDRs(r, l.sshCIDRs(), l.FormerSSHCIDRs) }

// ownsAPICIDRs is ownsSSHCIDRs for the API firewall rule.
func (l Layout) ownsAPICIDRs(r Rule) bool { return ownsCIDRs(r, l.apiCIDRs(), l.FormerAPICIDRs) }

func ownsCIDRs(r Rule, current []string, former [][]string) bool {
	got := NormalCIDRs(cidrs(r))
	if slices.Equal(got, []string{AnyCIDR}) || slices.Equal(got, current) {
		return true
	}
	for _, f := range former {
		if slices.Equal(got, NormalCIDRs(f)) {
			return true
		}
	}
	return false
}

// NormalCIDRs trims, drops blanks and duplicates, and sorts, so that CIDR
// lists compare as sets.
func NormalCIDRs(in []string) []string {
	var out []string
	for _, c := range in {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// singlePublicPort returns the public port of a rule that covers exactly one.
func singlePublicPort(r Rule) (int, bool) {
	if r.StartPort <= 0 || (r.EndPort != 0 && r.EndPort != r.StartPort) {
		return 0, false
	}
	return r.StartPort, true
}

// privateSinglePort returns the private port of a rule that covers exactly
// one, else 0.
func privateSinglePort(r Rule) int {
	if r.PrivatePort <= 0 || (r.PrivateEndPort != 0 && r.PrivateEndPort != r.PrivatePort) {
		return 0
	}
	return r.PrivatePort
}

// End is the rule's last public port: EndPort, or StartPort when EndPort
// is unset (CloudStack lists a single-port rule either way).
func (r Rule) End() int {
	if r.EndPort == 0 {
		return r.StartPort
	}
	return r.EndPort
}

// PrivateEnd is the rule's last private port: PrivateEndPort, or
// PrivatePort when it is unset.
func (r Rule) PrivateEnd() int {
	if r.PrivateEndPort == 0 {
		return r.PrivatePort
	}
	return r.PrivateEndPort
}
