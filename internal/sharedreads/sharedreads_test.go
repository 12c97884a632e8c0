package sharedreads_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/sharedreads"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// fixture is a simulator with clusters in CKS's layout, hardened by the
// provider's engine so that every one is in sync, and a shared-read engine
// over the simulator's client.
type fixture struct {
	env      *simtest.Env
	shared   *sharedreads.API
	engine   *clusterops.Engine
	clusters []*cloudstack.Cluster
}

var isolated = clusterops.Intent{Network: rules.NetworkIsolated}

// newFixture creates accountClusters clusters of the admin's account and
// projectClusters of its project; ttl is the shared lists' lifetime.
func newFixture(t *testing.T, accountClusters, projectClusters int, ttl time.Duration) *fixture {
	t.Helper()
	env := simtest.Start(t, simtest.WithOrderedList(), simtest.WithJobQueueDelay(time.Millisecond))
	fresh := clusterops.New(env.API, clusterops.Options{Wait: simtest.FastWait})
	f := &fixture{env: env}
	for i := range accountClusters + projectClusters {
		p := cloudstack.CreateClusterParams{Name: "shared-" + string(rune('a'+i))}
		if i >= accountClusters {
			p.ProjectID = env.Info.ProjectID
		}
		cl := env.NewCluster(p)
		if _, err := fresh.Update(t.Context(), cl.ID, clusterops.UpdateRequest{Intent: isolated}); err != nil {
			t.Fatalf("bringing cluster %s to the provider's layout: %v", cl.Name, err)
		}
		f.clusters = append(f.clusters, env.Cluster(cl.ID))
	}
	f.shared = sharedreads.New(env.API, sharedreads.Options{TTL: ttl, ShareFrom: 1})
	f.engine = clusterops.New(f.shared, clusterops.Options{Wait: simtest.FastWait})
	return f
}

