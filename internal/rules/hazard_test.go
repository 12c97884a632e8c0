package rules

import (
	"slices"
	"strings"
	"testing"
)

func TestBuggyPickUserRuleBeforeRange(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		firewall("fw22", 22, 22),
		forward("pf22", 22, 22, "user-vm"),
		firewall("range", 2222, 2223),
	}
	if fw, _ := BuggyPick(rules); fw.ID != "fw22" {
		t.Errorf("BuggyPick = %s, want the user rule fw22", fw.ID)
	}
	if fw, _ := FixedPick(rules); fw.ID != "range" {
		t.Errorf("FixedPick = %s, want range", fw.ID)
	}
}

func TestBuggyPickDetails(t *testing.T) {
	t.Parallel()
	udp := firewall("udp", 2222, 2223)
	udp.Protocol = "udp"
	cases := []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"nothing", nil, ""},
		{"udp range is not listed", []Rule{udp}, ""},
		{"port-less rule never matches", []Rule{firewall("all", 0, 0), forward("p", 22, 22, "v")}, ""},
		{"forward to another port", []Rule{firewall("a", 8080, 8080), forward("p", 8080, 80, "v")}, ""},
		{"forward with other ports", []Rule{firewall("a", 50000, 50001), forward("p", 50000, 22, "v")}, ""},
		{"first listed forward decides", []Rule{
			firewall("a", 50000, 50000),
			forward("p1", 50000, 80, "v"),
			forward("p2", 50000, 22, "w"),
		}, ""},
		{"any range starting at 2222", []Rule{firewall("user", 2222, 2222, "10.0.0.0/8")}, "user"},
		{"fixed pick falls back to the forward test", []Rule{firewall("a", 50000, 50000), forward("p", 50000, 22, "v")}, "a"},
	}
	for _, tc := range cases {
		fw, ok := BuggyPick(tc.rules)
		if fw.ID != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: BuggyPick = %q, %v; want %q", tc.name, fw.ID, ok, tc.want)
		}
	}
	if fw, _ := FixedPick([]Rule{firewall("a", 50000, 50000), forward("p", 50000, 22, "v")}); fw.ID != "a" {
		t.Errorf("FixedPick fallback = %q, want a", fw.ID)
	}
}

func TestHazardsUserRules(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	rules := []Rule{
		firewall("fw22", 22, 22),
		forward("pf22", 22, 22, "user-vm"),
		firewall("fw8080", 8080, 8080),
		forward("pf8080", 8080, 80, "user-vm"),
		firewall("range", 2222, 2223),
		forward("n0", 2222, 22, "control"),
		forward("n1", 2223, 22, "w1"),
		firewall("fw-after", 9000, 9000),
		forward("pf-after", 9000, 22, "user-vm"),
	}
	hazards := Hazards(l, rules, nil)
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"fw22"}) {
		t.Fatalf("hazards = %v, want fw22 only", got)
	}
	h := hazards[0]
	if h.Kind != HazardWrongPick || h.Owner != OwnerUser || h.Purpose != PurposeUser {
		t.Errorf("hazard = %s/%s/%s", h.Kind, h.Owner, h.Purpose)
	}
	for _, want := range []string{"user firewall rule fw22", "end port, which is 22 here, so it deletes none", "range (2222-2223)", "530"} {
		if !strings.Contains(h.Explanation, want) {
			t.Errorf("explanation %q lacks %q", h.Explanation, want)
		}
	}

	actions, blocked := PlanNeutralise(hazards, false)
	if len(actions) != 0 || len(blocked) != 1 {
		t.Fatalf("without allowUser: %d actions, %d blocked", len(actions), len(blocked))
	}
	actions, blocked = PlanNeutralise(hazards, true)
	if len(actions) != 2 || len(blocked) != 0 || actions[0].Rule.ID != "fw22" || actions[1].Rule.StartPort != 22 {
		t.Fatalf("with allowUser: %+v, blocked %d", actions, len(blocked))
	}
}

func TestHazardsCollateralForwards(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1", "w2")
	s := newServer(100)
	s.provision(t, l)
	userOnOtherIP := forward("", 2223, 8080, "user-vm")
	userOnOtherIP.IPAddressID = otherIP
	far := forward("", 2300, 8080, "user-vm")
	far.IPAddressID = otherIP
	onSNAT := forward("", 2224, 8080, "user-vm")
	onSNAT.StartPort, onSNAT.EndPort = 2400, 2400
	for _, r := range []Rule{userOnOtherIP, far, onSNAT} {
		if err := s.create(r); err != nil {
			t.Fatal(err)
		}
	}

	hazards := Hazards(l, s.onIP(snatIP), s.networkForwards())
	var collateral []Hazard
	for _, h := range hazards {
		if h.Kind == HazardCollateral {
			collateral = append(collateral, h)
		}
	}
	if len(hazards) != len(collateral) || len(collateral) != 1 {
		t.Fatalf("hazards = %+v", hazards)
	}
	h := collateral[0]
	if h.Rule.StartPort != 2223 || h.Rule.IPAddressID != otherIP || h.Owner != OwnerUser {
		t.Fatalf("collateral = %+v", h.Rule)
	}
	if !strings.Contains(h.Explanation, "2222-2224") || !strings.Contains(h.Explanation, "8080") {
		t.Errorf("explanation = %q", h.Explanation)
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
	if _, blocked := PlanNeutralise(collateral, true); len(blocked) != 1 {
		t.Error("a collateral hazard cannot be neutralised")
	}
}

func TestHazardsMissingRangeAndOtherNetworks(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	rules := []Rule{
		firewall("6443", 6443, 6443),
		firewall("e0", 50000, 50000),
		forward("pe0", 50000, 22, "etcd1"),
	}
	hazards := Hazards(l, rules, nil)
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"e0"}) {
		t.Fatalf("hazards = %v", got)
	}
	if !strings.Contains(hazards[0].Explanation, "no node SSH range") {
		t.Errorf("explanation = %q", hazards[0].Explanation)
	}
	l.Network = NetworkVPC
	if got := Hazards(l, rules, nil); got != nil {
		t.Errorf("VPC hazards = %v", hazardIDs(got))
	}
}

func TestHazardsUserRuleStartingAtRange(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	rules := []Rule{
		firewall("user-wide", 2222, 2230, "10.0.0.0/8"),
		firewall("range", 2222, 2223),
		forward("n0", 2222, 22, "control"),
		forward("n1", 2223, 22, "w1"),
	}
	if fw, _ := FixedPick(rules); fw.ID != "user-wide" {
		t.Fatalf("FixedPick = %s: even the fix picks the first rule at 2222", fw.ID)
	}
	hazards := Hazards(l, rules, nil)
	if got := hazardIDs(hazards); !slices.Equal(got, []string{"user-wide"}) {
		t.Fatalf("hazards = %v", got)
	}
	if h := hazards[0]; h.Owner != OwnerUser || !strings.Contains(h.Explanation, "starts at 2222") ||
		!strings.Contains(h.Explanation, "2222-2230 (2 CKS, 0 user)") {
		t.Errorf("hazard = %+v", h)
	}
	// Re-created after the range, it is no longer picked first.
	actions, _ := PlanNeutralise(hazards, true)
	s := newServer(10)
	s.rules = rules
	s.apply(t, actions)
	if fw, _ := BuggyPick(s.rules); fw.ID != "range" {
		t.Fatalf("BuggyPick after neutralise = %s", fw.ID)
	}
}
