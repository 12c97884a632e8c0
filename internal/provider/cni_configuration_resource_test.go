package provider

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// calicoConfig is a CNI configuration's content, base64 as base64encode()
// writes it and CloudStack stores it.
var calicoConfig = base64.StdEncoding.EncodeToString([]byte("#cloud-config\n# calico for CKS\n"))

func cniHCL(name string) string {
	return fmt.Sprintf(`
resource "cks_cni_configuration" "calico" {
  name       = %q
  cni_config = %q
  params     = ["POD_CIDR", "MTU"]
}
`, name, calicoConfig)
}

// A CNI configuration is registered and read back as CloudStack stores it;
// a plan that deletes it while another client's cluster was made with it
// fails and names the cluster; it imports by id; with a cluster of its own
// the destroy deletes the cluster first.
func TestAccCNIConfigurationLifecycle(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	var id string
	var otherClient *cloudstack.Cluster
	withCluster := env.ProviderConfig(cniHCL("calico"), env.cluster("with-cni").keypair().through("").
		set("cni_configuration_id", hcl("cks_cni_configuration.calico.id")).
		set("cni_config_details", map[string]string{"POD_CIDR": "10.244.0.0/16", "MTU": "1450"}).String())
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.ProviderConfig(cniHCL("calico")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_cni_configuration.calico", tfjsonpath.New("cni_config"), knownvalue.StringExact(calicoConfig)),
					statecheck.ExpectKnownValue("cks_cni_configuration.calico", tfjsonpath.New("params"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("POD_CIDR"), knownvalue.StringExact("MTU")})),
					statecheck.ExpectKnownValue("cks_cni_configuration.calico", tfjsonpath.New("account"), knownvalue.StringExact(env.Info.Account)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(s *terraform.State) error {
					id = s.RootModule().Resources["cks_cni_configuration.calico"].Primary.ID
					cfg, err := env.API.GetCniConfiguration(t.Context(), id)
					if err != nil {
						return err
					}
					if cfg.UserData != calicoConfig || strings.Join(cfg.Params, ",") != "MTU,POD_CIDR" {
						return fmt.Errorf("CloudStack stores %+v", cfg)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					otherClient = env.NewCluster(cloudstack.CreateClusterParams{Name: "other-client",
						ClusterExtras: cloudstack.ClusterExtras{CNIConfigurationID: id}})
				},
				Config:      env.ProviderConfig(),
				PlanOnly:    true,
				ExpectError: errorFragments("CNI Configuration In Use", "This plan deletes it", "other-client (", "fail every list"),
			},
			{
				PreConfig: func() {
					ref, err := env.API.DeleteKubernetesCluster(t.Context(), otherClient.ID)
					if err == nil {
						err = env.WaitJob(ref.JobID)
					}
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:            env.ProviderConfig(cniHCL("calico")),
				ResourceName:      "cks_cni_configuration.calico",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				Config: withCluster,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_cni_configuration.calico", plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

func TestAccCNIConfigurationRefusals(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	t.Run("not base64", func(t *testing.T) {
		accTest(t, resource.TestCase{Steps: []resource.TestStep{{
			Config: env.ProviderConfig(`
resource "cks_cni_configuration" "x" {
  name       = "plain"
  cni_config = "calico: {}"
}
`),
			PlanOnly: true, ExpectError: errorFragments("CNI Configuration Not Base64", "cni_config", "base64encode(file("),
		}}})
	})
	t.Run("base64 without padding", func(t *testing.T) {
		accTest(t, resource.TestCase{Steps: []resource.TestStep{{
			Config:   env.ProviderConfig(strings.Replace(cniHCL("x"), calicoConfig, strings.TrimRight(calicoConfig, "="), 1)),
			PlanOnly: true, ExpectError: errorFragments("CNI Configuration Not in CloudStack's Base64", "cni_config", "base64encode()"),
		}}})
	})
	t.Run("comma in a parameter name", func(t *testing.T) {
		accTest(t, resource.TestCase{Steps: []resource.TestStep{{
			Config:   env.ProviderConfig(strings.Replace(cniHCL("x"), `["POD_CIDR", "MTU"]`, `["POD_CIDR,MTU"]`, 1)),
			PlanOnly: true, ExpectError: errorFragments("params", "must not contain a comma"),
		}}})
	})
	t.Run("name taken", func(t *testing.T) {
		accTest(t, resource.TestCase{Steps: []resource.TestStep{{
			Config:      env.ProviderConfig(cniHCL("CALICO-CNI")),
			ExpectError: errorFragments("CNI Configuration Name Taken", "calico-cni", env.Info.CNIConfigurationID),
		}}})
	})
}
