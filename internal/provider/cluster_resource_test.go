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

// TestAccCluster_lifecycle creates a cluster with one control node, three
// etcd nodes and one worker, imports it, scales it up and down, upgrades it
// by a minor version, stops and starts it, and destroys it.
func TestAccCluster_lifecycle(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	v133, v134 := env.VersionID("1.33.13"), env.VersionID("1.34.2")
	config := func(version string, size int, state string) string {
		return env.cluster("lifecycle").set("kubernetes_version_id", version).etcd(3).size(size).keypair().
			set("node_root_disk_size", 20).set("hypervisor", "KVM").set("state", state).String()
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: config(v133, 1, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("control_nodes", knownvalue.Int64Exact(1)),
					expectAttr("etcd_nodes", knownvalue.Int64Exact(3)),
					expectAttr("description", knownvalue.StringExact("lifecycle")),
					expectAttr("kubernetes_version_id", knownvalue.StringExact(v133)),
					expectAttr("endpoint", knownvalue.StringRegexp(regexpMust(`^https://127\.\d+\.\d+\.\d+:6443/$`))),
					expectAttr("ip_address_id", knownvalue.NotNull()),
					expectAttr("network_id", knownvalue.NotNull()),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker")),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("ssh_port"), knownvalue.Int64Exact(50000)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(2).AtMapKey("ssh_port"), knownvalue.Int64Exact(50002)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(3).AtMapKey("ssh_port"), knownvalue.Int64Exact(2222)),
					statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes").AtSliceIndex(4).AtMapKey("ssh_port"), knownvalue.Int64Exact(2223)),
				},
			},
			{
				// The API does not return node_root_disk_size or hypervisor.
				ResourceName:            clusterAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"node_root_disk_size", "hypervisor"},
			},
			{
				Config: config(v133, 2, "Running"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("size", knownvalue.Int64Exact(2)),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker", "worker")),
				},
			},
			{
				Config: config(v133, 1, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker")),
				},
				Check: env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
			},
			{
				Config: config(v134, 1, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("kubernetes_version_id", knownvalue.StringExact(v134)),
				},
			},
			{
				Config: config(v134, 1, "Stopped"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("state", knownvalue.StringExact("Stopped")),
				},
			},
			{
				Config: config(v134, 1, "Running"),
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
					expectAttr("state", knownvalue.StringExact("Running")),
				},
			},
			{
				Config: config(v134, 1, "Running"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}
