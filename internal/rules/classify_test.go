package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

func classifyOne(t *testing.T, l Layout, rules []Rule, id string) ClassifiedRule {
	t.Helper()
	cr, ok := Classify(l, rules).Lookup(id)
	if !ok {
		t.Fatalf("rule %s not classified", id)
	}
	return cr
}

func TestClassifyTrickyRules(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1", "w2")
	udp := firewall("u1", 2222, 2224)
	udp.Protocol = "UDP"
	userLB := apiLB("lb80")
	userLB.StartPort, userLB.EndPort, userLB.PrivatePort, userLB.PrivateEndPort = 80, 80, 80, 80
	cidrPF := forward("pf-cidr", 2222, 22, "control")
	cidrPF.CIDRs = []string{"10.0.0.0/8"}
	rangePF := forward("pf-range", 2222, 22, "control")
	rangePF.EndPort, rangePF.PrivateEndPort = 2223, 23

	cases := []struct {
		rule    Rule
		purpose Purpose
		status  Status
		reason  string
	}{
		{firewall("fw22", 22, 22), PurposeUser, StatusUser, ""},
		{forward("pf22", 22, 22, "user-vm"), PurposeUser, StatusUser, ""},
		{forward("pf2300", 2300, 8080, "w1"), PurposeUser, StatusUser, "private port 8080"},
		{forward("pf-other-vm", 2223, 22, "user-vm"), PurposeUser, StatusUser, "not a node of the cluster"},
		{forward("pf-etcd-vm", 2225, 22, "etcd1"), PurposeUser, StatusUser, "etcd VM"},
		{forward("pf-etcd-port-worker", 50001, 22, "w1"), PurposeUser, StatusUser, "non-etcd VM"},
		{cidrPF, PurposeUser, StatusUser, "source CIDRs"},
		{rangePF, PurposeUser, StatusUser, ""},
		{firewall("fw-cidr", 2222, 2224, "10.0.0.0/8"), PurposeUser, StatusUser, "source CIDRs [10.0.0.0/8]: the node SSH range has 0.0.0.0/0"},
		{firewall("fw-two-cidrs", 2222, 2224, "0.0.0.0/0", "10.0.0.0/8"), PurposeUser, StatusUser, "source CIDRs"},
		{udp, PurposeUser, StatusUser, ""},
		{firewall("fw-wide", 2222, 7000), PurposeUser, StatusUser, ""},
		{firewall("fw-50005", 50005, 50005), PurposeUser, StatusUser, ""},
		{firewall("fw-all-ports", 0, 0), PurposeUser, StatusUser, ""},
		{userLB, PurposeUser, StatusUser, ""},
		{firewall("fw-range", 2222, 2224), PurposeNodeSSHRange, StatusMatched, ""},
		{firewall("fw-range-short", 2222, 2223), PurposeNodeSSHRange, StatusStale, "2222-2223, expected 2222-2224"},
		{firewall("fw-api", 6443, 6443), PurposeAPIFirewall, StatusMatched, ""},
		{firewall("fw-etcd", 50001, 50001), PurposeEtcdFirewall, StatusStale, "single-port etcd SSH firewall rule 50001"},
		{firewall("fw-etcd-range", 50000, 50002), PurposeEtcdSSHRange, StatusMatched, ""},
		{firewall("fw-etcd-range-short", 50000, 50001), PurposeUser, StatusUser, ""},
		{firewall("fw-etcd-range-cidr", 50000, 50002, "10.0.0.0/8"), PurposeUser, StatusUser, "source CIDRs"},
		{forward("pf-node", 2223, 22, "w1"), PurposeNodeSSHForward, StatusMatched, ""},
		// Any node port may serve any node VM: the server assigns them in
		// the order of its own VM map query.
		{forward("pf-other-node", 2223, 22, "w2"), PurposeNodeSSHForward, StatusMatched, ""},
		{forward("pf-2222-worker", 2222, 22, "w1"), PurposeNodeSSHForward, StatusStale, "not a control node"},
		{forward("pf-beyond", 2225, 22, "w2"), PurposeNodeSSHForward, StatusStale, "beyond the VM map"},
		{forward("pf-etcd", 50002, 22, "etcd3"), PurposeEtcdForward, StatusMatched, ""},
		{forward("pf-etcd-other", 50002, 22, "etcd1"), PurposeEtcdForward, StatusMatched, ""},
		{forward("pf-etcd-beyond", 50003, 22, "etcd1"), PurposeEtcdForward, StatusStale, "beyond"},
		{apiLB("lb-api"), PurposeAPILoadBalancer, StatusMatched, ""},
	}
	for _, tc := range cases {
		cr := classifyOne(t, l, []Rule{tc.rule}, tc.rule.ID)
		if cr.Purpose != tc.purpose || cr.Status != tc.status || !strings.Contains(cr.Reason, tc.reason) {
			t.Errorf("%s: got %s/%s %q, want %s/%s containing %q", tc.rule.ID, cr.Purpose, cr.Status, cr.Reason, tc.purpose, tc.status, tc.reason)
		}
		if (cr.Purpose == PurposeUser) == cr.Owned() {
			t.Errorf("%s: Owned() = %v for purpose %s", tc.rule.ID, cr.Owned(), cr.Purpose)
		}
	}
}

