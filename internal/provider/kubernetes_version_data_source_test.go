package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
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
				ExpectError: errorFragments("Kubernetes Version Not Usable", "semantic_version", `no Kubernetes version "1.20.0"`, "1.33.13"),
			},
		},
	})
}

// The newest 1.34, the one 1.33, and what an upgrade pipeline asks: the
// versions a cluster of 1.33.13 may be upgraded to.
func TestAccKubernetesVersionSelection(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	env := newSimEnv(t)
	zone := `zone_id = "` + env.Info.ZoneID + `"`
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: env.ProviderConfig(`
data "cks_kubernetes_version" "two" {
  ` + zone + `
  semantic_version_prefix = "1.34"
}
`),
				ExpectError: errorFragments("Several Kubernetes Versions Match", "semantic_version_prefix", "2 usable Kubernetes versions match: v1.34.4",
					"v1.34.2", "Set latest = true"),
			},
			{
				Config: env.ProviderConfig(`
data "cks_kubernetes_version" "both" {
  ` + zone + `
  semantic_version = "1.34.2"
  latest           = true
}
`),
				ExpectError: errorFragments("Invalid Attribute Combination"),
			},
			{
				Config: env.ProviderConfig(`
data "cks_kubernetes_version" "newest_134" {
  ` + zone + `
  semantic_version_prefix = "1.34"
  latest                  = true
}
data "cks_kubernetes_version" "only_133" {
  ` + zone + `
  semantic_version_prefix = "1.33"
}
data "cks_kubernetes_version" "newest" {
  ` + zone + `
  latest = true
}
data "cks_kubernetes_versions" "next" {
  ` + zone + `
  upgradable_from = data.cks_kubernetes_version.only_133.semantic_version
}
data "cks_kubernetes_versions" "recent" {
  ` + zone + `
  min_semantic_version = "1.33"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.newest_134", tfjsonpath.New("id"), knownvalue.StringExact(env.VersionID("1.34.4"))),
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.only_133", tfjsonpath.New("id"), knownvalue.StringExact(env.VersionID("1.33.13"))),
					// 1.35.0 is newer but Disabled.
					statecheck.ExpectKnownValue("data.cks_kubernetes_version.newest", tfjsonpath.New("semantic_version"), knownvalue.StringExact("1.34.4")),
					statecheck.ExpectKnownValue("data.cks_kubernetes_versions.next", tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact(env.VersionID("1.34.4")), knownvalue.StringExact(env.VersionID("1.34.2")),
					})),
					statecheck.ExpectKnownValue("data.cks_kubernetes_versions.recent", tfjsonpath.New("versions").AtSliceIndex(2).AtMapKey("semantic_version"),
						knownvalue.StringExact("1.33.13")),
					statecheck.ExpectKnownValue("data.cks_kubernetes_versions.recent", tfjsonpath.New("versions"), knownvalue.ListSizeExact(3)),
				},
			},
		},
	})
}

// Two versions of the name asked for are several matches, not a version
// that is not usable, and the error says how to tell them apart.
func TestVersionLookupOfADuplicateName(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	model := kubernetesVersionModel{Name: types.StringValue("v1.33.13"), SemanticVersion: types.StringNull(),
		Prefix: types.StringNull(), Latest: types.BoolNull()}
	addVersionLookupError(&diags, &clusterops.VersionChoiceError{Candidates: []string{"v1.33.13 (1.33.13, a)", "v1.33.13 (1.33.13, b)"},
		Exact: true}, &model)
	if len(diags) != 1 || diags[0].Summary() != "Several Kubernetes Versions Match" ||
		!strings.Contains(diags[0].Detail(), "Use the id of the one you mean") {
		t.Fatalf("diagnostics %v", diags)
	}
	if p, ok := diags[0].(diag.DiagnosticWithPath); !ok || p.Path().String() != "name" {
		t.Fatalf("diagnostic not on name: %v", diags[0])
	}
}
