package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// TestAccCluster_deletionProtectionLiftedInEveryState: deletion_protection
// = false in the configuration, true in the state. A change of it alone is
// an update that asks nothing of CloudStack and shows no computed value as
// unknown. On a cluster in Error or Destroying, which only a replacement can
// follow, the plan is that same update, with a warning that defers the
// replacement (any other change waits for it, and the apply says so), and
// the next plan replaces the cluster. A replacing change while the
// protection is still recorded is refused with the way out.
func TestAccCluster_deletionProtectionLiftedInEveryState(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	rec := &diagRecorder{}
	protection := func(size int, on bool) clusterConfig {
		return env.etcdCluster(0, size).set("deletion_protection", on)
	}
	var first, second, third string
	setState := func(id *string, state string) func() {
		return func() {
			if err := env.Sim.SetClusterState(*id, state); err != nil {
				t.Fatal(err)
			}
			env.Sim.ResetCallCounts()
			rec.reset()
		}
	}
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: rec.factories(),
		CheckDestroy:             env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: protection(1, true).String(), Check: recordClusterID(&first)},
			{
				// The protection stops the replacement of a cluster in Error.
				PreConfig:   setState(&first, clusterstate.Error),
				Config:      protection(1, true).String(),
				ExpectError: errorFragments("Cluster Is Protected From Deletion", "cloudstack_state"),
			},
			{
				// Lifting it is an update, recorded without a CloudStack write.
				PreConfig: setState(&first, clusterstate.Error),
				Config:    protection(1, false).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("cloudstack_state"), knownvalue.StringExact("Error")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("deletion_protection", knownvalue.Bool(false)),
					expectAttr("cloudstack_state", knownvalue.StringExact("Error")),
				},
				Check: resource.ComposeTestCheckFunc(env.expectNoCalls(writeCalls...),
					rec.expect("Cluster Replacement Deferred", "state Error", "the next plan replaces the cluster")),
				ExpectNonEmptyPlan: true, // the replacement, next
			},
			{
				Config: protection(1, false).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeTestCheckFunc(recordClusterID(&second), func(*terraform.State) error {
					if second == first {
						t.Fatalf("the cluster in Error was not replaced")
					}
					return nil
				}),
			},
			{
				// Turning the protection on again changes only the state:
				// nodes and cloudstack_state stay known in the plan.
				PreConfig: func() { env.Sim.ResetCallCounts() },
				Config:    protection(1, true).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("cloudstack_state"), knownvalue.StringExact("Running")),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("ssh_rules_in_sync"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("nodes"), knownvalue.ListSizeExact(2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("deletion_protection", knownvalue.Bool(true))},
				Check:             env.expectNoCalls(writeCalls...),
			},
			{
				// A replacing change with the protection lifted in the same
				// configuration: refused, saying how to apply the lift first.
				Config: protection(1, false).set("description", "renamed").String(),
				ExpectError: errorFragments("Cluster Is Protected From Deletion",
					"Undo the change of", "for one apply, which records deletion_protection = false"),
			},
			{
				// Destroying, with another change asked for: the lift is
				// recorded, and the apply says the size waits.
				PreConfig:   setState(&second, clusterstate.Destroying),
				Config:      protection(2, false).String(),
				ExpectError: errorFragments("Cluster Replacement Deferred", "recorded deletion_protection = false", "size"),
			},
			{
				PreConfig: func() {
					if err := env.expectNoCalls(writeCalls...)(nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: protection(2, false).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("size", knownvalue.Int64Exact(2))},
				Check:             recordClusterID(&third),
			},
		},
	})
}

// TestAccCluster_deletionProtectionLiftedWithoutRefresh: with
// -refresh=false the state still says Running while the cluster is in
// Destroying. The lift is an update that asks nothing of CloudStack, so it
// does not wait on the cluster, and the destroy, which refreshes, deletes
// the cluster.
func TestAccCluster_deletionProtectionLiftedWithoutRefresh(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy:         env.expectNothingLeft,
		AdditionalCLIOptions: &resource.AdditionalCLIOptions{Plan: resource.PlanOptions{NoRefresh: true}},
		Steps: []resource.TestStep{
			{Config: env.etcdCluster(0, 1).set("deletion_protection", true).String(), Check: recordClusterID(&id)},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterState(id, clusterstate.Destroying); err != nil {
						t.Fatal(err)
					}
					env.Sim.ResetCallCounts()
				},
				Config: env.etcdCluster(0, 1).set("deletion_protection", false).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("cloudstack_state"), knownvalue.StringExact("Running")),
				}},
				Check: env.expectNoCalls(writeCalls...),
			},
		},
	})
}