func TestClassifyDuplicateIsStale(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	// Two identical forwards cannot coexist on a real server, but a
	// classification must still count each expectation once.
	c := Classify(l, []Rule{forward("a", 2222, 22, "control"), forward("b", 2222, 22, "control")})
	if len(c.Stale) != 1 || c.Stale[0].Rule.ID != "b" || !strings.Contains(c.Stale[0].Reason, "duplicate of rule a") {
		t.Fatalf("stale = %+v", c.Stale)
	}
}

func TestClassifyCompleteClusterIsClean(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1", "w2")
	var rules []Rule
	for i, e := range Expected(l) {
		r := e.Rule(l)
		r.ID = fmt.Sprint(i)
		rules = append(rules, r)
	}
	c := Classify(l, rules)
	if len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("missing %v, stale %+v", purposes(c.Missing), c.Stale)
	}
	if len(c.Matched) != len(Expected(l)) || len(c.Rules) != len(rules) {
		t.Fatalf("matched %d of %d, classified %d of %d", len(c.Matched), len(Expected(l)), len(c.Rules), len(rules))
	}
}

func TestClassifyCKSLayoutHasStaleSingleEtcdRulesAndMissingRange(t *testing.T) {
	t.Parallel()
	s := newServer(1)
	l := etcdLayout("w1")
	s.provisionCKS(t, l)
	c := Classify(l, s.rules)
	if got := purposes(c.Missing); !slices.Equal(got, []string{"EtcdSSHRange/0"}) {
		t.Fatalf("missing = %v, want only the etcd range", got)
	}
	if len(c.Stale) != 3 {
		t.Fatalf("stale = %+v, want the three single-port etcd rules", c.Stale)
	}
	for _, cr := range c.Stale {
		if cr.Purpose != PurposeEtcdFirewall || !strings.Contains(cr.Reason, "#14159") {
			t.Errorf("stale %s = %s %q", cr.Rule.ID, cr.Purpose, cr.Reason)
		}
	}
}

func TestClassifySSHCIDRsDecideOwnership(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.SSHCIDRs = []string{"10.0.0.0/8"}
	l.FormerSSHCIDRs = [][]string{{"192.0.2.0/24"}}
	cases := []struct {
		rule    Rule
		purpose Purpose
		status  Status
		reason  string
	}{
		{firewall("narrow", 2222, 2223, "10.0.0.0/8"), PurposeNodeSSHRange, StatusMatched, ""},
		// CloudStack re-creates the node range open on every scale.
		{firewall("reopened", 2222, 2223), PurposeNodeSSHRange, StatusStale, "open to 0.0.0.0/0, expected 10.0.0.0/8"},
		{firewall("former", 2222, 2223, "192.0.2.0/24"), PurposeNodeSSHRange, StatusStale, "open to 192.0.2.0/24"},
		{firewall("someone-elses", 2222, 2223, "198.51.100.0/24"), PurposeUser, StatusUser, "source CIDRs"},
		{firewall("etcd-narrow", 50000, 50002, "10.0.0.0/8"), PurposeEtcdSSHRange, StatusMatched, ""},
		{firewall("etcd-open", 50000, 50002), PurposeEtcdSSHRange, StatusStale, "expected 10.0.0.0/8"},
		// The API rule is not an SSH rule: ssh_cidrs never applies to it.
		{firewall("api-narrow", 6443, 6443, "10.0.0.0/8"), PurposeUser, StatusUser, ""},
	}
	for _, tc := range cases {
		cr := classifyOne(t, l, []Rule{tc.rule}, tc.rule.ID)
		if cr.Purpose != tc.purpose || cr.Status != tc.status || !strings.Contains(cr.Reason, tc.reason) {
			t.Errorf("%s: got %s/%s %q, want %s/%s containing %q", tc.rule.ID, cr.Purpose, cr.Status, cr.Reason, tc.purpose, tc.status, tc.reason)
		}
	}
}

