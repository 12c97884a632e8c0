package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCluster_createdButNotReadBack: the create job succeeds but every
// read of the new cluster fails from then on (a 530 on
// listKubernetesClusters, which is not retried). The healthy cluster must
// be recorded, neither deleted nor tainted, and the next refresh fills in
// the rest: one cluster, nothing replaced.
func TestAccCluster_createdButNotReadBack(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	config := env.cluster("readback").through(env.providerAt(proxy.URL())).String()
	sameID := statecheck.CompareValue(compare.ValuesSame())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					// Once the create is answered, no read of the cluster works.
					proxy.afterNext("createKubernetesCluster", func() { env.Sim.FailNextCalls("listKubernetesClusters", 1000, 530, "database is busy") })
				},
				Config: config,
				// Recorded by its id and the planned values: nothing could be read.
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.Null()),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("cloudstack_state"), knownvalue.Null()),
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
				},
				Check: func(s *terraform.State) error {
					// Reads work again for the refresh and plan after this check.
					env.Sim.ClearFaults()
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if err := expectUntainted(s); err != nil {
						return err
					}
					live := env.liveClusters()
					if len(live) != 1 || live[0].ID != id {
						return fmt.Errorf("want exactly cluster %s in the simulator, have %v", id, live)
					}
					return nil
				},
			},
			{
				PreConfig: env.Sim.ClearFaults,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNotReplaced{clusterAddr},
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("state"), knownvalue.StringExact("Running")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(2)),
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
				},
			},
		},
	})
}
