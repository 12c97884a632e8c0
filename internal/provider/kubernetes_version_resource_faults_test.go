package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// An add whose answer is lost is not sent again: the version it made is
// adopted, with a warning, and is the only one.
func TestAccKubernetesVersionLostAnswer(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		PreConfig: func() { env.Sim.LoseNextResponses("addKubernetesSupportedVersion", 1) },
		Config:    env.ProviderConfig(env.versionHCL("new", "1.34.9", newISOURL, "")),
		Check: resource.ComposeTestCheckFunc(env.expectVersionsNamed("v1.34.9-sim-zone-1", 1),
			func(*terraform.State) error {
				if n := env.Sim.CallCounts()["addKubernetesSupportedVersion"]; n != 1 {
					return fmt.Errorf("addKubernetesSupportedVersion sent %d times", n)
				}
				return nil
			}),
	}}})
}

// Another client disables the version, then deletes it: each refresh sees
// it, and the next apply puts back what the configuration says.
func TestAccKubernetesVersionOutOfBandChanges(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.ProviderConfig(env.versionHCL("new", "1.34.9", newISOURL, ""))
	var id string
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: config,
			Check: func(s *terraform.State) error {
				id = s.RootModule().Resources["cks_kubernetes_version.new"].Primary.ID
				return nil
			},
		},
		{
			PreConfig: func() {
				if _, err := env.API.UpdateKubernetesSupportedVersion(t.Context(), id, "Disabled"); err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("cks_kubernetes_version.new", plancheck.ResourceActionUpdate),
			}},
			Check: func(*terraform.State) error { return env.expectVersionState(id, "Enabled") },
		},
		{
			PreConfig: func() {
				ref, err := env.API.DeleteKubernetesSupportedVersion(t.Context(), id)
				if err == nil {
					err = env.WaitJob(ref.JobID)
				}
				if err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("cks_kubernetes_version.new", plancheck.ResourceActionCreate),
			}},
			Check: env.expectVersionsNamed("v1.34.9-sim-zone-1", 1),
		},
	}})
}

// An ISO that outlasts timeouts.create fails the apply and leaves the
// version recorded, tainted: the next apply deletes it and registers it
// again, and only that one is left.
func TestAccKubernetesVersionCreateTimeout(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	slow := env.ProviderConfig(env.versionHCL("new", "1.34.9", newISOURL, `  timeouts = { create = "2s" }`))
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error { return env.expectNoVersion("1.34.9") },
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := env.Sim.SetISODownload(newISOURL, simulator.ISODownload{Duration: time.Hour}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      slow,
				ExpectError: regexp.MustCompile(`(?s)Kubernetes Version ISO Not Ready.*timeouts.create`),
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetISODownload(newISOURL, simulator.ISODownload{Duration: 200 * time.Millisecond}); err != nil {
						t.Fatal(err)
					}
				},
				Config: slow,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("cks_kubernetes_version.new", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: env.expectVersionsNamed("v1.34.9-sim-zone-1", 1),
			},
		},
	})
}

// Only root admins register versions: a user's keys get CloudStack's 432
// and the reason.
func TestAccKubernetesVersionNeedsRootAdmin(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
}
`, env.Info.APIURL, env.Info.TenantAPIKey, env.Info.TenantSecretKey) + env.versionHCL("new", "1.34.9", newISOURL, ""),
		ExpectError: errorFragments("Kubernetes Version Refused", "is for root admins", "Nothing was registered"),
	}}})
}