// observeAll refreshes every cluster at once, as Terraform's refresh does,
// with ctx's marking.
func (f *fixture) observeAll(t *testing.T, ctx context.Context) map[string]*clusterops.Observation {
	t.Helper()
	var mu sync.Mutex
	out := map[string]*clusterops.Observation{}
	var wg sync.WaitGroup
	for _, cl := range f.clusters {
		wg.Go(func() {
			obs, err := f.engine.Observe(ctx, cl.ID, isolated)
			if err != nil {
				t.Errorf("observing cluster %s: %v", cl.Name, err)
				return
			}
			mu.Lock()
			out[cl.ID] = obs
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// observe refreshes one cluster with ctx's marking.
func (f *fixture) observe(t *testing.T, ctx context.Context, cl *cloudstack.Cluster) *clusterops.Observation {
	t.Helper()
	obs, err := f.engine.Observe(ctx, cl.ID, isolated)
	if err != nil {
		t.Fatalf("observing cluster %s: %v", cl.Name, err)
	}
	if obs.RulesErr != nil {
		t.Fatalf("reading the rules of cluster %s: %v", cl.Name, obs.RulesErr)
	}
	return obs
}

// TestSharedRefreshListsEachKindOncePerOwner: six clusters of an account
// and two of a project, refreshed at once, cost one list of clusters per
// scope and one list of firewall rules and of forwards per owner, and read
// exactly what a fresh read of each cluster reads. (Two in the project: a
// project cluster left out of the lists costs a read by id, which for one
// cluster alone adds up to the same count.)
func TestSharedRefreshListsEachKindOncePerOwner(t *testing.T) {
	f := newFixture(t, 6, 2, time.Minute)
	want := map[string]*clusterops.Observation{}
	for _, cl := range f.clusters {
		want[cl.ID] = f.observe(t, t.Context(), cl)
	}
	f.env.Sim.ResetCallCounts()
	got := f.observeAll(t, sharedreads.Shared(t.Context()))
	calls := f.env.Sim.CallCounts()
	for cmd, most := range map[string]int64{"listKubernetesClusters": 2, "listFirewallRules": 2, "listPortForwardingRules": 2} {
		if calls[cmd] > most {
			t.Errorf("%d %s calls for %d clusters, want at most %d (one per scope)", calls[cmd], cmd, len(f.clusters), most)
		}
	}
	if total := calls["listKubernetesClusters"] + calls["listFirewallRules"] + calls["listPortForwardingRules"]; total == 0 {
		t.Fatalf("no call at all: %v", calls)
	}
	for _, cl := range f.clusters {
		g, w := got[cl.ID], want[cl.ID]
		if g == nil {
			t.Fatalf("cluster %s (project %q) was not observed", cl.Name, cl.ProjectID)
		}
		if g.RulesErr != nil || !g.RulesRead || g.RulesInSync != w.RulesInSync || g.Cluster.State != w.Cluster.State ||
			g.Cluster.Size != w.Cluster.Size || len(g.Nodes()) != len(w.Nodes()) {
			t.Errorf("cluster %s: shared read %+v, fresh read %+v", cl.Name, g, w)
		}
		for i, n := range g.Nodes() {
			if n != w.Nodes()[i] {
				t.Errorf("cluster %s node %d: shared read %+v, fresh read %+v", cl.Name, i, n, w.Nodes()[i])
			}
		}
	}
}

// TestSharedRefreshSeesAChangeOnceItsListsExpire: another client deletes a
// cluster's SSH forward. A new process (a new plan) sees it at once, and
// the same process as soon as the lists it holds are older than their
// lifetime; only within that lifetime does it still serve what it listed.
func TestSharedRefreshSeesAChangeOnceItsListsExpire(t *testing.T) {
	const ttl = 300 * time.Millisecond
	f := newFixture(t, 1, 1, ttl)
	cl := f.clusters[0]
	ctx := sharedreads.Shared(t.Context())
	if obs := f.observe(t, ctx, cl); !obs.RulesInSync {
		t.Fatalf("cluster %s starts out of sync: %+v", cl.Name, obs.Sync)
	}
	f.env.DeleteForward(cl, 2222)

	nextPlan := clusterops.New(sharedreads.New(f.env.API, sharedreads.Options{TTL: ttl, ShareFrom: 1}), clusterops.Options{})
	if obs, err := nextPlan.Observe(ctx, cl.ID, isolated); err != nil || obs.RulesInSync {
		t.Errorf("the next plan's refresh misses the deleted forward (err %v)", err)
	}
	time.Sleep(ttl)
	if obs := f.observe(t, ctx, cl); obs.RulesInSync {
		t.Errorf("a refresh %s after the change misses the deleted forward", ttl)
	}
}

// TestApplyNeverActsOnASharedRead: the refresh of a plan reads the rules
// through shared lists that live a minute; then another client deletes
// the cluster's SSH forward. The shared lists still show it (which is why
// an apply must not use them), but the apply's engine call, whose context
// is not shared, reads fresh, sees the forward missing and re-creates it;
// and the write drops the lists, so the read-back sees the new forward.
func TestApplyNeverActsOnASharedRead(t *testing.T) {
	f := newFixture(t, 1, 1, time.Minute)
	cl := f.clusters[0]
	shared := sharedreads.Shared(t.Context())
	if obs := f.observe(t, shared, cl); !obs.RulesInSync {
		t.Fatalf("cluster %s starts out of sync: %+v", cl.Name, obs.Sync)
	}
	f.env.DeleteForward(cl, 2222)
	if obs := f.observe(t, shared, cl); !obs.RulesInSync {
		t.Fatalf("the shared lists already show the change; the test proves nothing")
	}
	before := len(f.env.Forwards(cl))
	if _, err := f.engine.Update(t.Context(), cl.ID, clusterops.UpdateRequest{Intent: isolated}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if after := len(f.env.Forwards(cl)); after != before+1 {
		t.Errorf("the apply left %d forwards, want the %d left plus the one re-created", after, before)
	}
	if obs := f.observe(t, shared, cl); !obs.RulesInSync {
		t.Errorf("the refresh after the apply is served the lists from before it: %+v", obs.Sync)
	}
	// The lists from before the apply show the deleted forward too, which
	// is in sync as well: only its id tells them from a fresh read.
	read, err := f.shared.ListPortForwardingRules(shared, cloudstack.ListRulesParams{NetworkID: cl.NetworkID, ListAll: true})
	if err != nil {
		t.Fatalf("reading the forwards after the apply: %v", err)
	}
	if got, want := ruleIDs(read), ruleIDs(f.env.Forwards(cl)); !slices.Equal(got, want) {
		t.Errorf("the refresh after the apply reads forwards %v, CloudStack has %v", got, want)
	}
}

// ruleIDs are the sorted ids of forwards.
func ruleIDs(rules []cloudstack.PortForwardingRule) []string {
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestFewClustersAreReadOneByOne: a process that refreshes fewer clusters
// than DefaultShareFrom reads each one by itself, as without shared reads,
// so that a small workspace never lists every cluster and rule an
// administrator may see; reading them again within a second costs nothing.
func TestFewClustersAreReadOneByOne(t *testing.T) {
	f := newFixture(t, 2, 1, time.Minute)
	f.engine = clusterops.New(sharedreads.New(f.env.API, sharedreads.Options{}), clusterops.Options{Wait: simtest.FastWait})
	f.env.Sim.ResetCallCounts()
	f.observeAll(t, sharedreads.Shared(t.Context()))
	calls := f.env.Sim.CallCounts()
	n := int64(len(f.clusters))
	// By id, an administrator finds the project's cluster at once.
	for cmd, want := range map[string]int64{"listKubernetesClusters": n, "listFirewallRules": n, "listPortForwardingRules": n} {
		if calls[cmd] != want {
			t.Errorf("%d %s calls for %d clusters read one by one, want %d: %v", calls[cmd], cmd, n, want, calls)
		}
	}
	// The plan's checks of the same clusters, right after their refresh,
	// are served what the refresh read.
	f.env.Sim.ResetCallCounts()
	f.observeAll(t, sharedreads.Shared(t.Context()))
	if calls := f.env.Sim.CallCounts(); len(calls) != 0 {
		t.Errorf("reading the same clusters again within a second made calls: %v", calls)
	}
}

// wholeListsFail is a CloudStack whose lists of every rule of an owner
// fail, as one page of many may (a 530, a proxy's timeout), while the
// lists of one IP address or network answer.
type wholeListsFail struct{ cloudstack.API }

var errWholeList = &cloudstack.Error{Command: "listFirewallRules", HTTPStatus: 530, Text: "page 2 failed"}

func (w wholeListsFail) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	if p.IPAddressID == "" && p.NetworkID == "" {
		return nil, errWholeList
	}
	return w.API.ListFirewallRules(ctx, p)
}

func (w wholeListsFail) ListPortForwardingRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.PortForwardingRule, error) {
	if p.IPAddressID == "" && p.NetworkID == "" {
		return nil, errWholeList
	}
	return w.API.ListPortForwardingRules(ctx, p)
}

// TestAFailedSharedListFallsBackToEachReadsOwn: the owner's whole rule
// lists fail; every cluster's refresh then asks for its own rules, which
// CloudStack answers, instead of failing with a list it never needed.
func TestAFailedSharedListFallsBackToEachReadsOwn(t *testing.T) {
	f := newFixture(t, 3, 0, time.Minute)
	f.engine = clusterops.New(sharedreads.New(wholeListsFail{f.env.API}, sharedreads.Options{TTL: time.Minute, ShareFrom: 1}),
		clusterops.Options{Wait: simtest.FastWait})
	for _, cl := range f.clusters {
		if obs := f.observe(t, sharedreads.Shared(t.Context()), cl); !obs.RulesInSync {
			t.Errorf("cluster %s is read out of sync after a failed shared list: %+v", cl.Name, obs.Sync)
		}
	}
}

// releasedAddress is a CloudStack on which one address was released: its
// rules are gone from every list, and a list of its rules answers 431.
type releasedAddress struct {
	cloudstack.API
	ipID string
}

var errReleased = &cloudstack.Error{Command: "listFirewallRules", HTTPStatus: 431, Text: "Ip address id not ready for firewall rules yet"}

func (r releasedAddress) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	if p.IPAddressID == r.ipID {
		return nil, errReleased
	}
	all, err := r.API.ListFirewallRules(ctx, p)
	return slices.DeleteFunc(all, func(fw cloudstack.FirewallRule) bool { return fw.IPAddressID == r.ipID }), err
}

// TestNoRuleInTheSharedListIsAskedOfTheServer: the shared list holds no
// rule of a released address; the read of its rules is asked of
// CloudStack, whose 431 says the address is gone, instead of answering
// "no rules".
func TestNoRuleInTheSharedListIsAskedOfTheServer(t *testing.T) {
	f := newFixture(t, 2, 0, time.Minute)
	released := f.clusters[0].IPAddressID
	shared := sharedreads.New(releasedAddress{API: f.env.API, ipID: released}, sharedreads.Options{TTL: time.Minute, ShareFrom: 1})
	ctx := sharedreads.Shared(t.Context())
	if _, err := shared.GetKubernetesCluster(ctx, f.clusters[1].ID); err != nil {
		t.Fatalf("reading a cluster: %v", err)
	}
	if _, err := shared.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: f.clusters[1].IPAddressID, ListAll: true}); err != nil {
		t.Fatalf("reading the rules of a cluster's address: %v", err)
	}
	rules, err := shared.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: released, ListAll: true})
	if !errors.Is(err, errReleased) {
		t.Errorf("the rules of a released address read %v, %v, want the server's 431", rules, err)
	}
	if shared.ListCalls() == 0 {
		t.Errorf("no shared list was asked for: the test proves nothing")
	}
}
