package clusterops

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
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
		{"narrowed", &Intent{SSHCIDRs: []string{"10.0.0.0/8"}}, []string{"etcd SSH firewall range 50000-50002"}},
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
