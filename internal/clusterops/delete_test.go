package clusterops

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// userRulesOn adds two user firewall rules on the IP: one from a user CIDR,
// one that looks like an etcd rule of a fourth etcd VM. Both must survive
// the cluster. It returns their ids.
func (e *testEnv) userRulesOn(ipID string) []string {
	e.T().Helper()
	ctx := e.ctx()
	var ids []string
	for _, p := range []cloudstack.CreateFirewallRuleParams{
		{IPAddressID: ipID, Protocol: "tcp", StartPort: 8443, EndPort: 8443, CIDRList: []string{userCIDR}},
		{IPAddressID: ipID, Protocol: "tcp", StartPort: 50003, EndPort: 50003, CIDRList: []string{"0.0.0.0/0"}},
	} {
		ref, err := e.API.CreateFirewallRule(ctx, p)
		if err != nil {
			e.T().Fatalf("createFirewallRule %d: %v", p.StartPort, err)
		}
		if _, err := cloudstack.WaitForJob(ctx, e.API, ref.JobID, fastWait); err != nil {
			e.T().Fatal(err)
		}
		ids = append(ids, ref.ID)
	}
	return ids
}

// On a network the user supplied, CloudStack's destroy revokes one SSH
// firewall rule (the node range) and leaves the etcd SSH rules behind: the
// provider's etcd SSH range, or CKS's single-port rules on a cluster the
// provider never touched, and the narrowed node range when ssh_cidrs is set.
// Delete removes exactly those and keeps the user's rules.
func TestDeleteRemovesLeftoverRulesOnUserNetwork(t *testing.T) {
	t.Parallel()
	singles := []string{"etcd SSH firewall rule 50000", "etcd SSH firewall rule 50001", "etcd SSH firewall rule 50002"}
	layouts := []struct {
		name  string
		in    *Intent // nil: CKS's own layout, never synced
		leaks []string
	}{
		{"cks-layout", nil, singles},
		{"hardened", &Intent{}, []string{"etcd SSH firewall range 50000-50002"}},
		{"narrowed", &Intent{SourceCIDRs: rules.SourceCIDRs{SSHCIDRs: []string{"10.0.0.0/8"}}}, []string{"etcd SSH firewall range 50000-50002"}},
	}
	for _, profile := range simulator.Profiles() {
		for _, tc := range layouts {
			t.Run(profile+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				env := newEnv(t, profile)
				id := env.createClusterIn("user-network", env.Info.IsolatedNetworkID, 3, 1)
				ipID := env.Cluster(id).IPAddressID
				in := Intent{}
				if tc.in != nil {
					in = *tc.in
					if rep, err := env.engine().Scale(env.ctx(), id, 2, in); err != nil {
						t.Fatalf("Scale: %v\n%s", err, rep)
					}
				}
				userRules := env.userRulesOn(ipID)

				rep, err := env.engine().Delete(env.ctx(), id, in)
				if err != nil {
					t.Fatalf("Delete: %v\n%s", err, rep)
				}
				var removed []string
				for _, st := range rep.StepsOf(StepRemoved) {
					if st.PreviousRuleID == "" {
						t.Errorf("removed step without a rule id: %q", st.Message)
					}
					removed = append(removed, strings.TrimPrefix(strings.SplitN(st.Message, " (rule", 2)[0], "deleted "))
				}
				if !slices.Equal(removed, tc.leaks) {
					t.Fatalf("removed %q, want %q:\n%s", removed, tc.leaks, rep)
				}
				if _, err := env.API.GetKubernetesCluster(env.ctx(), id); !cloudstack.IsNotFound(err) {
					t.Errorf("the cluster still exists: %v", err)
				}
				var left []string
				for _, fw := range env.FirewallRulesOn(ipID) {
					left = append(left, fw.ID)
				}
				slices.Sort(left)
				want := slices.Sorted(slices.Values(userRules))
				if !slices.Equal(left, want) {
					t.Errorf("firewall rules left %v, want only the user's %v", firewallShape(env.FirewallRulesOn(ipID)), want)
				}
				if pfs := env.ForwardsOn(ipID); len(pfs) != 0 {
					t.Errorf("forwards left: %+v", pfs)
				}
			})
		}
	}
}

// On a network CKS created, the network goes with its rules: nothing is
// left and Delete has nothing to remove. A cluster that is gone is
// NotFound.
func TestDeleteOnCKSNetwork(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("own-network", 3, 1)
	eng := env.engine()

	rep, err := eng.Delete(env.ctx(), id, Intent{})
	if err != nil || len(rep.Steps) != 0 {
		t.Fatalf("Delete = %v, steps:\n%s", err, rep)
	}
	if d := env.Sim.DumpState(); len(d.Rules) != 0 {
		t.Errorf("rules left: %+v", d.Rules)
	}
	if _, err := eng.Delete(env.ctx(), id, Intent{}); !cloudstack.IsNotFound(err) {
		t.Errorf("Delete of a deleted cluster = %v, want NotFound", err)
	}
}

