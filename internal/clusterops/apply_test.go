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
	cloudstack.API
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

// deleteEtcdFirewall removes the etcd firewall rule 50000 behind CKS's back.
func deleteEtcdFirewall(t *testing.T, env *testEnv, ipID string) {
	t.Helper()
	for _, fw := range env.firewallRules(ipID) {
		if fw.StartPort == 50000 {
			if err := env.sim.DeleteRule(fw.ID); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no etcd firewall rule 50000")
}

func TestRepairCreateWithLostResponseIsNotRetried(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("lost-response", 1, 1)
	ipID := env.cluster(id).IPAddressID
	deleteEtcdFirewall(t, env, ipID)

	api := &lostResponseAPI{API: env.api}
	rep, err := New(api, Options{Wait: fastWait}).Repair(env.ctx(), id)
	if err != nil {
		t.Fatalf("Repair: %v\n%s", err, rep)
	}
	if n := api.creates.Load(); n != 1 {
		t.Errorf("createFirewallRule called %d times, want once", n)
	}
	steps := rep.StepsOf(StepRepaired)
	if len(steps) != 1 || !strings.HasPrefix(steps[0].Message, "created missing etcd SSH firewall rule 50000 as rule ") || steps[0].RuleID == "" {
		t.Fatalf("steps = %+v", steps)
	}
	count := 0
	for _, fw := range env.firewallRules(ipID) {
		if fw.StartPort == 50000 {
			count++
			if fw.ID != steps[0].RuleID {
				t.Errorf("rule 50000 is %s, report says %s", fw.ID, steps[0].RuleID)
			}
		}
	}
	if count != 1 {
		t.Errorf("%d firewall rules on 50000, want exactly one", count)
	}
}

func TestRepairCreateFailureIsReportedNotRetried(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("create-fails", 1, 1)
	ipID := env.cluster(id).IPAddressID
	deleteEtcdFirewall(t, env, ipID)
	env.sim.FailNextCalls("createFirewallRule", 2, 530, "injected create failure")
	env.sim.ResetCallCounts()

	rep, err := env.engine(Options{}).Repair(env.ctx(), id)
	if err == nil || !strings.Contains(err.Error(), "creating missing etcd SSH firewall rule 50000") ||
		!strings.Contains(err.Error(), "injected create failure") {
		t.Fatalf("Repair = %v, want the create failure\n%s", err, rep)
	}
	if n := env.sim.CallCounts()["createFirewallRule"]; n != 1 {
		t.Errorf("createFirewallRule called %d times, want once", n)
	}
	for _, fw := range env.firewallRules(ipID) {
		if fw.StartPort == 50000 {
			t.Errorf("rule 50000 exists after a failed create: %+v", fw)
		}
	}
}

// sharedNetworkAPI answers only what a cluster on a Shared network needs;
// any other call panics through the nil embedded API, which proves the
// engine makes no rule call there.
type sharedNetworkAPI struct {
	cloudstack.API
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
	c := seedCluster()
	c.State, c.Size, c.NetworkID = "Running", 1, "shared-net"
	api := &sharedNetworkAPI{cluster: *c}
	eng := New(api, Options{Wait: fastWait})
	ctx := t.Context()

	s, err := eng.Snapshot(ctx, c.ID)
	if err != nil || !s.Direct() || len(s.Rules) != 0 || s.PublicIPID != "" {
		t.Fatalf("Snapshot = %+v, %v; want a direct network without rules", s, err)
	}
	rep, err := eng.Repair(ctx, c.ID)
	if err != nil || rep.Changed() || len(rep.Steps) != 0 {
		t.Fatalf("Repair = %v, %s; want a no-op", err, rep)
	}
	check, err := eng.CheckScale(ctx, c.ID)
	if err != nil || check.Err() != nil || len(check.Hazards) != 0 {
		t.Fatalf("CheckScale = %+v, %v", check, err)
	}
	rep, err = eng.Scale(ctx, c.ID, 2)
	if err != nil || api.scaled == nil || *api.scaled != 2 {
		t.Fatalf("Scale = %v (scaled %v)\n%s", err, api.scaled, rep)
	}
	if scaled := rep.StepsOf(StepScaled); len(scaled) != 1 || len(rep.Steps) != 1 {
		t.Errorf("steps = %+v, want the scale only", rep.Steps)
	}
}