func TestClassifyMissingAPILoadBalancerIsReportedOnIsolatedOnly(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	var rules []Rule
	for _, e := range Expected(l) {
		if e.Purpose != PurposeAPILoadBalancer {
			rules = append(rules, e.Rule(l))
		}
	}
	if got := purposes(Classify(l, rules).Missing); !slices.Equal(got, []string{"APILoadBalancer/0"}) {
		t.Fatalf("isolated: missing = %v, want the API LB", got)
	}
	// A VPC tier has an LB or a forward, depending on its offering.
	l.Network = NetworkVPC
	rules = rules[:0]
	for _, e := range Expected(l) {
		if e.Purpose != PurposeAPILoadBalancer && e.Purpose != PurposeAPIForward {
			rules = append(rules, e.Rule(l))
		}
	}
	if got := Classify(l, rules).Missing; len(got) != 0 {
		t.Fatalf("VPC: missing = %v", purposes(got))
	}
}

func TestClassifyVPC(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.Network = NetworkVPC
	rules := []Rule{
		forward("api", 6443, 6443, "control"),
		forward("n0", 2222, 22, "control"),
		forward("n1", 2223, 22, "w1"),
		forward("e0", 50000, 22, "etcd1"),
		forward("e1", 50001, 22, "etcd2"),
		firewall("fw", 2222, 2223),
	}
	c := Classify(l, rules)
	if got := purposes(c.Missing); !slices.Equal(got, []string{"EtcdForward/2"}) {
		t.Fatalf("missing = %v", got)
	}
	if cr, _ := c.Lookup("api"); cr.Purpose != PurposeAPIForward || cr.Status != StatusMatched {
		t.Errorf("api forward = %s/%s", cr.Purpose, cr.Status)
	}
	if cr, _ := c.Lookup("fw"); cr.Owned() {
		t.Errorf("a firewall rule on a VPC IP is not CKS's: %s", cr.Purpose)
	}
	// On an isolated network CKS never forwards 6443.
	l.Network = NetworkIsolated
	if cr := classifyOne(t, l, rules, "api"); cr.Owned() {
		t.Errorf("isolated 6443 forward classified %s", cr.Purpose)
	}
}

// CKS gives each external node a single-port rule after its node range;
// the provider keeps one node range over every node's forward instead.
func TestClassifyExternalNodes(t *testing.T) {
	t.Parallel()
	l := Layout{Network: NetworkIsolated, Nodes: []Node{
		node("control", naming.RoleControl),
		{ID: "ext1", Role: naming.RoleWorker, External: true},
	}}
	cks := []Rule{
		firewall("range", 2222, 2222),
		firewall("ext-fw", 2223, 2223),
		forward("pf0", 2222, 22, "control"),
		forward("pf1", 2223, 22, "ext1"),
		firewall("old-ext-fw", 2224, 2224),
	}
	c := Classify(l, cks)
	if got := purposes(c.Missing); !slices.Equal(got, []string{"NodeSSHRange/0", "APIFirewall/0", "APILoadBalancer/0"}) {
		t.Fatalf("missing = %v", got)
	}
	for _, id := range []string{"range", "ext-fw"} {
		if cr, _ := c.Lookup(id); !cr.Owned() || cr.Status != StatusStale {
			t.Errorf("%s = %s/%s, want a stale CKS rule", id, cr.Purpose, cr.Status)
		}
	}
	if cr, _ := c.Lookup("ext-fw"); cr.Purpose != PurposeExternalSSHFirewall || !strings.Contains(cr.Reason, "covers the external nodes") {
		t.Errorf("external firewall = %s: %s", cr.Purpose, cr.Reason)
	}
	// A leftover single port that no external node's forward has is not claimed.
	if cr, _ := c.Lookup("old-ext-fw"); cr.Owned() {
		t.Errorf("old external port classified %s", cr.Purpose)
	}
	// The sync deletes CKS's range and the external rule, which the wider
	// range would conflict with, then creates it.
	p := PlanSync(l, c)
	if got := waveTexts(p); len(got) != 2 || !slices.Equal(got[1], []string{"Create NodeSSHRange 2222-2223 "}) ||
		!slices.Contains(got[0], "Delete ExternalSSHFirewall 2223 ") || !slices.Contains(got[0], "Delete NodeSSHRange 2222 ") {
		t.Fatalf("plan %v", got)
	}

	provider := []Rule{firewall("range", 2222, 2223), forward("pf0", 2222, 22, "control"), forward("pf1", 2223, 22, "ext1")}
	if c := Classify(l, provider); len(c.Stale) != 0 || !slices.Equal(purposes(c.Missing), []string{"APIFirewall/0", "APILoadBalancer/0"}) {
		t.Errorf("provider layout: stale %v, missing %v", c.Stale, purposes(c.Missing))
	}
}

