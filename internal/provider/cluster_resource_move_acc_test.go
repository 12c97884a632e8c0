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

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// officialNamespace is the namespace the test serves its providers under:
// the test framework serves every provider factory at
// <host>/<TF_ACC_PROVIDER_NAMESPACE>/<name> (hashicorp by default), and a
// move presents the source provider's address, which cks_cluster accepts
// only for the official provider, cloudstack/cloudstack.
const officialNamespace = "cloudstack"

// officialNamespaceEnv serves every provider of a move test under it.
var officialNamespaceEnv = map[string]string{"TF_ACC_PROVIDER_NAMESPACE": officialNamespace}

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
// Each move test runs in its own process (inOwnProcess), because the test
// framework reads TF_ACC_PROVIDER_NAMESPACE from the environment.
func TestMoveFromOfficialProviderKeepsCluster(t *testing.T) {
	dependsOnTheCLI(t)
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	testMove(t, env, officialByNames(env, ""), movedCluster(env).keypair(), plancheck.ResourceActionNoop,
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("zone_id"), knownvalue.StringExact(env.Info.ZoneID)),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("node_root_disk_size"), knownvalue.Null()),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("autoscaling"), knownvalue.Null()),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
	)
}

// TestMoveFromOfficialProviderKeepsProjectCluster moves a cluster owned by
// a project, which the official configuration names: the refresh finds the
// cluster by id across the projects and fills in project_id.
func TestMoveFromOfficialProviderKeepsProjectCluster(t *testing.T) {
	dependsOnTheCLI(t)
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	official := officialByNames(env, `  project = "cks-project"`)
	moved := movedCluster(env).keypair().set("project_id", env.Info.ProjectID)
	testMove(t, env, official, moved, plancheck.ResourceActionNoop,
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("project_id"), knownvalue.StringExact(env.Info.ProjectID)),
	)
}

// TestMoveFromOfficialProviderReadsTemplatesGivenByName moves a cluster
// whose official configuration names its worker template: the move cannot
// resolve the name, and the refresh after it reads the template from the
// VM map, so the configuration with the template's id plans nothing.
func TestMoveFromOfficialProviderReadsTemplatesGivenByName(t *testing.T) {
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	official := officialByNames(env, `  node_templates = { worker = "CKS node template (KVM)" }`)
	moved := movedCluster(env).keypair().set("node_templates", map[string]string{"WORKER": env.Info.NodeTemplateID})
	testMove(t, env, official, moved, plancheck.ResourceActionNoop,
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("node_templates"), knownvalue.MapExact(map[string]knownvalue.Check{
			"WORKER": knownvalue.StringExact(env.Info.NodeTemplateID),
		})),
	)
}

// TestMoveFromOfficialProviderCarriesWhatTheAPIDoesNotReturn moves a
// cluster whose official configuration gives ids, a root disk size, a
// hypervisor and the autoscaler: the inputs the API does not return come
// from the official state, so the translated configuration plans nothing.
func TestMoveFromOfficialProviderCarriesWhatTheAPIDoesNotReturn(t *testing.T) {
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	official := fmt.Sprintf(`
  zone                = %q
  kubernetes_version  = %q
  service_offering    = %q
  control_nodes_size  = 1
  noderootdisksize    = 20
  hypervisor          = "KVM"
  autoscaling_enabled = true
  min_size            = 1
  max_size            = 3
`, env.Info.ZoneID, env.VersionID("1.33.13"), env.Info.ServiceOfferingID)
	moved := movedCluster(env).set("control_nodes", 1).set("node_root_disk_size", 20).set("hypervisor", "KVM").autoscaled(3)
	testMove(t, env, official, moved, plancheck.ResourceActionNoop,
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("node_root_disk_size"), knownvalue.Int64Exact(20)),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("hypervisor"), knownvalue.StringExact("KVM")),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("autoscaling"), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"enabled": knownvalue.Bool(true), "min_size": knownvalue.Int64Exact(1), "max_size": knownvalue.Int64Exact(3),
		})),
	)
}

// TestMoveFromOfficialProviderConvertsEtcdRules moves a cluster with
// separate etcd nodes, whose SSH rules are still in CKS's own layout: the
// move plans an in-place update that brings them to the provider's layout,
// and nothing else.
func TestMoveFromOfficialProviderConvertsEtcdRules(t *testing.T) {
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t, simtest.WithOrderedList())
	official := fmt.Sprintf(`
  zone               = %q
  kubernetes_version = %q
  service_offering   = %q
  etcd_nodes_size    = 3
`, env.Info.ZoneID, env.VersionID("1.33.13"), env.Info.ServiceOfferingID)
	moved := movedCluster(env).etcd(3)
	testMove(t, env, official, moved, plancheck.ResourceActionUpdate,
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
		statecheck.ExpectKnownValue("cks_cluster.x", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(5)),
	)
}

// officialByNames is the body of a one-worker official cluster that names
// its zone, version and offering, as the official provider allows, plus
// extra lines.
func officialByNames(e *simEnv, extra string) string {
	return fmt.Sprintf(`
  zone               = "sim-zone-1"
  kubernetes_version = "v1.33.13"
  service_offering   = "cks-medium"
  size               = 1
  keypair            = %q
%s
`, e.Info.Keypair, extra)
}

// movedCluster is cks_cluster.x, named moved, which a move test moves
// cloudstack_kubernetes_cluster.x to.
func movedCluster(e *simEnv) clusterConfig {
	return e.cluster("moved").named("x").through(e.ProviderConfig(movedProviders)).
		with("\nmoved {\n  from = cloudstack_kubernetes_cluster.x\n  to   = cks_cluster.x\n}\n")
}

// testMove creates cloudstack_kubernetes_cluster.x with the official body,
// then moves it to cks_cluster.x as cks configures it: the move plans no
// change, keeps the one cluster, passes checks, and the next plan is empty.
// action is what the move plans for cks_cluster.x.
func testMove(t *testing.T, e *simEnv, officialBody string, cks clusterConfig, action plancheck.ResourceActionType,
	checks ...statecheck.StateCheck,
) {
	t.Helper()
	official := e.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cloudstack_kubernetes_cluster" "x" {
  name = "moved"
%s}
`, officialBody))
	moved := cks.String()
	var clusterID string
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: withOfficialStandIn(e),
		CheckDestroy:             e.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: official,
				Check: func(s *terraform.State) error {
					clusterID = s.RootModule().Resources["cloudstack_kubernetes_cluster.x"].Primary.ID
					return e.expectOnlyCluster(clusterID)
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_cluster.x", action)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: checks,
				Check: func(s *terraform.State) error {
					if got := s.RootModule().Resources["cks_cluster.x"].Primary.ID; got != clusterID {
						return fmt.Errorf("cks_cluster.x has id %s, want the moved cluster's %s", got, clusterID)
					}
					return e.expectOnlyCluster(clusterID)
				},
			},
			{
				Config:   moved,
				PlanOnly: true,
			},
		},
	})
}
