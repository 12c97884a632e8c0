package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// hardened returns the rules of a cluster in the provider's layout.
func hardened(t *testing.T, l Layout) *server {
	t.Helper()
	s := newServer(100)
	s.provisionCKS(t, l)
	s.sync(t, l)
	return s
}

func TestPreflightCKSLayoutFindsEachSingleEtcdRule(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := newServer(1595)
	s.provisionCKS(t, l)
	hazards := Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{})
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"1600", "1602", "1604"}) {
		t.Fatalf("hazards = %v, want the three etcd firewall rules whatever their position", got)
	}
	for _, h := range hazards {
		if h.Kind != HazardWrongPick || h.Owner != OwnerCKS || h.Purpose != PurposeEtcdFirewall || h.Remedy != RemedySync {
			t.Errorf("hazard %s = %s/%s/%s/%s", h.Rule.ID, h.Kind, h.Owner, h.Purpose, h.Remedy)
		}
	}
	for _, want := range []string{"etcd SSH firewall rule 1600", "50000", "same ports to port 22", "530", "Alert", "2222 to 50000"} {
		if !strings.Contains(hazards[0].Explanation, want) {
			t.Errorf("explanation %q lacks %q", hazards[0].Explanation, want)
		}
	}
}

func TestPreflightHardenedLayoutIsSafe(t *testing.T) {
	t.Parallel()
	for _, l := range []Layout{etcdLayout("w1"), etcdLayout("w1", "w2", "w3"), {Network: NetworkIsolated, IPAddressID: snatIP, NetworkID: netID, Nodes: []Node{
		node("etcd1", naming.RoleEtcd), node("control", naming.RoleControl), node("w1", naming.RoleWorker),
	}}} {
		s := hardened(t, l)
		if h := Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{PortlessRuleBreaksScale: true}); len(h) != 0 {
			t.Errorf("%d nodes: hazards %v", len(l.Nodes), hazardIDs(h))
		}
	}
}

func TestPreflightUserRulesAreHazardsWhateverTheirPosition(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := hardened(t, l)
	user := []Rule{
		firewall("fw22", 22, 22), forward("pf22", 22, 22, "user-vm"),
		firewall("fw8080", 8080, 8080), forward("pf8080", 8080, 80, "user-vm"),
		firewall("user-at-2222", 2222, 2230, "10.0.0.0/8"),
	}
	for _, order := range [][]Rule{append(slices.Clone(user), s.rules...), append(slices.Clone(s.rules), user...)} {
		hazards := Preflight(l, onIP(order), forwardsOf(order), Server{})
		if got := hazardIDs(hazards); !slices.Equal(sorted(got), []string{"fw22", "user-at-2222"}) {
			t.Fatalf("hazards = %v, want fw22 and user-at-2222", got)
		}
		for _, h := range hazards {
			if h.Owner != OwnerUser || h.Remedy != RemedyAroundScale || h.Kind != HazardWrongPick {
				t.Errorf("%s = %s/%s/%s", h.Rule.ID, h.Owner, h.Remedy, h.Kind)
			}
		}
	}
}

func TestPreflightPortlessRuleOnlyOnAffectedVersions(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := hardened(t, l)
	rules := append(s.onIP(snatIP), firewall("all-tcp", 0, 0, "203.0.113.0/24"))
	if h := Preflight(l, rules, s.networkForwards(), Server{}); len(h) != 0 {
		t.Fatalf("4.22.1+: hazards %v", hazardIDs(h))
	}
	h := Preflight(l, rules, s.networkForwards(), Server{PortlessRuleBreaksScale: true})
	if len(h) != 1 || h[0].Kind != HazardPortless || h[0].Rule.ID != "all-tcp" || h[0].Remedy != RemedyAroundScale ||
		!strings.Contains(h[0].Explanation, "stays in Scaling") {
		t.Fatalf("4.22.0: hazards %+v", h)
	}
}

func TestPreflightCollateralForwards(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1", "w2")
	s := hardened(t, l)
	userOnOtherIP := forward("", 2223, 8080, "user-vm")
	userOnOtherIP.IPAddressID = otherIP
	far := forward("", 2300, 8080, "user-vm")
	far.IPAddressID = otherIP
	for _, r := range []Rule{userOnOtherIP, far} {
		if err := s.create(r); err != nil {
			t.Fatal(err)
		}
	}
	hazards := Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{})
	if len(hazards) != 1 || hazards[0].Kind != HazardCollateral || hazards[0].Rule.StartPort != 2223 ||
		hazards[0].Rule.IPAddressID != otherIP || hazards[0].Remedy != RemedyAroundScale {
		t.Fatalf("hazards = %+v", hazards)
	}
	if !strings.Contains(hazards[0].Explanation, "2222-2224") || !strings.Contains(hazards[0].Explanation, "8080") {
		t.Errorf("explanation = %q", hazards[0].Explanation)
	}
	// The real cleanup indeed deletes it.
	if err := s.scaleRules(l, BuggyPick); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.rules {
		if r.IPAddressID == otherIP && r.StartPort == 2223 {
			t.Fatal("the collateral forward survived the scale")
		}
	}
}

