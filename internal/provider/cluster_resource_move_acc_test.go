package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// officialNamespace is the namespace the test serves its providers under:
// the test framework serves every provider factory at
// <host>/<TF_ACC_PROVIDER_NAMESPACE>/<name> (hashicorp by default), and a
// move presents the source provider's address, which cks_cluster accepts
// only for the official provider, cloudstack/cloudstack.
const officialNamespace = "cloudstack"

// movedProviders selects both providers in that namespace.
const movedProviders = `
terraform {
  required_providers {
    cks        = { source = "cloudstack/cks" }
    cloudstack = { source = "cloudstack/cloudstack" }
  }
}
`

// TestMoveFromOfficialProviderKeepsCluster creates a cluster with the
// official provider's cloudstack_kubernetes_cluster (zone, version and
// offering given by name, as the official provider allows), then moves it
// to a cks_cluster that gives them by id: the plan moves it without a
// change, the simulator still has that one cluster, and the next plan is
// empty.
//
// Not parallel: it sets TF_ACC_PROVIDER_NAMESPACE, which the test
// framework reads from the environment; Go starts parallel tests only once
// the sequential ones are done.
func TestMoveFromOfficialProviderKeepsCluster(t *testing.T) {
	env := newSimEnv(t)
	t.Setenv("TF_ACC_PROVIDER_NAMESPACE", officialNamespace)
	const name = "moved"
	official := env.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cloudstack_kubernetes_cluster" "x" {
  name               = %q
  zone               = "sim-zone-1"
  kubernetes_version = "v1.33.13"
  service_offering   = "cks-medium"
  size               = 1
  keypair            = %q
}
`, name, env.Info.Keypair))
	moved := env.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cks_cluster" "x" {
  name                  = %q
  zone_id               = %q
  kubernetes_version_id = %q
  service_offering_id   = %q
  size                  = 1
  keypair               = %q
}

moved {
  from = cloudstack_kubernetes_cluster.x
  to   = cks_cluster.x
}
`, name, env.Info.ZoneID, env.VersionID("1.33.13"), env.Info.ServiceOfferingID, env.Info.Keypair))
	var clusterID string
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: env.withOfficialStandIn(),
		CheckDestroy:             env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: official,
				Check: func(s *terraform.State) error {
					clusterID = s.RootModule().Resources["cloudstack_kubernetes_cluster.x"].Primary.ID
					return env.expectOnlyCluster(clusterID)
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_cluster.x", plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("zone_id"), knownvalue.StringExact(env.Info.ZoneID)),
					statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("node_root_disk_size"), knownvalue.Null()),
					statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
				},
				Check: func(s *terraform.State) error {
					if got := s.RootModule().Resources["cks_cluster.x"].Primary.ID; got != clusterID {
						return fmt.Errorf("cks_cluster.x has id %s, want the moved cluster's %s", got, clusterID)
					}
					return env.expectOnlyCluster(clusterID)
				},
			},
			{
				Config:   moved,
				PlanOnly: true,
			},
		},
	})
}

// expectOnlyCluster checks that the simulator has one live cluster, id.
func (e *simEnv) expectOnlyCluster(id string) error {
	var live []string
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed {
			live = append(live, c.ID)
		}
	}
	if len(live) != 1 || live[0] != id {
		return fmt.Errorf("the simulator has clusters %v, want only %s", live, id)
	}
	return nil
}
