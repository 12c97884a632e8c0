package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// TestAccCluster_userHazardRule puts a user firewall rule 22-22 with a
// forward 22 -> 22 on the cluster's IP: CloudStack's scale selector accepts
// it, so any scale may revoke it instead of the node range, whatever the
// order of the rules. The size change fails at plan, naming the rule and
// the opt-in, and changes nothing; with recreate_user_hazard_rules the
// provider deletes the rule for the scale and re-creates it (same ports and
// CIDR) after it, and the next plan is empty.
func TestAccCluster_userHazardRule(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	env := newSimEnv(t, simtest.WithProfile("4.22.1.1"))
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(3, 1).String(),
				Check:  recordClusterID(&id),
			},
			{
				PreConfig: func() {
					env.addUserSSHRules(t, id)
					env.Sim.ResetCallCounts()
				},
				Config: env.etcdCluster(3, 2).String(),
				ExpectError: errorFragments("Unsafe Cluster Scale", "size                  = 2", "user firewall rule",
					"(tcp 22 from 203.0.113.0/24)", "has a forward with the same ports to port 22", "#14159",
					"Set recreate_user_hazard_rules = true"),
			},
			{
				PreConfig: func() {
					for _, command := range []string{"scaleKubernetesCluster", "deleteFirewallRule", "createFirewallRule"} {
						if n := env.Sim.CallCounts()[command]; n != 0 {
							t.Fatalf("the refused plan made %d %s call(s)", n, command)
						}
					}
				},
				Config:           env.etcdCluster(3, 2).set("recreate_user_hazard_rules", true).String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("size", knownvalue.Int64Exact(2)),
				},
				Check: func(s *terraform.State) error {
					ctx := context.Background()
					c, err := env.API.GetKubernetesCluster(ctx, id)
					if err != nil {
						return err
					}
					got := env.rulesOf(t, c)
					want := []string{"22", "2222-2224", "50000-50002", "6443"}
					if !slices.Equal(got.Firewalls, want) {
						return fmt.Errorf("firewall rules = %v, want %v", got.Firewalls, want)
					}
					fws, err := env.API.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: c.IPAddressID})
					if err != nil {
						return err
					}
					for _, fw := range fws {
						if fw.StartPort == 22 && !slices.Equal(fw.CIDRList, []string{"203.0.113.0/24"}) {
							return fmt.Errorf("the user rule was re-created with CIDRs %v", fw.CIDRList)
						}
					}
					if _, ok := got.Forwards[22]; !ok {
						return fmt.Errorf("the user forward 22 is gone: %v", got.Forwards)
					}
					return nil
				},
			},
		},
	})
}