func TestPreflightMissingAndDuplicateNodeRange(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := hardened(t, l)
	var noRange []Rule
	for _, r := range s.onIP(snatIP) {
		if r.StartPort != NodeSSHStartPort || r.Kind != KindFirewall {
			noRange = append(noRange, r)
		}
	}
	h := Preflight(l, noRange, s.networkForwards(), Server{})
	if len(h) != 1 || h[0].Kind != HazardNoNodeRange || h[0].Remedy != RemedySync {
		t.Fatalf("without a range: %+v", h)
	}
	// An open range next to the narrowed one (an interrupted re-narrowing).
	narrow := l
	narrow.SSHCIDRs = []string{"10.0.0.0/8"}
	s = hardened(t, narrow)
	dup := firewall("open-dup", 2222, 2223)
	h = Preflight(narrow, append(s.onIP(snatIP), dup), s.networkForwards(), Server{})
	if len(h) != 1 || h[0].Rule.ID != "open-dup" || h[0].Owner != OwnerCKS || h[0].Remedy != RemedySync {
		t.Fatalf("duplicate range: %+v", h)
	}
}

func TestPreflightRefusesUserForwardsTo22OnTheAPIPort(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := hardened(t, l)
	userPF := forward("user-6443", APIPort, SSHPort, "user-vm")
	userPF.IPAddressID = otherIP
	h := Preflight(l, s.onIP(snatIP), append(s.networkForwards(), userPF), Server{})
	if len(h) != 1 || h[0].Purpose != PurposeAPIFirewall || h[0].Remedy != RemedyNone {
		t.Fatalf("API rule matched through a user forward: %+v", h)
	}
}

func TestPreflightOtherNetworksHaveNoHazards(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	rules := []Rule{firewall("e0", 50000, 50000), forward("pe0", 50000, 22, "etcd1")}
	for _, n := range []NetworkKind{NetworkVPC, NetworkDirect} {
		l.Network = n
		if got := Preflight(l, rules, nil, Server{PortlessRuleBreaksScale: true}); got != nil {
			t.Errorf("%s hazards = %v", n, hazardIDs(got))
		}
	}
}

func onIP(rules []Rule) []Rule {
	return slices.DeleteFunc(slices.Clone(rules), func(r Rule) bool { return r.IPAddressID != snatIP })
}

func forwardsOf(rules []Rule) []Rule {
	return slices.DeleteFunc(slices.Clone(rules), func(r Rule) bool { return r.Kind != KindPortForward })
}

func sorted(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
}

// Two node ranges, neither in the expected layout, of different lengths:
// the pick (the widest, whose cleanup reaches furthest) and so the
// collateral forwards are the same whatever order the rules are listed in.
func TestPreflightDuplicateRangesDoNotDependOnListOrder(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.SSHCIDRs = []string{"10.0.0.0/8"}
	s := hardened(t, l)
	var rules []Rule
	for _, r := range s.onIP(snatIP) {
		if r.StartPort != NodeSSHStartPort || r.Kind != KindFirewall {
			rules = append(rules, r)
		}
	}
	rules = append(rules, firewall("open-short", 2222, 2223), firewall("open-wide", 2222, 2230))
	user := forward("", 2228, 8080, "user-vm")
	user.IPAddressID = otherIP
	if err := s.create(user); err != nil {
		t.Fatal(err)
	}
	summary := func(h []Hazard) []string {
		var out []string
		for _, x := range h {
			out = append(out, string(x.Kind)+":"+x.Rule.ID+":"+x.Rule.IPAddressID)
		}
		slices.Sort(out)
		return out
	}
	listed := summary(Preflight(l, rules, s.networkForwards(), Server{}))
	reversedRules := slices.Clone(rules)
	slices.Reverse(reversedRules)
	if got := summary(Preflight(l, reversedRules, s.networkForwards(), Server{})); !slices.Equal(got, listed) {
		t.Fatalf("hazards depend on the list order:\n%v\n%v", listed, got)
	}
	if !slices.ContainsFunc(listed, func(h string) bool { return strings.HasPrefix(h, string(HazardCollateral)+":") }) ||
		!slices.Contains(listed, string(HazardWrongPick)+":open-short:"+snatIP) {
		t.Fatalf("want the short range as a wrong pick and the forward at 2228 as collateral of the wide one: %v", listed)
	}
}
