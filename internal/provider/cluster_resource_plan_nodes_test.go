package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCluster_scalePlanKeepsUnchangedNodesKnown checks that a size
// change plans only the nodes it adds as unknown: the etcd, control and
// remaining worker nodes stay known in the plan, and are the ones the apply
// keeps (the newest workers go on a scale-down).
func TestAccCluster_scalePlanKeepsUnchangedNodesKnown(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	config := func(size int) string {
		return env.cluster("reviewable").etcd(1).size(size).String()
	}
	node := func(i int, key string) tfjsonpath.Path { return tfjsonpath.New("nodes").AtSliceIndex(i).AtMapKey(key) }
	firstWorker := statecheck.CompareValue(compare.ValuesSame())
	controlNode := statecheck.CompareValue(compare.ValuesSame())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(2),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("nodes", nodeRoles("etcd", "control", "worker", "worker")),
					firstWorker.AddStateValue(clusterAddr, node(2, "id")),
					controlNode.AddStateValue(clusterAddr, node(1, "id")),
				},
			},
			{
				Config: config(3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(5)),
					plancheck.ExpectKnownValue(clusterAddr, node(0, "role"), knownvalue.StringExact("etcd")),
					plancheck.ExpectKnownValue(clusterAddr, node(1, "ssh_port"), knownvalue.Int64Exact(2222)),
					plancheck.ExpectKnownValue(clusterAddr, node(3, "ssh_port"), knownvalue.Int64Exact(2224)),
					plancheck.ExpectUnknownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(4)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("nodes", nodeRoles("etcd", "control", "worker", "worker", "worker")),
					statecheck.ExpectKnownValue(clusterAddr, node(4, "ssh_port"), knownvalue.Int64Exact(2225)),
					firstWorker.AddStateValue(clusterAddr, node(2, "id")),
					controlNode.AddStateValue(clusterAddr, node(1, "id")),
				},
			},
			{
				Config: config(1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(3)),
					plancheck.ExpectKnownValue(clusterAddr, node(2, "ssh_port"), knownvalue.Int64Exact(2223)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("nodes", nodeRoles("etcd", "control", "worker")),
					firstWorker.AddStateValue(clusterAddr, node(2, "id")),
					controlNode.AddStateValue(clusterAddr, node(1, "id")),
				},
			},
		},
	})
}
