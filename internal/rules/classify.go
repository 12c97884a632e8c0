package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// Status tells how a rule relates to the expected set.
type Status string

// Rule statuses.
const (
	// StatusMatched is a CKS rule that is exactly one expected rule.
	StatusMatched Status = "matched"
	// StatusStale is a CKS rule that no longer fits the VM map.
	StatusStale Status = "stale"
	// StatusUser is a rule CKS does not own.
	StatusUser Status = "user"
)

// ClassifiedRule is one existing rule with its owner and status.
type ClassifiedRule struct {
	Rule    Rule
	Purpose Purpose
	Status  Status
	// Index is the node or etcd index the rule serves, -1 when none.
	Index int
	// Reason explains a stale rule, or why a rule near CKS's ports is the user's.
	Reason string
}

// Owned reports whether CKS owns the rule.
func (c ClassifiedRule) Owned() bool { return c.Purpose != PurposeUser }

// Match pairs an expectation with the rule that fulfils it.
type Match struct {
	Expectation Expectation
	Rule        Rule
}

// Classification is the result of comparing existing rules with Expected.
type Classification struct {
	// Rules holds every input rule, in input order.
	Rules []ClassifiedRule
	// Matched lists the expectations fulfilled by a rule, in Expected order.
	Matched []Match
	// Missing lists the required expectations no rule fulfils, in Expected
	// order. Optional expectations are never missing.
	Missing []Expectation
	// Stale lists the CKS rules that fit no expectation, in input order.
	Stale []ClassifiedRule
}

// Lookup returns the classification of the rule with the given id.
func (c Classification) Lookup(id string) (ClassifiedRule, bool) {
	if id == "" {
		return ClassifiedRule{}, false
	}
	for _, r := range c.Rules {
		if r.Rule.ID == id {
			return r, true
		}
	}
	return ClassifiedRule{}, false
}

// Classify gives every rule on the cluster's IP a purpose (or User) and
// compares the CKS rules with Expected(l).
//
// Ownership is strict, so that plans never touch a user rule: a firewall
// rule is CKS's only if it is TCP from exactly 0.0.0.0/0 on CKS ports (the
// node range starts at 2222 and ends below the API and etcd ports); a
// forward is CKS's only if it is TCP without source CIDRs, one public port to
// private port 22 of a cluster VM of the right role (a node VM for
// 2222.., an etcd VM for 50000..). Anything else, such as a forward in the
// node range to another VM or to a port other than 22, is the user's.
func Classify(l Layout, rules []Rule) Classification {
	expected := Expected(l)
	vms := newClusterVMs(l)
	idx := newExpectationIndex(expected, vms)

	vms.externalPorts = externalForwardPorts(l, vms, rules)
	c := Classification{Rules: make([]ClassifiedRule, 0, len(rules))}
	for _, r := range rules {
		c.Rules = append(c.Rules, identify(l, vms, r))
	}
	matchForwards(vms, idx, c.Rules)
	for i := range c.Rules {
		cr := &c.Rules[i]
		if cr.Owned() && cr.Status == "" {
			idx.settle(cr)
		}
		if cr.Status == StatusStale {
			c.Stale = append(c.Stale, *cr)
		}
	}
	for i, e := range expected {
		if rule, ok := idx.matched[i]; ok {
			c.Matched = append(c.Matched, Match{Expectation: e, Rule: rule})
		} else if !e.Optional {
			c.Missing = append(c.Missing, e)
		}
	}
	return c
}

// ForwardPort returns the public port of the SSH forward that serves the
// VM, as matched.
func (c Classification) ForwardPort(vmID string) (int, bool) {
	for _, m := range c.Matched {
		if m.Rule.Kind == KindPortForward && m.Rule.VMID == vmID &&
			(m.Expectation.Purpose == PurposeNodeSSHForward || m.Expectation.Purpose == PurposeEtcdForward) {
			return m.Rule.StartPort, true
		}
	}
	return 0, false
}

func isTaken(ports map[int]string, port int) bool {
	_, ok := ports[port]
	return ok
}

