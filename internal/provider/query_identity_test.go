package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// queryAndIdentityVersions keeps the tests of terraform query and of
// import by identity to the CLIs that have both: Terraform 1.14 added list
// resources and query, 1.12 resource identity. OpenTofu's version numbers
// are behind Terraform's (1.12 has neither), so 1.14 leaves it out too.
var queryAndIdentityVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}

// terraform query finds the clusters another client made, in accounts and
// projects, and the filters narrow them.
func TestAccClusterQuery(t *testing.T) {
	readsListsInAnyOrder(t)
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	project := cloudstack.Ownership{ProjectID: env.Info.ProjectID}
	teamA := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-a-api", Ownership: project})
	teamB := env.NewCluster(cloudstack.CreateClusterParams{Name: "team-b-api"})
	batch := env.NewCluster(cloudstack.CreateClusterParams{Name: "batch"})
	if err := env.Sim.SetClusterState(batch.ID, "Alert"); err != nil {
		t.Fatal(err)
	}
	identity := func(id string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"id": knownvalue.StringExact(id)}
	}
	accTest(t, resource.TestCase{
		TerraformVersionChecks: queryAndIdentityVersions,
		Steps: []resource.TestStep{
			{Config: env.ProviderConfig()},
			{
				Query: true,
				Config: fmt.Sprintf(`
list "cks_cluster" "all" {
  provider = cks
}

list "cks_cluster" "teams" {
  provider = cks
  config {
    name_regex = "^team-"
  }
}

list "cks_cluster" "project" {
  provider = cks
  config {
    project_id = %q
  }
}

list "cks_cluster" "alert" {
  provider = cks
  config {
    zone_id = %q
    state   = "alert"
  }
}
`, env.Info.ProjectID, env.Info.ZoneID),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("cks_cluster.all", 3),
					querycheck.ExpectIdentity("cks_cluster.all", identity(teamA.ID)),
					querycheck.ExpectIdentity("cks_cluster.all", identity(teamB.ID)),
					querycheck.ExpectIdentity("cks_cluster.all", identity(batch.ID)),
					querycheck.ExpectLength("cks_cluster.teams", 2),
					querycheck.ExpectLength("cks_cluster.project", 1),
					querycheck.ExpectIdentity("cks_cluster.project", identity(teamA.ID)),
					querycheck.ExpectLength("cks_cluster.alert", 1),
					querycheck.ExpectResourceDisplayName("cks_cluster.alert", queryfilter.ByResourceIdentity(identity(batch.ID)),
						knownvalue.StringExact("batch (sim-zone-1, Alert)")),
				},
			},
		},
	})
}

// A managed cluster imported by its identity: the import block names the
// cluster's id as identity, and the state matches the one Terraform made.
func TestAccClusterImportByIdentity(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{
		TerraformVersionChecks: queryAndIdentityVersions,
		CheckDestroy:           env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.cluster("by-identity").keypair().String(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(clusterAddr, map[string]knownvalue.Check{"id": knownvalue.NotNull()}),
					statecheck.ExpectIdentityValueMatchesState(clusterAddr, tfjsonpath.New("id")),
				},
			},
			{
				// The step's configuration is the first's with an import block
				// that names the cluster by its identity: importing it
				// plans no change.
				ResourceName:    clusterAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}

// A Kubernetes version and a CNI configuration imported by their identity.
func TestAccCatalogImportByIdentity(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	config := env.ProviderConfig(env.versionHCL("new", "1.34.9", newISOURL, ""), cniHCL("calico"))
	importByIdentity := func(addr string) resource.TestStep {
		return resource.TestStep{
			Config:          config,
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
			ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
			}},
		}
	}
	accTest(t, resource.TestCase{
		TerraformVersionChecks: queryAndIdentityVersions,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentityValueMatchesState("cks_kubernetes_version.new", tfjsonpath.New("id")),
					statecheck.ExpectIdentityValueMatchesState("cks_cni_configuration.calico", tfjsonpath.New("id")),
				},
			},
			importByIdentity("cks_kubernetes_version.new"),
			importByIdentity("cks_cni_configuration.calico"),
		},
	})
}