// A scale-down rebuilds the forwards in map order, so a worker added after
// an external node may get the single-port rule after the range: it is
// still the external layout's rule, found by its twin forward's port.
func TestClassifyExternalRuleFoundByItsForward(t *testing.T) {
	t.Parallel()
	l := Layout{Network: NetworkIsolated, Nodes: []Node{
		node("control", naming.RoleControl), {ID: "ext1", Role: naming.RoleWorker, External: true}, node("w1", naming.RoleWorker),
	}}
	c := Classify(l, []Rule{firewall("range", 2222, 2223), firewall("single", 2224, 2224), firewall("dup", 2226, 2226),
		forward("pf0", 2222, 22, "control"), forward("pf1", 2223, 22, "ext1"), forward("pf2", 2224, 22, "w1"),
		forward("pf3", 2226, 22, "ext1")})
	for _, id := range []string{"single", "dup"} {
		if cr, _ := c.Lookup(id); cr.Purpose != PurposeExternalSSHFirewall || cr.Status != StatusStale {
			t.Errorf("%s = %s/%s, want a stale external rule", id, cr.Purpose, cr.Status)
		}
	}
}

func TestClassifyDirectNetworkOwnsNothing(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.Network = NetworkDirect
	c := Classify(l, []Rule{firewall("r", 2222, 2223), forward("p", 2222, 22, "control")})
	for _, cr := range c.Rules {
		if cr.Owned() {
			t.Errorf("rule %s owned on a direct network", cr.Rule.ID)
		}
	}
	if len(c.Missing) != 0 {
		t.Errorf("missing = %v", purposes(c.Missing))
	}
}

// The API does not guarantee the order of a cluster's VM map: which port
// serves which node is read from the forwards, never from the map order.
func TestClassifyForwardsWhateverTheMapOrder(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1", "w2")
	s := hardened(t, l)
	reversed := l
	reversed.Nodes = slices.Clone(l.Nodes)
	slices.Reverse(reversed.Nodes)
	c := Classify(reversed, s.onIP(snatIP))
	if len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("reversed map: missing %v, stale %+v", purposes(c.Missing), c.Stale)
	}
	for _, n := range l.Nodes {
		if port, ok := c.ForwardPort(n.ID); !ok || port == 0 {
			t.Errorf("no forward port for %s", n.ID)
		}
	}
	if port, _ := c.ForwardPort("control"); port != 2222 {
		t.Errorf("control's port = %d, want 2222", port)
	}

	// The control node's forward lost: it comes back on 2222 even when the
	// map lists the control node last.
	var noControl []Rule
	for _, r := range s.onIP(snatIP) {
		if r.Kind != KindPortForward || r.VMID != "control" {
			noControl = append(noControl, r)
		}
	}
	p := PlanSync(reversed, Classify(reversed, noControl))
	acts := p.Actions()
	if len(acts) != 1 || acts[0].Op != OpCreate || acts[0].Rule.VMID != "control" || acts[0].Rule.StartPort != 2222 {
		t.Fatalf("plan = %v, want the control node's forward on 2222", waveTexts(p))
	}

	// A worker on 2222 is moved off it: CloudStack reaches the cluster's
	// control node through 2222.
	swapped := slices.Clone(s.onIP(snatIP))
	for i, r := range swapped {
		switch {
		case r.Kind == KindPortForward && r.VMID == "control":
			swapped[i].VMID = "w1"
		case r.Kind == KindPortForward && r.VMID == "w1":
			swapped[i].VMID = "control"
		}
	}
	c = Classify(l, swapped)
	if len(c.Stale) != 2 {
		t.Fatalf("swapped: stale %+v, want the worker on 2222 and the control node elsewhere", c.Stale)
	}
	s2 := newServer(500)
	s2.rules = swapped
	for _, w := range PlanSync(l, c).Waves {
		s2.apply(t, w)
	}
	after := Classify(l, s2.onIP(snatIP))
	if port, _ := after.ForwardPort("control"); port != 2222 || len(after.Missing) != 0 || len(after.Stale) != 0 {
		t.Fatalf("after the plan: control on %d, missing %v, stale %+v", port, purposes(after.Missing), after.Stale)
	}
}