// matchForwards pairs the node and etcd SSH forwards with the VMs they
// serve, whatever their order: any port of the node range may serve any
// node VM and any etcd port any etcd VM, one forward each, because the
// server gives the ports in the order of its own VM map query, which the
// API does not guarantee to repeat. The one fixed port is 2222, which must
// reach a control node: CKS reaches the cluster through it. Candidates are
// taken in port order, so the result does not depend on the list order.
func matchForwards(vms clusterVMs, idx *expectationIndex, crs []ClassifiedRule) {
	var cands []int
	for i, cr := range crs {
		if cr.Purpose == PurposeNodeSSHForward || cr.Purpose == PurposeEtcdForward {
			cands = append(cands, i)
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int {
		ra, rb := crs[a].Rule, crs[b].Rule
		if ra.StartPort != rb.StartPort {
			return ra.StartPort - rb.StartPort
		}
		return strings.Compare(ra.ID, rb.ID)
	})
	portTaken := map[int]string{}
	settle := func(cr *ClassifiedRule) {
		r := cr.Rule
		e, ok := idx.forwardOf(cr.Purpose, r.VMID)
		switch {
		case !ok || cr.Index >= idx.forwardSlots(cr.Purpose):
			cr.Status, cr.Reason = StatusStale, idx.unexpectedReason(*cr)
		case isTaken(portTaken, r.StartPort):
			cr.Status, cr.Reason = StatusStale, fmt.Sprintf("duplicate of rule %s on port %d", portTaken[r.StartPort], r.StartPort)
		case idx.taken(e):
			cr.Status, cr.Reason = StatusStale, fmt.Sprintf("VM %s has another SSH forward, rule %s", vms.describe(r.VMID), idx.matched[e].ID)
		default:
			idx.matched[e] = r
			portTaken[r.StartPort] = r.ID
			cr.Status = StatusMatched
		}
	}
	// 2222 first, to a control node; then every other port.
	for _, i := range cands {
		cr := &crs[i]
		if cr.Purpose == PurposeNodeSSHForward && cr.Rule.StartPort == NodeSSHStartPort && vms.control[cr.Rule.VMID] {
			settle(cr)
		}
	}
	for _, i := range cands {
		cr := &crs[i]
		switch {
		case cr.Status != "":
		case cr.Purpose == PurposeNodeSSHForward && cr.Rule.StartPort == NodeSSHStartPort:
			cr.Status, cr.Reason = StatusStale, fmt.Sprintf("port 2222 forwards to VM %s, which is not a control node: "+
				"CloudStack reaches the cluster's control node through 2222", vms.describe(cr.Rule.VMID))
		default:
			settle(cr)
		}
	}
	if isTaken(portTaken, NodeSSHStartPort) || len(vms.control) == 0 {
		return
	}
	// Nothing reaches a control node through 2222: the control node's
	// forward elsewhere has to move there.
	for _, i := range cands {
		cr := &crs[i]
		if cr.Purpose == PurposeNodeSSHForward && cr.Status == StatusMatched && vms.control[cr.Rule.VMID] {
			e, _ := idx.forwardOf(cr.Purpose, cr.Rule.VMID)
			delete(idx.matched, e)
			cr.Status, cr.Reason = StatusStale, fmt.Sprintf("the control node's forward must be on port 2222, "+
				"through which CloudStack reaches the cluster, not %d", cr.Rule.StartPort)
			return
		}
	}
}

// clusterVMs indexes the VM map by id.
type clusterVMs struct {
	sshIndex  map[string]int // SSH node index i of non-etcd VMs
	etcdIndex map[string]int // 0-based etcd index j
	control   map[string]bool
	external  map[string]bool
	names     map[string]string
	// externalPorts are the public ports of the SSH forwards to external
	// nodes in the node port region.
	externalPorts map[int]bool
}

// externalForwardPorts returns the public ports of the TCP forwards to port
// 22 of external nodes, in the node port region: CKS gives each external
// node a single-port firewall rule with its forward's port, wherever the
// forward landed (a scale-down rebuilds them in map order, and CKS's
// cleanup leaves the older ones).
func externalForwardPorts(l Layout, vms clusterVMs, rules []Rule) map[int]bool {
	out := map[int]bool{}
	for _, r := range rules {
		public, single := singlePublicPort(r)
		if r.Kind == KindPortForward && single && isTCP(r) && vms.external[r.VMID] && privateSinglePort(r) == SSHPort &&
			public >= NodeSSHStartPort && public < l.nodePortLimit() {
			out[public] = true
		}
	}
	return out
}

func newClusterVMs(l Layout) clusterVMs {
	v := clusterVMs{sshIndex: map[string]int{}, etcdIndex: map[string]int{}, control: map[string]bool{},
		external: map[string]bool{}, names: map[string]string{}}
	for i, n := range l.sshNodes() {
		v.sshIndex[n.ID] = i
		if n.Role == naming.RoleControl {
			v.control[n.ID] = true
		}
		if n.External {
			v.external[n.ID] = true
		}
	}
	for j, n := range l.etcdNodes() {
		v.etcdIndex[n.ID] = j
	}
	for _, n := range l.Nodes {
		v.names[n.ID] = n.Name
	}
	return v
}

func (v clusterVMs) describe(id string) string {
	if name := v.names[id]; name != "" {
		return fmt.Sprintf("%s (%s)", id, name)
	}
	return id
}

// identify decides the owner and purpose of one rule, before it is compared
// with the expectations.
func identify(l Layout, vms clusterVMs, r Rule) ClassifiedRule {
	user := func(reason string) ClassifiedRule {
		return ClassifiedRule{Rule: r, Purpose: PurposeUser, Status: StatusUser, Index: -1, Reason: reason}
	}
	owned := func(p Purpose, index int) ClassifiedRule {
		return ClassifiedRule{Rule: r, Purpose: p, Index: index}
	}
	if l.Network != NetworkIsolated && l.Network != NetworkVPC {
		return user("CKS keeps no rules on this network")
	}
	if !isTCP(r) {
		return user("")
	}
	switch r.Kind {
	case KindFirewall:
		return identifyFirewall(l, vms, r, owned, user)
	case KindPortForward:
		return identifyForward(l, vms, r, owned, user)
	case KindLoadBalancer:
		if port, ok := singlePublicPort(r); ok && port == APIPort && r.PrivatePort == APIPort {
			return owned(PurposeAPILoadBalancer, 0)
		}
	}
	return user("")
}

func identifyFirewall(l Layout, vms clusterVMs, r Rule, owned func(Purpose, int) ClassifiedRule, user func(string) ClassifiedRule) ClassifiedRule {
	if l.Network != NetworkIsolated {
		return user("CKS keeps no firewall rules on a VPC tier")
	}
	if r.StartPort == NodeSSHStartPort && r.End() < l.nodePortLimit() {
		if l.ownsSSHCIDRs(r) {
			return owned(PurposeNodeSSHRange, 0)
		}
		return user(fmt.Sprintf("source CIDRs %v: the node SSH range has %s", cidrs(r), CIDRText(l.sshCIDRs())))
	}
	if l.isEtcdRange(r) && l.ownsSSHCIDRs(r) {
		return owned(PurposeEtcdSSHRange, 0)
	}
	port, single := singlePublicPort(r)
	if single && port == APIPort && l.ownsAPICIDRs(r) {
		return owned(PurposeAPIFirewall, 0)
	}
	if !single || !isAnyCIDROnly(r) {
		if r.StartPort >= NodeSSHStartPort && !isAnyCIDROnly(r) {
			return user(fmt.Sprintf("source CIDRs %v, CKS uses only %s", cidrs(r), AnyCIDR))
		}
		return user("")
	}
	nodes := l.sshNodes()
	if i := port - NodeSSHStartPort; i >= l.InternalCount() && (i < len(nodes) || vms.externalPorts[port]) {
		return owned(PurposeExternalSSHFirewall, i)
	}
	if port == APIPort {
		return owned(PurposeAPIFirewall, 0)
	}
	if j := port - l.etcdStart(); j >= 0 && j < len(l.etcdNodes()) {
		return owned(PurposeEtcdFirewall, j)
	}
	return user("")
}

// CIDRText words a CIDR list for messages: "10.0.0.0/8,192.168.0.0/16",
// or "any source" for none.
func CIDRText(cidrs []string) string {
	if len(cidrs) == 0 {
		return "any source"
	}
	return strings.Join(cidrs, ",")
}

func identifyForward(l Layout, vms clusterVMs, r Rule, owned func(Purpose, int) ClassifiedRule, user func(string) ClassifiedRule) ClassifiedRule {
	public, ok := singlePublicPort(r)
	if !ok {
		return user("")
	}
	inNodeRange := public >= NodeSSHStartPort && public < l.nodePortLimit()
	inEtcdRange := public >= l.etcdStart()
	if len(cidrs(r)) > 0 {
		if inNodeRange || inEtcdRange {
			return user(fmt.Sprintf("source CIDRs %v, CKS forwards have none", cidrs(r)))
		}
		return user("")
	}
	private := privateSinglePort(r)
	if public == APIPort && private == APIPort && l.Network == NetworkVPC {
		if _, ok := vms.sshIndex[r.VMID]; ok {
			return owned(PurposeAPIForward, 0)
		}
		return user("forwards to a VM that is not a node of the cluster")
	}
	if !inNodeRange && !inEtcdRange {
		return user("")
	}
	if private != SSHPort {
		return user(fmt.Sprintf("forwards to private port %s, CKS forwards to %d", PortRange(r.PrivatePort, r.PrivateEndPort), SSHPort))
	}
	if inNodeRange {
		if _, ok := vms.sshIndex[r.VMID]; ok {
			return owned(PurposeNodeSSHForward, public-NodeSSHStartPort)
		}
		if _, ok := vms.etcdIndex[r.VMID]; ok {
			return user("forwards a node SSH port to an etcd VM, which CKS never does")
		}
		return user(fmt.Sprintf("forwards to VM %s, which is not a node of the cluster", vms.describe(r.VMID)))
	}
	if _, ok := vms.etcdIndex[r.VMID]; ok {
		return owned(PurposeEtcdForward, public-l.etcdStart())
	}
	if _, ok := vms.sshIndex[r.VMID]; ok {
		return user("forwards an etcd SSH port to a non-etcd VM, which CKS never does")
	}
	return user(fmt.Sprintf("forwards to VM %s, which is not an etcd VM of the cluster", r.VMID))
}

// expectationIndex finds, for a CKS rule, the expectation it fulfils.
type expectationIndex struct {
	expected  []Expectation
	byKey     map[expectationKey]int
	byForward map[forwardKey]int
	matched   map[int]Rule
	vms       clusterVMs
}

type forwardKey struct {
	purpose Purpose
	vmID    string
}

// forwardOf finds the forward expectation of a VM.
func (x *expectationIndex) forwardOf(p Purpose, vmID string) (int, bool) {
	i, ok := x.byForward[forwardKey{p, vmID}]
	return i, ok
}

// forwardSlots is the number of ports of a forward purpose: the node SSH
// ports, or the etcd ports.
func (x *expectationIndex) forwardSlots(p Purpose) int {
	n := 0
	for k := range x.byForward {
		if k.purpose == p {
			n++
		}
	}
	return n
}

func (x *expectationIndex) taken(i int) bool {
	_, ok := x.matched[i]
	return ok
}

type expectationKey struct {
	purpose Purpose
	index   int
}

func newExpectationIndex(expected []Expectation, vms clusterVMs) *expectationIndex {
	x := &expectationIndex{expected: expected, byKey: map[expectationKey]int{}, byForward: map[forwardKey]int{}, matched: map[int]Rule{}, vms: vms}
	for i, e := range expected {
		x.byKey[expectationKey{e.Purpose, e.Index}] = i
		if e.Purpose == PurposeNodeSSHForward || e.Purpose == PurposeEtcdForward {
			x.byForward[forwardKey{e.Purpose, e.VMID}] = i
		}
	}
	return x
}

// settle marks an owned rule matched when it is exactly its expectation and
// the expectation is not taken yet, stale otherwise.
func (x *expectationIndex) settle(cr *ClassifiedRule) {
	i, ok := x.byKey[expectationKey{cr.Purpose, cr.Index}]
	if !ok {
		cr.Status = StatusStale
		cr.Reason = x.unexpectedReason(*cr)
		return
	}
	e := x.expected[i]
	if reason := x.mismatch(e, cr.Rule); reason != "" {
		cr.Status = StatusStale
		cr.Reason = reason
		return
	}
	if prev, taken := x.matched[i]; taken {
		cr.Status = StatusStale
		cr.Reason = fmt.Sprintf("duplicate of rule %s", prev.ID)
		return
	}
	x.matched[i] = cr.Rule
	cr.Status = StatusMatched
}

func (x *expectationIndex) unexpectedReason(cr ClassifiedRule) string {
	switch cr.Purpose {
	case PurposeNodeSSHRange:
		return "no node SSH range is expected: the VM map has no control or worker VM"
	case PurposeEtcdFirewall:
		return fmt.Sprintf("single-port etcd SSH firewall rule %d: its forward %d -> 22 has the same ports, so CloudStack's "+
			"scale can revoke it instead of the node SSH range (#14159); one etcd SSH range replaces these rules", cr.Rule.StartPort, cr.Rule.StartPort)
	case PurposeExternalSSHFirewall:
		return fmt.Sprintf("single-port external node SSH firewall rule %d: its forward %d -> 22 has the same ports, so "+
			"CloudStack's scale can revoke it instead of the node SSH range (#14159), and a scale-up's new node range would "+
			"conflict with it; the node SSH range covers the external nodes instead", cr.Rule.StartPort, cr.Rule.StartPort)
	case PurposeNodeSSHForward:
		return fmt.Sprintf("port %d is beyond the VM map's nodes", cr.Rule.StartPort)
	case PurposeEtcdForward:
		return fmt.Sprintf("port %d is beyond the VM map's etcd VMs", cr.Rule.StartPort)
	default:
		return fmt.Sprintf("no %s rule is expected for this VM map", cr.Purpose)
	}
}

// mismatch explains how a rule of the right purpose and index differs from
// its expectation, or returns "".
func (x *expectationIndex) mismatch(e Expectation, r Rule) string {
	switch e.Purpose {
	case PurposeNodeSSHRange, PurposeEtcdSSHRange, PurposeAPIFirewall:
		what := map[Purpose]string{PurposeNodeSSHRange: "node SSH firewall range", PurposeEtcdSSHRange: "etcd SSH firewall range",
			PurposeAPIFirewall: "API firewall rule"}[e.Purpose]
		if !slices.Contains(e.spans(), portSpan{r.StartPort, r.End()}) {
			return fmt.Sprintf("%s is %s, expected %s", what,
				PortRange(r.StartPort, r.End()), PortRange(e.StartPort, e.EndPort))
		}
		if !SameCIDRs(r.CIDRs, e.CIDRs) {
			return fmt.Sprintf("%s %s is open to %s, expected %s", what, PortRange(r.StartPort, r.End()),
				CIDRText(NormalCIDRs(cidrs(r))), CIDRText(NormalCIDRs(e.CIDRs)))
		}
	case PurposeNodeSSHForward, PurposeEtcdForward:
		if r.VMID != e.VMID {
			return fmt.Sprintf("port %d forwards to VM %s, expected VM %s",
				r.StartPort, x.vms.describe(r.VMID), x.vms.describe(e.VMID))
		}
	case PurposeAPIForward:
		// CKS forwards the API to the first control VM it created; any
		// control node serves it, and which one came first the API does
		// not tell.
		if !x.vms.control[r.VMID] {
			return fmt.Sprintf("the API port %d forwards to VM %s, which is not a control node", r.StartPort, x.vms.describe(r.VMID))
		}
	}
	return ""
}

// SameCIDRs reports whether two CIDR lists are the same set of CIDRs
// (NormalCIDRs).
func SameCIDRs(a, b []string) bool {
	return slices.Equal(NormalCIDRs(a), NormalCIDRs(b))
}
