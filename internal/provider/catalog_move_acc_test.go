package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestMoveAllThreeFromOfficialProvider moves a state of the official
// provider with a Kubernetes version, a CNI configuration and a cluster
// made with both to cks_kubernetes_version, cks_cni_configuration and
// cks_cluster in one plan: each is moved with no change, the objects are
// the same, and the next plan is empty.
func TestMoveAllThreeFromOfficialProvider(t *testing.T) {
	dependsOnTheCLI(t)
	if !inOwnProcess(t, officialNamespaceEnv) {
		return
	}
	env := newSimEnv(t)
	details := `{ POD_CIDR = "10.244.0.0/16", MTU = "1450" }`
	official := env.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cloudstack_kubernetes_version" "v134" {
  semantic_version = "1.34.9"
  url              = %q
  min_cpu          = 2
  min_memory       = 2048
  zone             = "sim-zone-1"
}

resource "cloudstack_cni_configuration" "calico" {
  name       = "calico"
  cni_config = %q
  params     = ["POD_CIDR", "MTU"]
}

resource "cloudstack_kubernetes_cluster" "x" {
  name                 = "moved"
  zone                 = "sim-zone-1"
  kubernetes_version   = cloudstack_kubernetes_version.v134.id
  service_offering     = "cks-medium"
  size                 = 1
  keypair              = %q
  cni_configuration_id = cloudstack_cni_configuration.calico.id
  cni_config_details   = %s
}
`, newISOURL, calicoConfig, env.Info.Keypair, details))
	moved := env.ProviderConfig(movedProviders, fmt.Sprintf(`
resource "cks_kubernetes_version" "v134" {
  semantic_version = "1.34.9"
  url              = %q
  zone_id          = %q
  min_cpu_number   = 2
  min_memory       = 2048
}

resource "cks_cni_configuration" "calico" {
  name       = "calico"
  cni_config = %q
  params     = ["POD_CIDR", "MTU"]
}

%s
moved {
  from = cloudstack_kubernetes_version.v134
  to   = cks_kubernetes_version.v134
}

moved {
  from = cloudstack_cni_configuration.calico
  to   = cks_cni_configuration.calico
}

moved {
  from = cloudstack_kubernetes_cluster.x
  to   = cks_cluster.x
}
`, newISOURL, env.Info.ZoneID, calicoConfig, env.cluster("moved").named("x").keypair().through("").
		set("kubernetes_version_id", hcl("cks_kubernetes_version.v134.id")).
		set("cni_configuration_id", hcl("cks_cni_configuration.calico.id")).
		set("cni_config_details", hcl(details))))
	ids := map[string]string{}
	pairs := map[string]string{"cloudstack_kubernetes_version.v134": "cks_kubernetes_version.v134",
		"cloudstack_cni_configuration.calico": "cks_cni_configuration.calico", "cloudstack_kubernetes_cluster.x": "cks_cluster.x"}
	var noChange []plancheck.PlanCheck
	for _, to := range pairs {
		noChange = append(noChange, plancheck.ExpectResourceAction(to, plancheck.ResourceActionNoop))
	}
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: withOfficialStandIn(env),
		CheckDestroy: func(s *terraform.State) error {
			if err := env.expectNothingLeft(s); err != nil {
				return err
			}
			return env.expectNoVersion("1.34.9")
		},
		Steps: []resource.TestStep{
			{
				Config: official,
				Check: func(s *terraform.State) error {
					for from := range pairs {
						ids[from] = s.RootModule().Resources[from].Primary.ID
					}
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             noChange,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(s *terraform.State) error {
					for from, to := range pairs {
						if got := s.RootModule().Resources[to].Primary.ID; got != ids[from] {
							return fmt.Errorf("%s has id %s, want %s's %s", to, got, from, ids[from])
						}
					}
					return env.expectOnlyCluster(ids["cloudstack_kubernetes_cluster.x"])
				},
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
