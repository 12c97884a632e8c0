package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// afterScaleUp replays the scale-down failure with separate etcd nodes
// (apache/cloudstack#14159) up to its successful scale from one to two
// workers, in CKS's own layout: the ids are those of the rule table.
func afterScaleUp(t *testing.T) *server {
	t.Helper()
	s := newServer(1595)
	s.provisionCKS(t, etcdLayout("w1"))
	want := []string{"1595", "1596", "1597", "1598", "1599", "1600", "1601", "1602", "1603", "1604", "1605"}
	if got := s.ids(); !slices.Equal(got, want) {
		t.Fatalf("ids after create = %v, want %v", got, want)
	}
	if fw, _ := BuggyPick(s.rules); fw.ID != "1595" {
		t.Fatalf("first scale picks %s, want the node range 1595", fw.ID)
	}
	if err := s.scaleRules(etcdLayout("w1", "w2"), BuggyPick); err != nil {
		t.Fatalf("scale-up: %v", err)
	}
	return s
}

func TestScaleDownWithSeparateEtcdNodesFailsInCKSLayout(t *testing.T) {
	t.Parallel()
	s := afterScaleUp(t)
	if fw, _ := BuggyPick(s.rules); fw.ID != "1600" {
		t.Fatalf("BuggyPick = %s, want etcd rule 1600", fw.ID)
	}
	if fw, _ := FixedPick(s.rules); fw.ID != "1606" {
		t.Fatalf("FixedPick = %s, want range 1606", fw.ID)
	}
	s.expunge("w2")
	err := s.scaleRules(etcdLayout("w1"), BuggyPick)
	if err == nil || !strings.Contains(err.Error(), "2222-2223, conflicts with rule 1606 which has 2222-2224") {
		t.Fatalf("scale-down error = %v, want the #14159 conflict", err)
	}
	want := []string{"1596", "1599", "1602", "1603", "1604", "1605", "1606"}
	if got := s.ids(); !slices.Equal(got, want) {
		t.Fatalf("rules after failure = %v, want %v", got, want)
	}
}

// brokenState is the state the failed scale-down leaves: firewall 6443,
// 50001, 50002 and 2222-2224; forwards 50001 and 50002 only; the API LB.
func brokenState() []Rule {
	return []Rule{
		firewall("1596", 6443, 6443),
		apiLB("1599"),
		firewall("1602", 50001, 50001),
		forward("1603", 50001, 22, "etcd2"),
		firewall("1604", 50002, 50002),
		forward("1605", 50002, 22, "etcd3"),
		firewall("1606", 2222, 2224),
	}
}

