package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccLookupsByName(t *testing.T) {
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
				ExpectError: regexp.MustCompile(`(?s)Several Service Offerings Match.*name_regex.*3 service offerings have a name\s+matching\s+"\^cks-":\s+cks-large\s+\(.*\),\s+cks-medium\s+\(.*\),\s+cks-small\s+\(`),
			},
			{
				Config: env.ProviderConfig(`
data "cks_network" "typo" {
  name = "sim-isolated-netwrok"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Network Not Found.*no network visible to the caller is\s+named\s+"sim-isolated-netwrok".*sim-isolated-network\s+\(`),
			},
			{
				Config: env.ProviderConfig(`
data "cks_zone" "both" {
  name       = "sim-zone-1"
  name_regex = "sim"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*name_regex`),
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
