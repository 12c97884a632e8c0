package rules

import (
	"slices"
	"strings"
	"testing"
)

// afterScaleUp replays seed 000 up to the successful scale from one to two
// workers: the ids are those of the rule table.
func afterScaleUp(t *testing.T) *server {
	t.Helper()
	s := newServer(1595)
	s.provision(t, seedLayout("w1"))
	want := []string{"1595", "1596", "1597", "1598", "1599", "1600", "1601", "1602", "1603", "1604", "1605"}
	if got := s.ids(); !slices.Equal(got, want) {
		t.Fatalf("ids after create = %v, want %v", got, want)
	}
	if h := Hazards(seedLayout("w1"), s.onIP(snatIP), s.networkForwards()); len(h) != 0 {
		t.Fatalf("fresh cluster has hazards: %v", hazardIDs(h))
	}
	if fw, _ := BuggyPick(s.rules); fw.ID != "1595" {
		t.Fatalf("first scale picks %s, want the node range 1595", fw.ID)
	}

	if err := s.scaleRules(seedLayout("w1", "w2"), BuggyPick); err != nil {
		t.Fatalf("scale-up: %v", err)
	}
	// 1606 is the new range 2222-2224, 1607/1608/1609 the forwards.
	byID := map[string]Rule{}
	for _, r := range s.rules {
		byID[r.ID] = r
	}
	if r := byID["1606"]; r.Kind != KindFirewall || r.StartPort != 2222 || r.EndPort != 2224 {
		t.Fatalf("rule 1606 = %+v, want firewall 2222-2224", r)
	}
	if r := byID["1608"]; r.StartPort != 2223 || r.VMID != "w1" {
		t.Fatalf("rule 1608 = %+v, want forward 2223 to w1", r)
	}
	return s
}

func TestSeed000BuggyScaleDownFails(t *testing.T) {
	t.Parallel()
	s := afterScaleUp(t)
	scaled := seedLayout("w1", "w2")

	c := Classify(scaled, s.onIP(snatIP))
	if len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("after scale-up: missing %v, stale %v", purposes(c.Missing), c.Stale)
	}
	hazards := Hazards(scaled, s.onIP(snatIP), s.networkForwards())
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"1600", "1602", "1604"}) {
		t.Fatalf("hazards = %v, want the three etcd firewall rules", got)
	}
	for _, h := range hazards {
		if h.Kind != HazardWrongPick || h.Owner != OwnerCKS || h.Purpose != PurposeEtcdFirewall {
			t.Errorf("hazard %s = %s/%s/%s", h.Rule.ID, h.Kind, h.Owner, h.Purpose)
		}
	}
	first := hazards[0].Explanation
	for _, want := range []string{"1600", "50000", "1606", "2222-2224", "2222-50000", "4 CKS, 0 user", "530", "Alert"} {
		if !strings.Contains(first, want) {
			t.Errorf("explanation %q lacks %q", first, want)
		}
	}
	if fw, _ := BuggyPick(s.rules); fw.ID != "1600" {
		t.Fatalf("BuggyPick = %s, want etcd rule 1600", fw.ID)
	}
	if fw, _ := FixedPick(s.rules); fw.ID != "1606" {
		t.Fatalf("FixedPick = %s, want range 1606", fw.ID)
	}

	// Scale 2 -> 1: the worker is expunged, then the rules are rebuilt.
	s.expunge("w2")
	err := s.scaleRules(seedLayout("w1"), BuggyPick)
	if err == nil || !strings.Contains(err.Error(), "2222-2223, conflicts with rule 1606 which has 2222-2224") {
		t.Fatalf("scale-down error = %v, want the #14159 conflict", err)
	}
	if s.next != 1611 {
		t.Errorf("next id = %d, want 1611 (1610 was the rejected range)", s.next)
	}
	want := []string{"1596", "1599", "1602", "1603", "1604", "1605", "1606"}
	if got := s.ids(); !slices.Equal(got, want) {
		t.Fatalf("rules after failure = %v, want %v", got, want)
	}
}

// brokenState is the state seed 000 leaves: firewall 6443, 50001, 50002 and
// 2222-2224; forwards 50001 and 50002 only; the API LB.
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

