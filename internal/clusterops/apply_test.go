package clusterops

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// lostResponseAPI creates firewall rules for real but reports a transport
// error, as when the response is lost on the way back.
type lostResponseAPI struct {
	API
	creates atomic.Int32
}

func (a *lostResponseAPI) CreateFirewallRule(ctx context.Context, p cloudstack.CreateFirewallRuleParams) (cloudstack.AsyncRef, error) {
	a.creates.Add(1)
	ref, err := a.API.CreateFirewallRule(ctx, p)
	if err != nil {
		return ref, err
	}
	if _, err := cloudstack.WaitForJob(ctx, a.API, ref.JobID, fastWait); err != nil {
		return ref, err
	}
	return cloudstack.AsyncRef{}, &cloudstack.Error{Command: "createFirewallRule", Text: "connection reset by peer", Err: errors.New("read: connection reset by peer")}
}

// A create whose response is lost is not sent again: the rule is looked
// for, found and reported as created.
func TestSyncCreateWithLostResponseIsNotRetried(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("lost-response", 1, 1)
	ipID := env.Cluster(id).IPAddressID

	api := &lostResponseAPI{API: env.API}
	rep, err := New(api, Options{Wait: fastWait}).Sync(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	if n := api.creates.Load(); n != 1 {
		t.Errorf("createFirewallRule called %d times, want once", n)
	}
	steps := rep.StepsOf(StepHardened)
	var created Step
	for _, st := range steps {
		if st.RuleID != "" {
			created = st
		}
	}
	if !strings.HasPrefix(created.Message, "created etcd SSH firewall range 50000-50001 from 0.0.0.0/0 as rule ") {
		t.Fatalf("steps = %+v", steps)
	}
	count := 0
	for _, fw := range env.FirewallRulesOn(ipID) {
		if fw.StartPort == 50000 {
			count++
			if fw.ID != created.RuleID || fw.EndPort != 50001 {
				t.Errorf("rule 50000 is %+v, report says %s", fw, created.RuleID)
			}
		}
	}
	if count != 1 {
		t.Errorf("%d firewall rules on 50000, want exactly one", count)
	}
}

func TestSyncCreateFailureIsReportedNotRetried(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("create-fails", 1, 1)
	ipID := env.Cluster(id).IPAddressID
	env.Sim.FailNextCalls("createFirewallRule", 1, 530, "injected create failure")
	env.Sim.ResetCallCounts()

	rep, err := env.engine().Sync(env.ctx(), id, Intent{})
	if err == nil || !strings.Contains(err.Error(), "creating etcd SSH firewall range 50000-50001") ||
		!strings.Contains(err.Error(), "injected create failure") {
		t.Fatalf("Sync = %v, want the create failure\n%s", err, rep)
	}
	if n := env.Sim.CallCounts()["createFirewallRule"]; n != 1 {
		t.Errorf("createFirewallRule called %d times, want once", n)
	}
	for _, fw := range env.FirewallRulesOn(ipID) {
		if fw.StartPort == 50000 {
			t.Errorf("rule 50000 exists after a failed create: %+v", fw)
		}
	}
	// The next sync finishes the job.
	if rep, err := env.engine().Sync(env.ctx(), id, Intent{}); err != nil {
		t.Fatalf("second Sync: %v\n%s", err, rep)
	}
	env.assertHardened(id)
}

// sharedNetworkAPI answers only what a cluster on a Shared network needs;
// any other call panics through the nil embedded API, which proves the
// engine makes no rule call there.
type sharedNetworkAPI struct {
	API
	cluster cloudstack.Cluster
	scaled  *int64
}

func (a *sharedNetworkAPI) GetKubernetesCluster(context.Context, string) (*cloudstack.Cluster, error) {
	c := a.cluster
	return &c, nil
}

func (a *sharedNetworkAPI) ListNetworks(_ context.Context, p cloudstack.ListNetworksParams) ([]cloudstack.Network, error) {
	return []cloudstack.Network{{ID: p.ID, Type: "Shared"}}, nil
}

func (a *sharedNetworkAPI) ScaleKubernetesCluster(_ context.Context, p cloudstack.ScaleClusterParams) (cloudstack.AsyncRef, error) {
	a.scaled = p.Size
	a.cluster.Size = *p.Size
	return cloudstack.AsyncRef{JobID: "job-1"}, nil
}

func (a *sharedNetworkAPI) QueryAsyncJob(context.Context, string) (cloudstack.JobStatus, error) {
	return cloudstack.JobStatus{JobID: "job-1", Status: cloudstack.JobSucceeded}, nil
}

func TestSharedNetworkHasNoRules(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	c.State, c.Size, c.NetworkID, c.ServiceOfferingID = "Running", 1, "shared-net", "offering"
	api := &sharedNetworkAPI{cluster: *c}
	eng := New(api, Options{Wait: fastWait})
	ctx := t.Context()

	s, err := eng.Snapshot(ctx, c.ID, Intent{})
	if err != nil || !s.Direct() || len(s.Rules) != 0 || s.PublicIPID != "" || !s.InSync() {
		t.Fatalf("Snapshot = %+v, %v; want a direct network without rules", s, err)
	}
	rep, err := eng.Sync(ctx, c.ID, Intent{})
	if err != nil || rep.Changed() || len(rep.Steps) != 0 {
		t.Fatalf("Sync = %v, %s; want a no-op", err, rep)
	}
	check, err := eng.CheckScale(ctx, c.ID, 2, Intent{})
	if err != nil || check.Err() != nil || len(check.Hazards) != 0 {
		t.Fatalf("CheckScale = %+v, %v", check, err)
	}
	rep, err = eng.Scale(ctx, c.ID, 2, Intent{})
	if err != nil || api.scaled == nil || *api.scaled != 2 {
		t.Fatalf("Scale = %v (scaled %v)\n%s", err, api.scaled, rep)
	}
	if scaled := rep.StepsOf(StepScaled); len(scaled) != 1 || len(rep.Steps) != 1 {
		t.Errorf("steps = %+v, want the scale only", rep.Steps)
	}
}
