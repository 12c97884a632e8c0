package clusterops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
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
	// The range was tried once; the single-port etcd rule it was to replace
	// is back, so etcd SSH stays open.
	if n := env.Sim.CallCounts()["createFirewallRule"]; n != 2 {
		t.Errorf("createFirewallRule called %d times, want the range once and the restored rule once", n)
	}
	var ports []string
	for _, fw := range env.FirewallRulesOn(ipID) {
		if fw.StartPort >= 50000 {
			ports = append(ports, fmt.Sprintf("%d-%d", fw.StartPort, fw.EndPort))
		}
	}
	if !slices.Equal(ports, []string{"50000-50000"}) {
		t.Errorf("etcd firewall rules after the failed create: %v, want the single rule restored", ports)
	}
	if !strings.Contains(rep.String(), "restored etcd SSH firewall rule 50000") {
		t.Errorf("report does not say the rule was restored:\n%s", rep)
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

// A missing forward with no free port left in the node range is blocked by
// whichever rule holds its port. The step says whose rule that is: a user
// rule the engine may not delete, or a CKS forward of another node, which
// CKS needs as well.
func TestBlockedStepNamesWhoseRuleIsInTheWay(t *testing.T) {
	t.Parallel()
	fwd := func(id string, public, private int, vm string) rules.Rule {
		return rules.Rule{ID: id, Kind: rules.KindPortForward, Protocol: "tcp", StartPort: public, EndPort: public,
			PrivatePort: private, PrivateEndPort: private, VMID: vm}
	}
	c := cloudstack.Cluster{ID: "3b74274b-6554-40c2-b2cf-4329d4308544", Name: "full", ControlNodes: 1, Size: 2,
		VirtualMachines: []cloudstack.ClusterVM{{ID: "c", Name: "full-control-1932a7a3b01"},
			{ID: "w2", Name: "full-node-1932a7a3b03"}, {ID: "w1", Name: "full-node-1932a7a3b02"}}}
	ruleSet := []rules.Rule{
		{ID: "range", Kind: rules.KindFirewall, Protocol: "tcp", StartPort: 2222, EndPort: 2224, CIDRs: []string{rules.AnyCIDR}},
		fwd("ssh-c", 2222, 22, "c"), fwd("ssh-w1", 2223, 22, "w1"), fwd("user", 2224, 8080, "c"),
	}
	for _, tc := range []struct {
		name     string
		vmOrder  []int // the order the map is listed in
		conflict string
		want     string
	}{
		{"the port CKS gives w2 is the user's", []int{0, 2, 1}, "user", "(user port forward 2224→8080 to control VM full-control-1932a7a3b01 (c)), which is not CKS's to delete"},
		{"the port CKS gives w2 serves w1", []int{0, 1, 2}, "ssh-w1", "(node SSH port forward 2223→22 to worker VM full-node-1932a7a3b02 (w1)), which CKS needs too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cl := c
			cl.VirtualMachines = nil
			for _, i := range tc.vmOrder {
				cl.VirtualMachines = append(cl.VirtualMachines, c.VirtualMachines[i])
			}
			s := &Snapshot{Cluster: cl, Layout: clusterview.Layout(&cl, rules.NetworkIsolated, 0), Rules: ruleSet}
			s.Classification = rules.Classify(s.Layout, s.Rules)
			plan := rules.PlanSync(s.Layout, s.Classification)
			if len(plan.Blocked) != 1 || plan.Blocked[0].Conflict.ID != tc.conflict {
				t.Fatalf("blocked = %+v, want the missing forward of w2 blocked by %s", plan.Blocked, tc.conflict)
			}
			var rep Report
			if err := New(nil, Options{}).applySync(t.Context(), s, rules.Plan{Blocked: plan.Blocked}, &rep); err != nil {
				t.Fatal(err)
			}
			if got := rep.StepsOf(StepBlocked); len(got) != 1 || !strings.Contains(got[0].Message, tc.want) {
				t.Fatalf("blocked steps = %v, want one saying %q", got, tc.want)
			}
		})
	}
}
