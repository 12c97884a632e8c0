package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCluster_createdButNotReadBack: the create job succeeds but reading
// the new cluster back fails (a 530 on listKubernetesClusters, which is not
// retried). The healthy cluster must be recorded, neither deleted nor
// tainted, and the next refresh fills in the rest: one cluster, no diff.
func TestAccCluster_createdButNotReadBack(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.clusterHCL("readback", fmt.Sprintf("  kubernetes_version_id = %q\n  size = 1", env.VersionID(t, "1.33.13")))
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					// The read-back and the retry of it to record the real state.
					env.Sim.FailNextCalls("listKubernetesClusters", 2, 530, "database is busy")
				},
				Config: config,
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if rs := s.RootModule().Resources[clusterAddr]; rs.Primary.Tainted {
						return fmt.Errorf("cluster %s was tainted although it is healthy", id)
					}
					live := liveClusters(t, env)
					if len(live) != 1 || live[0].ID != id {
						return fmt.Errorf("want exactly cluster %s in the simulator, have %v", id, live)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("state"), knownvalue.StringExact("Running")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(2)),
				},
			},
		},
	})
}
