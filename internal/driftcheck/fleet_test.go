package driftcheck

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// fleetOptions reach every cluster over SSH with the seeded key pair,
// trusting the simulator's host keys (each cluster has its own).
func (e *simEnv) fleetOptions() Options {
	return Options{NodeSource: NodeSourceSSH, SSH: sshlister.Config{PrivateKey: e.Sim.PrivateKeyPEM(), InsecureIgnoreHostKey: true},
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true, NodeTimeout: 10 * time.Second}
}

func (e *simEnv) mustCheckMany(c *Checker, f Filter, concurrency int) (Fleet, Stats) {
	e.T().Helper()
	fleet, st, err := c.CheckMany(context.Background(), f, e.fleetOptions(), concurrency)
	if err != nil {
		e.T().Fatalf("CheckMany: %v", err)
	}
	return fleet, st
}

func names(f Fleet) []string {
	var out []string
	for _, c := range f.Clusters {
		out = append(out, c.Name)
	}
	return out
}

func TestCheckManySharesListsAndReportsEachCluster(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	drifted := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-b", Size: 2})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-a", Size: 1})
	busy := e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-c", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "fleet-p", Size: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})
	if err := e.Sim.DeleteMapRow(drifted.ID, e.NthWorker(drifted, 1).ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetClusterState(busy.ID, "Upgrading"); err != nil {
		t.Fatal(err)
	}
	sessions := e.Sim.SSHSessions()

	fleet, st := e.mustCheckMany(e.checker(), Filter{}, 0)

	if got, want := names(fleet), []string{"fleet-a", "fleet-b", "fleet-c", "fleet-p"}; !slices.Equal(got, want) {
		t.Fatalf("clusters %v, want %v", got, want)
	}
	if fleet.InSync || fleet.Checked != 3 || fleet.Drifted != 1 || fleet.Skipped != 1 || fleet.Failed != 0 {
		t.Fatalf("fleet %+v", fleet)
	}
	assertKinds(t, fleet.Clusters[0].Result)
	b := fleet.Clusters[1].Result
	if b.InSync || b.Counts[drift.KindUnmappedVM] != 1 || b.Counts[drift.KindVMMapInconsistent] != 1 {
		t.Fatalf("fleet-b: %s", describe(b))
	}
	if !fleet.Clusters[2].Result.Skipped || fleet.Clusters[2].Node.Source != NodeSourceNone {
		t.Fatalf("fleet-c should be skipped: %+v", fleet.Clusters[2])
	}
	if fleet.Counts[drift.KindUnmappedVM] != 1 || fleet.Counts[drift.KindVMMapInconsistent] != 1 {
		t.Fatalf("fleet counts %v", fleet.Counts)
	}
	if want := "4 clusters: 2 in sync, 1 drifted ("; len(fleet.Summary) < len(want) || fleet.Summary[:len(want)] != want {
		t.Fatalf("summary %q", fleet.Summary)
	}
	// One cluster list per scope, one VM list per owner (the admin account
	// and the project), all rules once for the account's clusters and the
	// project cluster's own rules, listed with its projectid.
	want := map[string]int{"listKubernetesClusters": 2, "listVirtualMachines": 2, "listFirewallRules": 2, "listPortForwardingRules": 2, "listLoadBalancerRules": 2}
	if !maps.Equal(st.CloudStackCalls, want) {
		t.Fatalf("calls %v, want %v", st.CloudStackCalls, want)
	}
	if n := e.Sim.SSHSessions() - sessions; n != 3 || st.SSHSessions != 3 {
		t.Fatalf("SSH sessions %d (stats %d), want one per checked cluster", n, st.SSHSessions)
	}
}

// Several project clusters share one listing of every project's rules
// (projectid=-1), apart from the accounts' rules, and their rule drift is
// found like any other.
func TestCheckManySharesProjectRules(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	e.NewCluster(cloudstack.CreateClusterParams{Name: "acct-a", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "acct-b", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "prj-a", Size: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})
	broken := e.NewCluster(cloudstack.CreateClusterParams{Name: "prj-b", Size: 2, EtcdNodes: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})
	e.DeleteForward(broken, 50000)

	fleet, st := e.mustCheckMany(e.checker(), Filter{}, 0)

	if fleet.Checked != 4 || fleet.Drifted != 1 || fleet.Failed != 0 {
		t.Fatalf("fleet %s", fleet.Summary)
	}
	for _, c := range fleet.Clusters[:3] {
		assertKinds(t, c.Result)
	}
	assertKinds(t, fleet.Clusters[3].Result, drift.KindEtcdSSHRuleMissing)
	want := map[string]int{"listKubernetesClusters": 2, "listVirtualMachines": 2, "listFirewallRules": 2, "listPortForwardingRules": 2, "listLoadBalancerRules": 2}
	if !maps.Equal(st.CloudStackCalls, want) {
		t.Fatalf("calls %v, want %v", st.CloudStackCalls, want)
	}
}

func TestCheckManyCallsPerClusterDropAsTheFleetGrows(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	for _, name := range []string{"solo", "grp-1", "grp-2", "grp-3", "grp-4"} {
		e.NewCluster(cloudstack.CreateClusterParams{Name: name, Size: 1})
	}
	perCluster := func(f Filter) float64 {
		fleet, st := e.mustCheckMany(e.checker(), f, 0)
		if !fleet.InSync {
			t.Fatalf("fleet %s", fleet.Summary)
		}
		return float64(st.CloudStackRequests()) / float64(len(fleet.Clusters))
	}
	one := perCluster(Filter{NameRegex: regexp.MustCompile(`^solo$`)})
	all := perCluster(Filter{})
	if !(all < one/2) {
		t.Fatalf("%.2f requests per cluster for 5 clusters, %.2f for one: sharing does not pay off", all, one)
	}
}

