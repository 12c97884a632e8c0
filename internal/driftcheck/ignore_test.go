package driftcheck

import (
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// Ignore rules apply cluster by cluster across a fleet: the ignored
// findings stay reported with their reason, the fleet adds up what each
// rule did, and a rule that matched nothing anywhere shows as stale.
func TestCheckManyAppliesIgnoreRules(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "ign-a", Size: 1})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "ign-b", Size: 1})
	for _, cl := range []*cloudstack.Cluster{a, b} {
		if err := e.Sim.StopKubelet(e.NthWorker(cl, 0).ID, true); err != nil {
			t.Fatal(err)
		}
	}
	rule := func(spec drift.IgnoreSpec) drift.IgnoreRule {
		r, problems := drift.CompileIgnore(spec)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		return r
	}
	opts := e.fleetOptions()
	opts.Ignore = []drift.IgnoreRule{
		rule(drift.IgnoreSpec{Kind: drift.KindNodeNotReady, ClusterName: "^ign-a$", Reason: "OPS-1 kubelet under repair"}),
		rule(drift.IgnoreSpec{Kind: drift.KindNodeNotReady, ClusterName: "^ign-b$", Reason: "OPS-2", Expires: "2020-01-01"}),
		rule(drift.IgnoreSpec{Kind: drift.KindScaleHazard, Reason: "nothing of the kind"}),
	}
	fleet, _, err := e.checker().CheckMany(t.Context(), Filter{}, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := fleet.Clusters[0].Result, fleet.Clusters[1].Result
	assertKinds(t, ra)
	if len(ra.Ignored) != 1 || ra.Ignored[0].Reason != "OPS-1 kubelet under repair" || ra.Ignored[0].Rule != 0 {
		t.Fatalf("ign-a ignored %+v", ra.Ignored)
	}
	assertKinds(t, rb, drift.KindNodeNotReady)
	if fleet.InSync || fleet.Counts[drift.KindNodeNotReady] != 1 || fleet.IgnoredCounts[drift.KindNodeNotReady] != 1 {
		t.Fatalf("fleet counts %v, ignored %v", fleet.Counts, fleet.IgnoredCounts)
	}
	want := []drift.RuleUse{{Matched: 1}, {Expired: true, ExpiredMatches: 1}, {}}
	if !slices.Equal(fleet.RuleUses, want) {
		t.Fatalf("rule uses %+v, want %+v", fleet.RuleUses, want)
	}
	if want := "2 clusters: 1 in sync, 1 drifted (1 finding: 1 node_not_ready), 1 finding ignored (1 node_not_ready)"; fleet.Summary != want {
		t.Fatalf("summary %q", fleet.Summary)
	}
}
