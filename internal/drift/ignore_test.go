package drift

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustIgnore(t *testing.T, spec IgnoreSpec) IgnoreRule {
	t.Helper()
	r, problems := CompileIgnore(spec)
	if len(problems) > 0 {
		t.Fatalf("CompileIgnore(%+v): %v", spec, problems)
	}
	return r
}

// notReadyInput has one NotReady worker node.
func notReadyInput() Input {
	in := cleanInput()
	in.Nodes.Nodes[1].Ready = false
	return in
}

func TestIgnoreRuleMovesTheFindingWithItsReason(t *testing.T) {
	t.Parallel()
	rule := mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, NodeName: "-node-", Reason: "OPS-42: kubelet under repair",
		Expires: "2026-12-31"})
	r := ApplyIgnores(Compare(notReadyInput()), "test", []IgnoreRule{rule}, testNow)
	if len(r.Findings) != 0 || !r.InSync {
		t.Fatalf("the ignored finding still counts: %+v", r)
	}
	if len(r.Ignored) != 1 {
		t.Fatalf("ignored = %+v", r.Ignored)
	}
	ig := r.Ignored[0]
	if ig.Kind != KindNodeNotReady || ig.NodeName != worker1Name || ig.Rule != 0 || ig.Reason != "OPS-42: kubelet under repair" ||
		ig.Expires != "2026-12-31" {
		t.Fatalf("ignored finding %+v", ig)
	}
	if r.Counts[KindNodeNotReady] != 0 || r.IgnoredCounts[KindNodeNotReady] != 1 || len(r.IgnoredCounts) != len(Kinds()) {
		t.Fatalf("counts %v, ignored %v", r.Counts, r.IgnoredCounts)
	}
	if want := "in sync; 1 finding ignored (1 node_not_ready)"; r.Summary != want {
		t.Fatalf("summary %q, want %q", r.Summary, want)
	}
	if want := []RuleUse{{Matched: 1}}; !slices.Equal(r.RuleUses, want) {
		t.Fatalf("uses %+v", r.RuleUses)
	}
}

// Once the rule expires it ignores nothing, and says which findings count
// again because of that.
func TestExpiredRuleStopsIgnoring(t *testing.T) {
	t.Parallel()
	rule := mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "OPS-42", Expires: "2026-11-10T20:00:00Z"})
	r := ApplyIgnores(Compare(notReadyInput()), "test", []IgnoreRule{rule}, testNow)
	assertKinds(t, r, KindNodeNotReady)
	if len(r.Ignored) != 0 || r.Summary != "1 finding: 1 node_not_ready" {
		t.Fatalf("ignored %+v, summary %q", r.Ignored, r.Summary)
	}
	if want := []RuleUse{{Expired: true, ExpiredMatches: 1}}; !slices.Equal(r.RuleUses, want) {
		t.Fatalf("uses %+v", r.RuleUses)
	}
	// A rule expiring on a date stops at the start of that day (UTC).
	day := mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "r", Expires: "2026-11-11"})
	if day.Expired(testNow) || !day.Expired(time.Date(2026, 11, 11, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("date expiry %v", day.Expires)
	}
}

// The first live rule that matches takes the finding; a rule that matches
// nothing is stale; criteria combine.
func TestIgnoreRuleMatching(t *testing.T) {
	t.Parallel()
	in := notReadyInput()
	removeMapRow(&in, "493") // unmapped_vm and vm_map_inconsistent too
	rules := []IgnoreRule{
		mustIgnore(t, IgnoreSpec{Kind: KindUnmappedVM, Reason: "expired", Expires: "2020-01-01"}),
		mustIgnore(t, IgnoreSpec{VMName: "^test-node-1a1c6ebf01d$", Reason: "VM being rebuilt"}),
		mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, VMName: "control", Reason: "wrong VM"}),
		mustIgnore(t, IgnoreSpec{ClusterName: "^test$", NodeName: ".", Reason: "any node of test"}),
		mustIgnore(t, IgnoreSpec{Kind: KindScaleHazard, Reason: "stale"}),
	}
	r := ApplyIgnores(Compare(in), "test", rules, testNow)
	assertKindsOnly(t, r, KindVMMapInconsistent)
	if len(r.Ignored) != 2 || r.Ignored[0].Kind != KindUnmappedVM || r.Ignored[0].Rule != 1 ||
		r.Ignored[1].Kind != KindNodeNotReady || r.Ignored[1].Rule != 3 {
		t.Fatalf("ignored %+v", r.Ignored)
	}
	want := []RuleUse{{Expired: true}, {Matched: 1}, {}, {Matched: 1}, {}}
	if !slices.Equal(r.RuleUses, want) {
		t.Fatalf("uses %+v, want %+v", r.RuleUses, want)
	}
	for i, stale := range []bool{true, false, true, false, true} {
		if r.RuleUses[i].Stale() != stale {
			t.Errorf("rule %d stale = %v", i, !stale)
		}
	}
	// Another cluster's name does not match.
	r = ApplyIgnores(Compare(notReadyInput()), "prod", rules[3:4], testNow)
	assertKindsOnly(t, r, KindNodeNotReady)
}