func TestCheckManyFilters(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	e.NewCluster(cloudstack.CreateClusterParams{Name: "web-1", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "db-1", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "web-p", Size: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})

	fleet, st := e.mustCheckMany(e.checker(), Filter{Account: "ADMIN"}, 0)
	if got := names(fleet); !slices.Equal(got, []string{"db-1", "web-1"}) || st.CloudStackCalls["listKubernetesClusters"] != 1 {
		t.Fatalf("account filter: %v, calls %v", got, st.CloudStackCalls)
	}
	fleet, _ = e.mustCheckMany(e.checker(), Filter{ProjectID: e.Info.ProjectID}, 0)
	if got := names(fleet); !slices.Equal(got, []string{"web-p"}) {
		t.Fatalf("project filter: %v", got)
	}
	fleet, _ = e.mustCheckMany(e.checker(), Filter{NameRegex: regexp.MustCompile(`^web-`)}, 0)
	if got := names(fleet); !slices.Equal(got, []string{"web-1", "web-p"}) {
		t.Fatalf("name filter: %v", got)
	}
	fleet, _ = e.mustCheckMany(e.checker(), Filter{NameRegex: regexp.MustCompile(`^nothing$`)}, 0)
	if len(fleet.Clusters) != 0 || !fleet.InSync || fleet.Summary != "no cluster matched" {
		t.Fatalf("empty fleet %+v", fleet)
	}
}

// gaugeListers counts node listings in flight.
type gaugeListers struct {
	DefaultListers
	mu       sync.Mutex
	inFlight int
	peak     int
}

func (g *gaugeListers) SSH(cfg sshlister.Config) (nodes.Lister, error) {
	l, err := g.DefaultListers.SSH(cfg)
	if err != nil {
		return nil, err
	}
	return gaugeLister{l, g}, nil
}

type gaugeLister struct {
	nodes.Lister
	g *gaugeListers
}

func (l gaugeLister) ListNodes(ctx context.Context) ([]nodes.Node, error) {
	l.g.mu.Lock()
	l.g.inFlight++
	l.g.peak = max(l.g.peak, l.g.inFlight)
	l.g.mu.Unlock()
	defer func() {
		l.g.mu.Lock()
		l.g.inFlight--
		l.g.mu.Unlock()
	}()
	return l.Lister.ListNodes(ctx)
}

func TestCheckManyBoundsConcurrency(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	for _, name := range []string{"b-1", "b-2", "b-3", "b-4", "b-5"} {
		e.NewCluster(cloudstack.CreateClusterParams{Name: name, Size: 1})
	}
	e.Sim.SetSSHLatency(20 * time.Millisecond) // so that listings overlap
	g := &gaugeListers{}
	fleet, _ := e.mustCheckMany(&Checker{API: e.API, Listers: g}, Filter{}, 2)
	if fleet.Checked != 5 || !fleet.InSync {
		t.Fatalf("fleet %s", fleet.Summary)
	}
	if g.peak > 2 || g.peak < 1 {
		t.Fatalf("%d node listings ran at once, the limit is 2", g.peak)
	}
}

func TestCheckManyReportsPerClusterFailures(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	e.NewCluster(cloudstack.CreateClusterParams{Name: "acct-1", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "acct-2", Size: 1})
	e.NewCluster(cloudstack.CreateClusterParams{Name: "proj-1", Size: 1, Ownership: cloudstack.Ownership{ProjectID: e.Info.ProjectID}})
	e.Sim.FailNextCalls("listVirtualMachines", 1, 530, "Injected failure")

	fleet, _ := e.mustCheckMany(e.checker(), Filter{}, 0)

	if fleet.InSync || fleet.Failed == 0 || fleet.Failed+fleet.Checked != 3 {
		t.Fatalf("fleet %+v", fleet)
	}
	// The failed VM list belongs to one owner: all of its clusters fail, the
	// other owner's are checked.
	failed := map[bool][]string{}
	for _, c := range fleet.Clusters {
		failed[c.Err != nil] = append(failed[c.Err != nil], c.Name)
		if c.Err == nil && !c.Result.InSync {
			t.Fatalf("%s: %s", c.Name, describe(c.Result))
		}
	}
	if f := failed[true]; !slices.Equal(f, []string{"acct-1", "acct-2"}) && !slices.Equal(f, []string{"proj-1"}) {
		t.Fatalf("failed clusters %v: not one owner's", f)
	}
}

// A zone filter shards a fleet by zone; the simulator has one zone.
func TestCheckManyFiltersByZone(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	e.NewCluster(cloudstack.CreateClusterParams{Name: "zone-a", Size: 1})
	fleet, _ := e.mustCheckMany(e.checker(), Filter{ZoneID: e.Info.ZoneID}, 0)
	if got := names(fleet); !slices.Equal(got, []string{"zone-a"}) {
		t.Fatalf("clusters of the zone: %v", got)
	}
	fleet, st := e.mustCheckMany(e.checker(), Filter{ZoneID: "another-zone"}, 0)
	if len(fleet.Clusters) != 0 || fleet.Summary != "no cluster matched" || st.CloudStackCalls[cmdListVMs] != 0 {
		t.Fatalf("another zone: %+v, calls %v", fleet, st.CloudStackCalls)
	}
}
