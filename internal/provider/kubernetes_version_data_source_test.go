package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccKubernetesVersionDataSource(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: env.ProviderConfig(`
data "cks_kubernetes_version" "v" {
  zone_id          = "` + env.Info.ZoneID + `"
  semantic_version = "1.33.13"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.v", tfjsonpath.New("id"), knownvalue.StringExact(env.VersionID("1.33.13"))),
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.v", tfjsonpath.New("semantic_version"), knownvalue.StringExact("1.33.13")),
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.v", tfjsonpath.New("state"), knownvalue.StringExact("Enabled")),
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.v", tfjsonpath.New("iso_state"), knownvalue.StringExact("Ready")),
				},
			},
			{
				Config: env.ProviderConfig(`
data "cks_kubernetes_version" "missing" {
  zone_id          = "` + env.Info.ZoneID + `"
  semantic_version = "1.20.0"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Kubernetes Version Not Usable.*semantic_version.*no Kubernetes version "1.20.0".*1\.33\.13`),
			},
		},
	})
}
