package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// The simulator's image store downloads an ISO in a second; poll it often.
func init() {
	isoDownloadPoll = 50 * time.Millisecond
}

const (
	oldISOURL = "https://download.example.org/cks/setup-1.33.20.iso"
	newISOURL = "https://download.example.org/cks/setup-1.34.9.iso"
)

// The operator's whole routine in Terraform: register a version, upgrade a
// cluster to it, disable the old one; a plan that would delete (or
// replace) the version in use fails at plan and names the cluster; the old
// one, unused, is deleted; and the destroy of everything deletes the
// cluster before the version.
func TestAccKubernetesVersionLifecycle(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	byName := fmt.Sprintf(`
data "cks_kubernetes_version" "new" {
  zone_id = %q
  name    = "v1.34.9-sim-zone-1"
}
`, env.Info.ZoneID)
	oldVersion := env.versionHCL("old", "1.33.20", oldISOURL, "")
	newVersion := env.versionHCL("new", "1.34.9", newISOURL, "")
	var oldID string
	accTest(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if err := env.expectNothingLeft(s); err != nil {
				return err
			}
			return env.expectNoVersion("1.34.9", "1.33.20")
		},
		Steps: []resource.TestStep{
			{
				Config: env.ProviderConfig(oldVersion, versionedCluster(env, "cks_kubernetes_version.old.id")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cks_kubernetes_version.old", tfjsonpath.New("iso_state"), knownvalue.StringExact("Ready")),
					statecheck.ExpectKnownValue("cks_kubernetes_version.old", tfjsonpath.New("name"), knownvalue.StringExact("v1.33.20-sim-zone-1")),
					statecheck.ExpectKnownValue("cks_kubernetes_version.old", tfjsonpath.New("state"), knownvalue.StringExact("Enabled")),
					statecheck.ExpectKnownValue("cks_kubernetes_version.old", tfjsonpath.New("direct_download"), knownvalue.Bool(false)),
					statecheck.CompareValuePairs("cks_cluster.test", tfjsonpath.New("kubernetes_version_id"),
						"cks_kubernetes_version.old", tfjsonpath.New("id"), compare.ValuesSame()),
				},
				Check: func(s *terraform.State) error {
					oldID = s.RootModule().Resources["cks_kubernetes_version.old"].Primary.ID
					return nil
				},
			},
			{
				// Register 1.34.9 and upgrade the cluster to it.
				Config: env.ProviderConfig(oldVersion, newVersion, versionedCluster(env, "cks_kubernetes_version.new.id")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("cks_kubernetes_version.new", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("cks_cluster.test", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("cks_cluster.test", tfjsonpath.New("kubernetes_version_id"),
						"cks_kubernetes_version.new", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("cks_cluster.test", tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.34.9")),
				},
			},
			{
				// Disable the old version, in place.
				Config: env.ProviderConfig(env.versionHCL("old", "1.33.20", oldISOURL, `  state = "Disabled"`), newVersion,
					versionedCluster(env, "cks_kubernetes_version.new.id")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("cks_kubernetes_version.old", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error { return env.expectVersionState(oldID, "Disabled") },
			},
			{
				// The cluster looks the version up; removing the version's
				// resource would delete the version it runs.
				Config: env.ProviderConfig(env.versionHCL("old", "1.33.20", oldISOURL, `  state = "Disabled"`), byName,
					versionedCluster(env, "data.cks_kubernetes_version.new.id")),
				PlanOnly:    true,
				ExpectError: errorFragments("Kubernetes Version In Use", "This plan deletes it", "is used by 1 cluster: versioned ("),
			},
			{
				// A new url would replace it, which deletes it.
				Config: env.ProviderConfig(env.versionHCL("old", "1.33.20", oldISOURL, `  state = "Disabled"`), byName,
					env.versionHCL("new", "1.34.9", "https://download.example.org/cks/other.iso", ""),
					versionedCluster(env, "data.cks_kubernetes_version.new.id")),
				PlanOnly:    true,
				ExpectError: errorFragments("Kubernetes Version In Use", "Changing url replaces it", "versioned ("),
			},
			{
				// The old version, which no cluster uses, goes.
				Config: env.ProviderConfig(newVersion, versionedCluster(env, "cks_kubernetes_version.new.id")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("cks_kubernetes_version.old", plancheck.ResourceActionDestroy)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error { return env.expectNoVersion("1.33.20") },
			},
			{
				ResourceName:      "cks_kubernetes_version.new",
				ImportState:       true,
				ImportStateVerify: true,
				// checksum is not set here; timeouts are the configuration's.
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// A download the image store fails fails the apply with its reason, on the
// url attribute, and leaves no version behind.
func TestAccKubernetesVersionDownloadFails(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	const reason = "HTTP Server returned 404 (expected 200 OK)"
	if err := env.Sim.SetISODownload(newISOURL, simulator.ISODownload{Error: reason}); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      env.ProviderConfig(env.versionHCL("new", "1.34.9", newISOURL, "")),
			ExpectError: errorFragments("Kubernetes Version ISO Download Failed", reason, "deleted again"),
		}},
		CheckDestroy: func(*terraform.State) error { return env.expectNoVersion("1.34.9") },
	})
}

// Bad input is refused at plan time, naming the attribute.
func TestAccKubernetesVersionValidation(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	for _, tc := range []struct {
		semver, extra string
		want          *regexp.Regexp
	}{
		{"1.34", "", errorFragments("semantic_version", "not MAJOR.MINOR.PATCH")},
		{"1.10.2", "", errorFragments("semantic_version", "older than 1.11.0")},
		{"1.34.9", `  state = "enabled"`, errorFragments("state", "Enabled", "Disabled")},
		{"1.34.9", `  arch = "arm64"`, errorFragments("arch", "aarch64")},
	} {
		t.Run(tc.semver+tc.extra, func(t *testing.T) {
			accTest(t, resource.TestCase{Steps: []resource.TestStep{{
				Config: env.ProviderConfig(env.versionHCL("v", tc.semver, newISOURL, tc.extra)), PlanOnly: true, ExpectError: tc.want,
			}}})
		})
	}
}

// versionedCluster is cks_cluster.test on the version versionRef.
func versionedCluster(e *simEnv, versionRef string) string {
	return e.cluster("versioned").keypair().set("kubernetes_version_id", hcl(versionRef)).through("").String()
}