// API CIDRs make the API firewall rule the provider's to keep: a rule with
// them, or open, or with former ones is CKS's; the sync creates the narrowed
// rule before it deletes the open one, so the API never closes. Without
// them the API rule is left alone.
func TestAPICIDRs(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.APICIDRs = []string{"10.0.0.0/8"}
	l.FormerAPICIDRs = [][]string{{"192.0.2.0/24"}}
	for _, tc := range []struct {
		rule    Rule
		purpose Purpose
		status  Status
	}{
		{firewall("api-narrow", 6443, 6443, "10.0.0.0/8"), PurposeAPIFirewall, StatusMatched},
		{firewall("api-open", 6443, 6443), PurposeAPIFirewall, StatusStale},
		{firewall("api-former", 6443, 6443, "192.0.2.0/24"), PurposeAPIFirewall, StatusStale},
		{firewall("api-someone-elses", 6443, 6443, "198.51.100.0/24"), PurposeUser, StatusUser},
	} {
		cr := classifyOne(t, l, []Rule{tc.rule}, tc.rule.ID)
		if cr.Purpose != tc.purpose || cr.Status != tc.status {
			t.Errorf("%s: got %s/%s, want %s/%s", tc.rule.ID, cr.Purpose, cr.Status, tc.purpose, tc.status)
		}
	}

	s := newServer(100)
	open := etcdLayout("w1")
	s.provisionCKS(t, open)
	if p := s.sync(t, open); slices.ContainsFunc(p.Actions(), func(a Action) bool { return a.Purpose == PurposeAPIFirewall }) {
		t.Fatalf("without API CIDRs the sync touches the API rule: %v", waveTexts(p))
	}
	p := s.sync(t, l)
	var createWave, deleteWave int
	for i, w := range p.Waves {
		for _, a := range w {
			switch {
			case a.Purpose == PurposeAPIFirewall && a.Op == OpCreate:
				createWave = i
			case a.Purpose == PurposeAPIFirewall && a.Op == OpDelete:
				deleteWave = i
			}
		}
	}
	if createWave >= deleteWave {
		t.Fatalf("the narrowed API rule must come before the open one goes: %v", waveTexts(p))
	}
	var api []string
	for _, r := range s.onIP(open.IPAddressID) {
		if r.StartPort == APIPort && r.Kind == KindFirewall {
			api = append(api, strings.Join(r.CIDRs, ","))
		}
	}
	if !slices.Equal(api, []string{"10.0.0.0/8"}) {
		t.Fatalf("API firewall rules after the sync: %v", api)
	}
}

// A blocked change of the API CIDRs is no half-done change, as for the SSH
// ranges: the API rule of the former CIDRs serves what the blocked one
// would, so it stays (and the plan says so) until the rule in the way goes.
func TestAPICIDRsBlockedChangeKeepsTheWorkingRule(t *testing.T) {
	t.Parallel()
	s := newServer(100)
	l := etcdLayout("w1")
	s.provisionCKS(t, l)
	l.APICIDRs = []string{"127.0.0.1/32"}
	s.sync(t, l)
	user := firewall("", 6443, 6443, "10.0.0.0/8")
	if err := s.create(user); err != nil {
		t.Fatal(err)
	}
	userID := strconv.Itoa(s.next - 1)

	changed := l
	changed.APICIDRs = []string{"10.0.0.0/8", "127.0.0.2/32"}
	changed.FormerAPICIDRs = [][]string{{"127.0.0.1/32"}}
	p := PlanSync(changed, Classify(changed, s.onIP(snatIP)))
	if !p.Empty() {
		t.Fatalf("a blocked API change changes rules: %v", waveTexts(p))
	}
	if len(p.Blocked) != 1 || p.Blocked[0].Conflict.ID != userID || p.Blocked[0].Expectation.Purpose != PurposeAPIFirewall {
		t.Fatalf("blocked = %+v, want the API rule blocked by user rule %s", p.Blocked, userID)
	}
	if kept := p.Blocked[0].Kept; len(kept) != 1 || !slices.Equal(kept[0].CIDRs, []string{"127.0.0.1/32"}) {
		t.Fatalf("kept = %+v, want the API rule from 127.0.0.1/32", kept)
	}

	// The rule in the way goes: the change is made, the new rule first.
	s.delete(userID)
	p = s.sync(t, changed)
	if len(p.Blocked) != 0 || len(p.Waves) != 2 || p.Waves[0][0].Op != OpCreate || p.Waves[1][0].Op != OpDelete {
		t.Fatalf("plan once the user rule is gone: %v, blocked %+v", waveTexts(p), p.Blocked)
	}
}
