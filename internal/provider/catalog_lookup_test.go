package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccLookupsByName(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	env := newSimEnv(t)
	exact := func(addr, attr, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), knownvalue.StringExact(want))
	}
	// The failing steps come first: the test's closing destroy runs the
	// last configuration.
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// CloudStack does not keep names unique: several matches are
				// named, sorted, not picked by list position.
				Config: env.ProviderConfig(`
data "cks_service_offering" "any" {
  name_regex = "^cks-"
}
`),
				ExpectError: errorFragments("Several Service Offerings Match", "name_regex", `3 service offerings have a name matching "^cks-": cks-large (`,
					"), cks-medium (", "), cks-small ("),
			},
			{
				Config: env.ProviderConfig(`
data "cks_network" "typo" {
  name = "sim-isolated-network-2"
}
`),
				ExpectError: errorFragments("Network Not Found", `No network visible to the caller is named "sim-isolated-network-2"`, "sim-isolated-network ("),
			},
			{
				Config: env.ProviderConfig(`
data "cks_zone" "both" {
  name       = "sim-zone-1"
  name_regex = "sim"
}
`),
				ExpectError: errorFragments("Invalid Attribute Combination", "name_regex"),
			},
			{
				Config: env.ProviderConfig(`
data "cks_zone" "z" {
  name = "sim-zone-1"
}
data "cks_service_offering" "medium" {
  name    = "cks-medium"
  zone_id = data.cks_zone.z.id
}
data "cks_service_offering" "large" {
  name_regex = "^cks-lar"
}
data "cks_network" "n" {
  name    = "sim-isolated-network"
  zone_id = data.cks_zone.z.id
}
data "cks_project" "p" {
  name = "cks-project"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					exact("data.cks_zone.z", "id", env.Info.ZoneID),
					exact("data.cks_service_offering.medium", "id", env.Info.ServiceOfferingID),
					statecheck.ExpectKnownValue("data.cks_service_offering.medium", tfjsonpath.New("cpu_number"), knownvalue.Int64Exact(2)),
					exact("data.cks_service_offering.large", "id", env.Info.LargeServiceOfferingID),
					exact("data.cks_service_offering.large", "name", "cks-large"),
					exact("data.cks_network.n", "id", env.Info.IsolatedNetworkID),
					exact("data.cks_network.n", "type", "Isolated"),
					statecheck.ExpectKnownValue("data.cks_network.n", tfjsonpath.New("vpc_id"), knownvalue.Null()),
					exact("data.cks_project.p", "id", env.Info.ProjectID),
				},
			},
		},
	})
}

// clusterByNames is a cluster whose zone, offering, network and version
// are named, not given by id.
func clusterByNames(env *simEnv, name string, size int, protected bool) string {
	return env.cluster(name).named("named").
		set("zone_id", hcl("data.cks_zone.z.id")).
		set("service_offering_id", hcl("data.cks_service_offering.o.id")).
		set("network_id", hcl("data.cks_network.n.id")).
		set("kubernetes_version_id", hcl("data.cks_kubernetes_version.v.id")).
		set("keypair", "cks-key").
		size(size).
		set("deletion_protection", protected).
		with(`
data "cks_zone" "z" {
  name = "sim-zone-1"
}
data "cks_service_offering" "o" {
  name    = "cks-medium"
  zone_id = data.cks_zone.z.id
}
data "cks_network" "n" {
  name    = "sim-isolated-network"
  zone_id = data.cks_zone.z.id
}
data "cks_kubernetes_version" "v" {
  zone_id                 = data.cks_zone.z.id
  semantic_version_prefix = "1.33"
  latest                  = true
}
`).String()
}

// A cluster configured by names is created, scaled and destroyed, and
// deletion_protection stops a destroy and a replacement at plan.
func TestAccClusterByNamesWithDeletionProtection(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	addr := "cks_cluster.named"
	protectedErr := errorFragments("Cluster Is Protected From Deletion", "deletion_protection")
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: clusterByNames(env, "named", 1, true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("zone_id"), knownvalue.StringExact(env.Info.ZoneID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network_id"), knownvalue.StringExact(env.Info.IsolatedNetworkID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.33.13")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_protection"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact("Running")),
				},
			},
			{
				Config: clusterByNames(env, "named", 2, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(3)),
				},
			},
			{
				// A new name replaces the cluster: refused, naming the cause.
				Config:      clusterByNames(env, "renamed", 2, true),
				ExpectError: errorFragments("Cluster Is Protected From Deletion", "deletion_protection", "The change of name replaces cluster"),
			},
			{
				Config:      clusterByNames(env, "named", 2, true),
				Destroy:     true,
				ExpectError: protectedErr,
			},
			{
				// Lifting the protection is an update of the state alone,
				// made with a scale back to one worker.
				Config: clusterByNames(env, "named", 1, false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_protection"), knownvalue.Bool(false)),
				},
			},
			{
				// CloudStack has no such setting: an import takes the default.
				Config:                  clusterByNames(env, "named", 1, false),
				ResourceName:            addr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"node_root_disk_size", "hypervisor", "timeouts"},
			},
		},
	})
}
