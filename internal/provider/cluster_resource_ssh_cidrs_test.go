package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccCluster_sshCIDRsNarrowTheSSHRules checks ssh_cidrs: the node SSH
// range and the etcd SSH range carry the configured CIDRs from the create
// on, a scale through the provider leaves no open SSH rule behind, a scale
// by another client (which re-opens the node range) is seen at refresh and
// narrowed again by the next apply, and a change of ssh_cidrs changes the
// rules in place. The API rule keeps its own CIDRs.
func TestAccCluster_sshCIDRsNarrowTheSSHRules(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(size int, cidrs ...string) string {
		return env.etcdCluster(3, size).set("ssh_cidrs", cidrs).String()
	}
	var id string
	narrow := []string{"10.0.0.0/8"}
	wider := []string{"10.0.0.0/8", "192.0.2.0/24"}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:           config(1, narrow...),
				ConfigPlanChecks: emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
				},
				Check: func(s *terraform.State) error {
					var err error
					if id, err = clusterID(s); err != nil {
						return err
					}
					return env.expectSSHCIDRs(t, id, narrow)
				},
			},
			{
				Config:           config(2, narrow...),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            func(*terraform.State) error { return env.expectSSHCIDRs(t, id, narrow) },
			},
			{
				// Another client scales: CloudStack re-creates the node range
				// open. The refresh sees it, the plan narrows it again.
				PreConfig: func() { env.scaleOutOfBand(t, id, 1) },
				Config:    config(1, narrow...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(clusterAddr, tfjsonpathOf("ssh_rules_in_sync"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error { return env.expectSSHCIDRs(t, id, narrow) },
			},
			{
				Config:           config(1, wider...),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            func(*terraform.State) error { return env.expectSSHCIDRs(t, id, wider) },
			},
		},
	})
}

// TestAccCluster_cidrErrorsNameTheElement: a CIDR with host bits is refused
// at plan, naming its prefix and the one address (CloudStack would keep it
// as written and open the rule to the whole prefix), and every CIDR error,
// of cks_cluster and of the drift checks, names the list element and shows
// the attribute's line.
func TestAccCluster_cidrErrorsNameTheElement(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	attributeLine := func(attr string) string { return `line \d+, in [a-z]+ "cks_[a-z_]+" "test":\s+\d+:\s+` + attr + `\s+=` }
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config:      env.etcdCluster(0, 1).set("ssh_cidrs", []string{"10.0.0.0/8", "10.0.0.5/8"}).String(),
			PlanOnly:    true,
			ExpectError: regexpMust(`(?s)Invalid CIDR.*` + attributeLine("ssh_cidrs") + `.*ssh_cidrs\[1\]: "10\.0\.0\.5/8" has host bits set.*all of\s+10\.0\.0\.0/8.*Write\s+"10\.0\.0\.0/8".*"10\.0\.0\.5/32"`),
		},
		{
			Config:      env.etcdCluster(0, 1).set("api_cidrs", []string{"192.0.2.0/24", "2001:db8::/32"}).String(),
			PlanOnly:    true,
			ExpectError: regexpMust(`(?s)Invalid CIDR.*` + attributeLine("api_cidrs") + `.*api_cidrs\[1\]: CloudStack creates an isolated network.*2001:db8::/32`),
		},
		{
			Config:      env.ProviderConfig("data \"cks_clusters_drift\" \"test\" {\n  ssh_cidrs = [\"192.0.2.7/24\"]\n}\n"),
			PlanOnly:    true,
			ExpectError: regexpMust(`(?s)Invalid CIDR.*` + attributeLine("ssh_cidrs") + `.*ssh_cidrs\[0\]: "192\.0\.2\.7/24" has host bits set`),
		},
	}})
}