// userAPIRuleThenNarrowed adds a user's TCP rule on 6443 from 10.0.0.0/8 to
// the cluster's IP, then has the engine narrow the cluster's API rule to
// 127.0.0.1/32, which makes the provider's rule the younger. It returns the
// user rule's id and the intent.
func (e *testEnv) userAPIRuleThenNarrowed(t *testing.T, id string) (string, Intent) {
	t.Helper()
	ref, err := e.API.CreateFirewallRule(e.ctx(), cloudstack.CreateFirewallRuleParams{IPAddressID: e.Cluster(id).IPAddressID,
		Protocol: "tcp", StartPort: 6443, EndPort: 6443, CIDRList: []string{"10.0.0.0/8"}})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatal(err)
	}
	in := Intent{SourceCIDRs: rules.SourceCIDRs{APICIDRs: []string{"127.0.0.1/32"}}}
	if rep, err := e.engine().Sync(e.ctx(), id, in); err != nil {
		t.Fatalf("Sync: %v\n%s", err, rep)
	}
	return ref.ID, in
}

// newEnvWithWorkerOrder starts a simulator whose workers read firewall
// rules in the given order (simulator.Options.WorkerRuleOrder).
func newEnvWithWorkerOrder(t *testing.T, order string) *testEnv {
	t.Helper()
	return &testEnv{Env: simtest.Start(t, simtest.WithJobDuration(3*time.Millisecond),
		simtest.WithOptions(func(o *simulator.Options) { o.WorkerRuleOrder = order }))}
}

// On a user network the destroy revokes the first TCP rule of exactly 6443,
// in an order nothing promises: with the provider's API rule re-created for
// api_cidrs after a user's 6443 rule, it takes the user's rule when it reads
// rules oldest first. Delete re-creates the user's rule, with its CIDRs, and
// says so; in the other order it has nothing to restore. Either way only the
// user's rule is left on 6443.
func TestDeleteRestoresTheUserRuleTheDestroyTook(t *testing.T) {
	t.Parallel()
	for _, order := range []string{simulator.WorkerRuleOrderAscending, simulator.WorkerRuleOrderDescending} {
		t.Run(cmp.Or(order, "ascending"), func(t *testing.T) {
			t.Parallel()
			env := newEnvWithWorkerOrder(t, order)
			id := env.createClusterIn("user-api", env.Info.IsolatedNetworkID, 1, 1)
			ipID := env.Cluster(id).IPAddressID
			userRule, in := env.userAPIRuleThenNarrowed(t, id)

			rep, err := env.engine().Delete(env.ctx(), id, in)
			if err != nil {
				t.Fatalf("Delete: %v\n%s", err, rep)
			}
			if got := firewallShape(env.FirewallRulesOn(ipID)); !slices.Equal(got, []string{"tcp 6443 [10.0.0.0/8]"}) {
				t.Fatalf("firewall rules left %v, want only the user's 6443 rule\n%s", got, rep)
			}
			restored := rep.StepsOf(StepRestored)
			if order == simulator.WorkerRuleOrderAscending {
				if len(restored) != 1 || restored[0].PreviousRuleID != userRule || restored[0].RuleID == "" ||
					!strings.Contains(restored[0].Message, "re-created your firewall rule tcp 6443 from 10.0.0.0/8") {
					t.Fatalf("restored %+v\n%s", restored, rep)
				}
			} else if len(restored) != 0 || len(rep.StepsOf(StepBlocked)) != 0 {
				t.Fatalf("the destroy took the provider's rule, yet:\n%s", rep)
			}
			if len(rep.Memo.UserRulesAtRisk) != 1 || rep.Memo.UserRulesAtRisk[0].ID != userRule {
				t.Fatalf("rules at risk %+v", rep.Memo.UserRulesAtRisk)
			}
		})
	}
}