// Skipped clusters have nothing to ignore; incomplete ones keep failing
// closed.
func TestIgnoreSkippedAndIncomplete(t *testing.T) {
	t.Parallel()
	rules := []IgnoreRule{mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "r", Expires: "2020-01-01"})}
	in := cleanInput()
	in.Cluster.State = "Scaling"
	r := ApplyIgnores(Compare(in), "test", rules, testNow)
	if !r.Skipped || len(r.RuleUses) != 1 || !r.RuleUses[0].Expired || r.Summary != "skipped: "+r.SkipReason {
		t.Fatalf("skipped %+v", r)
	}

	in = notReadyInput()
	in.Rules = &RulesView{Err: errors.New("no network")}
	rules = []IgnoreRule{mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "r"})}
	r = ApplyIgnores(Compare(in), "test", rules, testNow)
	if r.InSync || len(r.Findings) != 0 {
		t.Fatalf("incomplete %+v", r)
	}
	if want := "incomplete: no finding in the views checked; 1 finding ignored (1 node_not_ready); network rules not checked: no network"; r.Summary != want {
		t.Fatalf("summary %q", r.Summary)
	}
}

func TestCompileIgnoreNamesEachProblem(t *testing.T) {
	t.Parallel()
	_, problems := CompileIgnore(IgnoreSpec{Kind: "node_down", VMName: "(", NodeName: "[", Reason: "  ", Expires: "31/12/2026"})
	fields := map[string]string{}
	for _, p := range problems {
		fields[p.Field] = p.Error()
	}
	for field, want := range map[string]string{
		IgnoreFieldKind:     `"node_down" is not a finding kind`,
		IgnoreFieldVMName:   "vm_name: not a Go regular expression",
		IgnoreFieldNodeName: "node_name: not a Go regular expression",
		IgnoreFieldReason:   "a reason is mandatory",
		IgnoreFieldExpires:  "neither an RFC 3339 date (2026-12-31) nor a date-time",
	} {
		if !strings.Contains(fields[field], want) {
			t.Errorf("%s: %q lacks %q", field, fields[field], want)
		}
	}
	if _, problems := CompileIgnore(IgnoreSpec{Reason: "everything"}); len(problems) != 1 || problems[0].Field != "" ||
		!strings.Contains(problems[0].Error(), "at least one of kind, vm_name, node_name and cluster_name") {
		t.Fatalf("a rule without criteria: %v", problems)
	}
	r := mustIgnore(t, IgnoreSpec{ClusterName: "^prod-", Reason: " r ", Expires: "2026-12-31T18:00:00+01:00"})
	if r.Reason != "r" || !r.Expires.Equal(time.Date(2026, 12, 31, 17, 0, 0, 0, time.UTC)) {
		t.Fatalf("rule %+v", r)
	}
}

// A rule whose every finding an earlier rule takes ignores nothing, and is
// not stale either: it is shadowed, by the earliest rule that took one.
func TestIgnoreRuleShadowedByAnEarlierOne(t *testing.T) {
	t.Parallel()
	rules := []IgnoreRule{
		mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "OPS-1 every NotReady node"}),
		mustIgnore(t, IgnoreSpec{NodeName: "-node-", Reason: "OPS-2 the worker"}),
		mustIgnore(t, IgnoreSpec{Kind: KindScaleHazard, Reason: "nothing of the kind"}),
	}
	r := ApplyIgnores(Compare(notReadyInput()), "test", rules, testNow)
	want := []RuleUse{{Matched: 1}, {Shadowed: 1, ShadowedBy: 0}, {}}
	if !slices.Equal(r.RuleUses, want) {
		t.Fatalf("uses %+v, want %+v", r.RuleUses, want)
	}
	if r.RuleUses[1].Stale() || !r.RuleUses[2].Stale() {
		t.Fatalf("stale: shadowed %v, matching nothing %v", r.RuleUses[1].Stale(), r.RuleUses[2].Stale())
	}
	// Added up over a fleet, the earliest rule that shadowed it is kept.
	total := AddRuleUses(make([]RuleUse, 3), []RuleUse{{}, {Shadowed: 2, ShadowedBy: 3}, {}})
	total = AddRuleUses(total, r.RuleUses)
	if total[1].Shadowed != 3 || total[1].ShadowedBy != 0 {
		t.Fatalf("total %+v", total[1])
	}
}

// An expiry written as "" is no date: it is refused rather than read as
// "never", which is what leaving it out says.
func TestCompileIgnoreRefusesAnEmptyExpiry(t *testing.T) {
	t.Parallel()
	_, problems := CompileIgnore(IgnoreSpec{Kind: KindNodeNotReady, Reason: "r", Expires: "", ExpiresSet: true})
	if len(problems) != 1 || problems[0].Field != IgnoreFieldExpires || !strings.Contains(problems[0].Error(), "leave expires out") {
		t.Fatalf("problems %v", problems)
	}
	if r := mustIgnore(t, IgnoreSpec{Kind: KindNodeNotReady, Reason: "r"}); !r.Expires.IsZero() {
		t.Fatalf("a rule without expires expires at %v", r.Expires)
	}
}