func TestSyncRestoresEverySSHPathOfABrokenCluster(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := newServer(1611)
	s.rules = brokenState()
	p := s.sync(t, l)
	want := [][]string{
		{"Delete EtcdFirewall 50001 ", "Delete EtcdFirewall 50002 ", "Delete NodeSSHRange 2222-2224 "},
		{"Create NodeSSHRange 2222-2223 ", "Create NodeSSHForward 2222 control", "Create NodeSSHForward 2223 w1",
			"Create EtcdForward 50000 etcd1", "Create EtcdSSHRange 50000-50002 "},
	}
	if got := waveTexts(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("waves:\n%v\nwant:\n%v", got, want)
	}
	if got, want := ownedShape(l, s.rules), expectedShape(l); !slices.Equal(got, want) {
		t.Fatalf("CKS rules after sync:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h := Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{}); len(h) != 0 {
		t.Fatalf("hazards after sync: %v", hazardIDs(h))
	}
}

func TestHardeningKeepsTheSSHGapToOneJob(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := newServer(1)
	s.provisionCKS(t, l)
	p := PlanSync(l, Classify(l, s.rules))
	// The single rules and the range share CIDRs and ports: the range can
	// only be created once they are gone, in one concurrent wave.
	want := [][]string{
		{"Delete EtcdFirewall 50000 ", "Delete EtcdFirewall 50001 ", "Delete EtcdFirewall 50002 "},
		{"Create EtcdSSHRange 50000-50002 "},
	}
	if got := waveTexts(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("waves = %v, want %v", got, want)
	}

	// With ssh_cidrs the new rules do not conflict with the open ones:
	// they come first, and nothing is ever closed.
	narrow := l
	narrow.SSHCIDRs = []string{"10.0.0.0/8"}
	p = PlanSync(narrow, Classify(narrow, s.rules))
	want = [][]string{
		{"Create NodeSSHRange 2222-2223 ", "Create EtcdSSHRange 50000-50002 "},
		{"Delete NodeSSHRange 2222-2223 ", "Delete EtcdFirewall 50000 ", "Delete EtcdFirewall 50001 ", "Delete EtcdFirewall 50002 "},
	}
	if got := waveTexts(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("narrowed waves = %v, want %v", got, want)
	}
	for _, w := range p.Waves {
		s.apply(t, w)
	}
	if got, want := ownedShape(narrow, s.rules), expectedShape(narrow); !slices.Equal(got, want) {
		t.Fatalf("after narrowing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHardenedLayoutSurvivesEveryScaleInAnyEvaluationOrder scales a
// hardened cluster 1→2→1→2→1 with the selector of 4.22.1.1 reading the
// rules in ascending, descending and shuffled orders: it always revokes the
// node range, the etcd forwards survive, and with the default CIDRs no rule
// change is needed after any scale.
func TestHardenedLayoutSurvivesEveryScaleInAnyEvaluationOrder(t *testing.T) {
	t.Parallel()
	sizes := [][]string{{"w1", "w2"}, {"w1"}, {"w1", "w3"}, {"w1"}}
	for _, cidrs := range [][]string{nil, {"10.0.0.0/8"}} {
		base := etcdLayout("w1")
		base.SSHCIDRs = cidrs
		for _, order := range evaluationOrders(8) {
			s := newServer(1)
			s.provisionCKS(t, base)
			s.sync(t, base)
			for _, workers := range sizes {
				l := etcdLayout(workers...)
				l.SSHCIDRs = cidrs
				for _, r := range s.rules {
					if r.Kind == KindPortForward && r.VMID == "w2" && !slices.Contains(workers, "w2") {
						s.expunge("w2")
					}
				}
				if err := s.scaleRules(l, pickInOrder(order)); err != nil {
					t.Fatalf("CIDRs %v, order %v, to %v: %v", cidrs, order, workers, err)
				}
				p := s.sync(t, l)
				if len(cidrs) == 0 && !p.Empty() {
					t.Fatalf("order %v: a steady-state scale needed rule changes: %v", order, waveTexts(p))
				}
				if len(cidrs) > 0 && len(p.Actions()) != 2 {
					t.Fatalf("order %v: re-narrowing the node range = %v, want one create and one delete", order, waveTexts(p))
				}
				if got, want := ownedShape(l, s.rules), expectedShape(l); !slices.Equal(got, want) {
					t.Fatalf("order %v, to %v:\n%s\nwant:\n%s", order, workers, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}

func TestSyncNeverTouchesUserRules(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	blocker := forward("user-2223", 2223, 22, "user-vm")
	rules := append(brokenState(),
		firewall("fw22", 22, 22),
		forward("pf22", 22, 22, "user-vm"),
		forward("pf2300", 2300, 8080, "w1"),
		blocker,
	)
	c := Classify(l, rules)
	p := PlanSync(l, c)
	for _, a := range p.Actions() {
		if cr, _ := c.Lookup(a.Rule.ID); a.Op == OpDelete && !cr.Owned() {
			t.Errorf("sync deletes user rule %s", a.Rule.ID)
		}
		if a.Op == OpCreate && a.Purpose == PurposeNodeSSHForward && a.Rule.StartPort == 2223 {
			t.Error("sync creates a forward that would conflict (537)")
		}
	}
	if len(p.Blocked) != 1 || p.Blocked[0].Conflict.ID != "user-2223" || !strings.Contains(p.Blocked[0].Reason, "user-2223") {
		t.Fatalf("blocked = %+v", p.Blocked)
	}
}

func TestSyncIsDeterministicAndLeavesAPIRulesAlone(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	rules := append(brokenState(), forward("stale-a", 2223, 22, "control"), forward("stale-b", 2230, 22, "w1"))
	first := waveTexts(PlanSync(l, Classify(l, rules)))
	for range 20 {
		if again := waveTexts(PlanSync(l, Classify(l, rules))); fmt.Sprint(again) != fmt.Sprint(first) {
			t.Fatal("PlanSync is not deterministic")
		}
	}
	vpc := etcdLayout("w1")
	vpc.Network = NetworkVPC
	c := Classify(vpc, []Rule{forward("api-wrong", 6443, 6443, "w1")})
	for _, a := range PlanSync(vpc, c).Actions() {
		if a.Purpose == PurposeAPIForward || a.Purpose == PurposeAPILoadBalancer || a.Purpose == PurposeAPIFirewall {
			t.Errorf("sync touches API rule: %s %s", a.Op, a.Purpose)
		}
		if a.Rule.Kind != KindPortForward {
			t.Errorf("VPC sync creates a %s", a.Rule.Kind)
		}
	}
}

func TestPredictAppliesAPlan(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	s := newServer(1)
	s.provisionCKS(t, l)
	p := PlanSync(l, Classify(l, s.rules))
	ip, forwards := Predict(s.onIP(snatIP), s.networkForwards(), p)
	if h := Preflight(l, ip, forwards, Server{}); len(h) != 0 {
		t.Fatalf("predicted rules have hazards: %v", hazardIDs(h))
	}
	if c := Classify(l, ip); len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("predicted: missing %v, stale %v", purposes(c.Missing), c.Stale)
	}
}