// A destroy that fails after its revokes leaves the cluster in Destroying,
// its VM map gone, and may have taken the user's rule: Delete re-creates it
// then too, and its memo lets the next attempt remove the CKS rules left
// (the etcd SSH range, which no VM map tells as CKS's any more) and restore
// the user's rule again if its destroy takes it once more.
func TestDeleteRestoresTheUserRuleAfterAFailedDestroy(t *testing.T) {
	t.Parallel()
	env := newEnvWithWorkerOrder(t, simulator.WorkerRuleOrderAscending)
	id := env.createClusterIn("user-api-fail", env.Info.IsolatedNetworkID, 1, 1)
	ipID := env.Cluster(id).IPAddressID
	_, in := env.userAPIRuleThenNarrowed(t, id)
	if err := env.Sim.FailJobStep("delete", "forwards", 1, ""); err != nil {
		t.Fatal(err)
	}
	rep, err := env.engine().Delete(env.ctx(), id, in)
	if !cloudstack.IsJobFailure(err) {
		t.Fatalf("Delete = %v, want the job's failure\n%s", err, rep)
	}
	if len(rep.StepsOf(StepRestored)) != 1 || !slices.Contains(firewallShape(env.FirewallRulesOn(ipID)), "tcp 6443 [10.0.0.0/8]") {
		t.Fatalf("after the failed destroy: %v\n%s", firewallShape(env.FirewallRulesOn(ipID)), rep)
	}
	if c := env.Cluster(id); c.State != "Destroying" || len(c.VirtualMachines) != 0 {
		t.Fatalf("state %s, VMs %d", c.State, len(c.VirtualMachines))
	}
	if len(rep.Memo.ClusterRules) == 0 {
		t.Fatalf("memo without the cluster's rules: %+v", rep.Memo)
	}
	// The next attempt knows the rule from the first one.
	in.EarlierDelete = rep.Memo
	rep, err = env.engine().Delete(env.ctx(), id, in)
	if err != nil {
		t.Fatalf("Delete again: %v\n%s", err, rep)
	}
	if got := firewallShape(env.FirewallRulesOn(ipID)); !slices.Equal(got, []string{"tcp 6443 [10.0.0.0/8]"}) {
		t.Fatalf("firewall rules left %v\n%s", got, rep)
	}
}

// Re-creating the rule the destroy took fails for good: the warning names
// it with what it takes to create it again, and the delete still succeeds.
func TestDeleteSaysWhichUserRuleItCouldNotRestore(t *testing.T) {
	t.Parallel()
	env := newEnvWithWorkerOrder(t, simulator.WorkerRuleOrderAscending)
	id := env.createClusterIn("user-api-lost", env.Info.IsolatedNetworkID, 0, 1)
	userRule, in := env.userAPIRuleThenNarrowed(t, id)
	env.Sim.FailNextCalls("createFirewallRule", restoreAttempts, 530, "")
	rep, err := env.engine().Delete(env.ctx(), id, in)
	if err != nil {
		t.Fatalf("Delete: %v\n%s", err, rep)
	}
	blocked := rep.StepsOf(StepBlocked)
	if len(blocked) != 1 || !strings.Contains(blocked[0].Message, "could not re-create your firewall rule tcp 6443 from 10.0.0.0/8 (was rule "+userRule) {
		t.Fatalf("blocked %+v\n%s", blocked, rep)
	}
}

// The destroy's SSH pick takes the first rule its selector accepts: a
// user's rule that starts at 2222 (from other CIDRs than the node range, so
// CloudStack lets it be), read newest first, goes instead of the node
// range. Delete re-creates the user's rule and removes the node range
// CloudStack left. (A user rule with a forward to port 22 of a cluster VM
// is not at risk there: the destroy expunges the VMs, and their forwards
// with them, before it picks.)
func TestDeleteRestoresTheUserSSHRuleTheDestroyTook(t *testing.T) {
	t.Parallel()
	env := newEnvWithWorkerOrder(t, simulator.WorkerRuleOrderDescending)
	ctx := env.ctx()
	id := env.createClusterIn("user-ssh", env.Info.IsolatedNetworkID, 0, 1)
	c := env.Cluster(id)
	ref, err := env.API.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", StartPort: 2222, EndPort: 2222, CIDRList: []string{userCIDR}})
	if err == nil {
		err = env.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatal(err)
	}
	rep, err := env.engine().Delete(ctx, id, Intent{})
	if err != nil {
		t.Fatalf("Delete: %v\n%s", err, rep)
	}
	if got := firewallShape(env.FirewallRulesOn(c.IPAddressID)); !slices.Equal(got, []string{"tcp 2222 [" + userCIDR + "]"}) {
		t.Fatalf("firewall rules left %v, want only the user's rule 2222\n%s", got, rep)
	}
	restored := rep.StepsOf(StepRestored)
	if len(restored) != 1 || restored[0].PreviousRuleID != ref.ID || !strings.Contains(restored[0].Message, "its SSH rule pick") {
		t.Fatalf("restored %+v\n%s", restored, rep)
	}
	if removed := rep.StepsOf(StepRemoved); len(removed) != 1 || !strings.Contains(removed[0].Message, "node SSH firewall range 2222-2223") {
		t.Fatalf("removed %+v\n%s", removed, rep)
	}
}