func TestSeed000RepairRestoresExpectedSet(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	s := newServer(1611)
	s.rules = brokenState()

	c := Classify(l, s.rules)
	wantMissing := []string{"NodeSSHRange/0", "NodeSSHForward/0", "NodeSSHForward/1", "EtcdFirewall/0", "EtcdForward/0"}
	if got := purposes(c.Missing); !slices.Equal(got, wantMissing) {
		t.Fatalf("missing = %v, want %v", got, wantMissing)
	}
	if len(c.Stale) != 1 || c.Stale[0].Rule.ID != "1606" || !strings.Contains(c.Stale[0].Reason, "2222-2224, expected 2222-2223") {
		t.Fatalf("stale = %+v, want the range 1606", c.Stale)
	}

	actions := PlanRepair(l, c)
	var got []string
	for _, a := range actions {
		got = append(got, string(a.Op)+" "+string(a.Purpose)+" "+portRange(a.Rule.StartPort, endPort(a.Rule))+" "+a.Rule.VMID)
	}
	want := []string{
		"Delete NodeSSHRange 2222-2224 ",
		"Create NodeSSHRange 2222-2223 ",
		"Create NodeSSHForward 2222 control",
		"Create NodeSSHForward 2223 w1",
		"Create EtcdFirewall 50000 ",
		"Create EtcdForward 50000 etcd1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("repair actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, a := range actions {
		if a.Op == OpCreate && (a.Rule.IPAddressID != snatIP || a.Rule.NetworkID != netID || a.Rule.ID != "") {
			t.Errorf("create %s carries ip %q network %q id %q", a.Purpose, a.Rule.IPAddressID, a.Rule.NetworkID, a.Rule.ID)
		}
	}

	s.apply(t, actions)
	after := Classify(l, s.rules)
	if len(after.Missing) != 0 || len(after.Stale) != 0 {
		t.Fatalf("after repair: missing %v, stale %v", purposes(after.Missing), after.Stale)
	}
	if got, want := ownedShape(l, s.rules), expectedShape(l); !slices.Equal(got, want) {
		t.Fatalf("CKS rules after repair:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The old etcd rules 1602 and 1604 still precede the new range: a scale
	// would pick 1602. Neutralising them makes the range the first pick.
	hazards := Hazards(l, s.rules, s.networkForwards())
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"1602", "1604"}) {
		t.Fatalf("hazards after repair = %v", got)
	}
	neutralise, blocked := PlanNeutralise(hazards, false)
	if len(blocked) != 0 {
		t.Fatalf("blocked = %v", blocked)
	}
	s.apply(t, neutralise)
	if fw, _ := BuggyPick(s.rules); fw.StartPort != 2222 || fw.EndPort != 2223 {
		t.Fatalf("BuggyPick after neutralise = %+v, want the node range", fw)
	}
	if err := s.scaleRules(seedLayout("w1", "w2"), BuggyPick); err != nil {
		t.Fatalf("scale-up after repair: %v", err)
	}
	if c := Classify(seedLayout("w1", "w2"), s.rules); len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("after scale-up: missing %v, stale %v", purposes(c.Missing), c.Stale)
	}
}

func TestSeed000NeutraliseThenScaleDownSucceeds(t *testing.T) {
	t.Parallel()
	s := afterScaleUp(t)
	scaled := seedLayout("w1", "w2")

	actions, blocked := PlanNeutralise(Hazards(scaled, s.onIP(snatIP), s.networkForwards()), false)
	if len(blocked) != 0 || len(actions) != 6 {
		t.Fatalf("neutralise = %d actions, %d blocked", len(actions), len(blocked))
	}
	for i, a := range actions {
		wantOp := OpDelete
		if i%2 == 1 {
			wantOp = OpCreate
		}
		if a.Op != wantOp || a.Purpose != PurposeEtcdFirewall {
			t.Fatalf("action %d = %s %s", i, a.Op, a.Purpose)
		}
	}
	if a := actions[1].Rule; a.StartPort != 50000 || a.EndPort != 50000 || !slices.Equal(a.CIDRs, []string{AnyCIDR}) || a.ID != "" {
		t.Fatalf("re-created rule = %+v", a)
	}
	s.apply(t, actions)
	if h := Hazards(scaled, s.onIP(snatIP), s.networkForwards()); len(h) != 0 {
		t.Fatalf("hazards after neutralise: %v", hazardIDs(h))
	}
	if fw, _ := BuggyPick(s.rules); fw.ID != "1606" {
		t.Fatalf("BuggyPick after neutralise = %s, want 1606", fw.ID)
	}

	s.expunge("w2")
	if err := s.scaleRules(seedLayout("w1"), BuggyPick); err != nil {
		t.Fatalf("scale-down after neutralise: %v", err)
	}
	l := seedLayout("w1")
	if got, want := ownedShape(l, s.rules), expectedShape(l); !slices.Equal(got, want) {
		t.Fatalf("CKS rules after scale-down:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The re-created etcd rules now precede the new range again: the next
	// scale needs the same treatment, which Hazards reports.
	if got := hazardIDs(Hazards(l, s.onIP(snatIP), s.networkForwards())); len(got) != 3 {
		t.Fatalf("hazards after the next scale = %v, want the 3 etcd rules", got)
	}
}

func TestFixedPickScaleDownSucceedsWithoutNeutralising(t *testing.T) {
	t.Parallel()
	s := afterScaleUp(t)
	s.expunge("w2")
	if err := s.scaleRules(seedLayout("w1"), FixedPick); err != nil {
		t.Fatalf("scale-down with the fixed pick: %v", err)
	}
	l := seedLayout("w1")
	if got, want := ownedShape(l, s.rules), expectedShape(l); !slices.Equal(got, want) {
		t.Fatalf("CKS rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
