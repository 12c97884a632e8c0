package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccClusterDataSource reads a cluster by id and by name and expects
// the same attributes as the resource reports.
func TestAccClusterDataSource(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	cluster := env.cluster("lookup").etcd(1).String()
	lookups := `
data "cks_cluster" "by_id" {
  id = cks_cluster.test.id
}

data "cks_cluster" "by_name" {
  name       = "lookup"
  depends_on = [cks_cluster.test]
}
`
	var checks []statecheck.StateCheck
	for _, ds := range []string{"data.cks_cluster.by_id", "data.cks_cluster.by_name"} {
		for _, attr := range []string{"id", "name", "zone_id", "kubernetes_version_id", "service_offering_id", "size",
			"control_nodes", "etcd_nodes", "network_id", "state", "endpoint", "ip_address", "ip_address_id", "created", "cores", "memory",
			"nodes"} {
			checks = append(checks, statecheck.CompareValuePairs(clusterAddr, tfjsonpath.New(attr), ds, tfjsonpath.New(attr), compare.ValuesSame()))
		}
		checks = append(checks,
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("autoscaling"), knownvalue.ObjectExact(map[string]knownvalue.Check{
				"enabled": knownvalue.Bool(false), "min_size": knownvalue.Null(), "max_size": knownvalue.Null(),
			})),
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes"), nodeRoles("etcd", "control", "worker")),
		)
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:            cluster + lookups,
				ConfigStateChecks: checks,
			},
			{
				Config:      cluster + "\ndata \"cks_cluster\" \"missing\" {\n  name = \"no-such-cluster\"\n}\n",
				ExpectError: errorFragments("Cluster Not Found", `name = "no-such-cluster"`, `no cluster named "no-such-cluster" is visible to the caller`),
			},
			{
				Config:      cluster + "\ndata \"cks_cluster\" \"both\" {\n  id   = cks_cluster.test.id\n  name = \"lookup\"\n}\n",
				ExpectError: errorFragments("Invalid Attribute Combination", "id", "name"),
			},
		},
	})
}
