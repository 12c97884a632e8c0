package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// TestAccCluster_apiCIDRs narrows the API firewall rule and keeps it so
// through a scale by the provider, scales by another client, an upgrade,
// and a stop and start; a rule widened out of band is seen at refresh and
// narrowed again; without api_cidrs the rule is open again.
func TestAccCluster_apiCIDRs(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	narrow := func(size int, version string) clusterConfig {
		return env.cluster("api-cidrs").version(version).etcd(1).size(size).keypair().set("api_cidrs", []string{"127.0.0.0/8"})
	}
	var id string
	narrowed := "[127.0.0.0/8]"
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:           narrow(1, "1.33.13").String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            resource.ComposeTestCheckFunc(recordClusterID(&id), env.expectAPIRules(&id, narrowed)),
			},
			{Config: narrow(2, "1.33.13").String(), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
			{
				PreConfig: func() {
					for _, size := range []int64{3, 2} {
						env.scaleOutOfBand(t, id, size)
					}
				},
				Config:           narrow(2, "1.33.13").String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            env.expectAPIRules(&id, narrowed),
			},
			{Config: narrow(2, "1.34.2").String(), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
			{
				Config:           narrow(2, "1.34.2").set("state", "Stopped").String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            env.expectAPIRules(&id, narrowed),
			},
			{Config: narrow(2, "1.34.2").String(), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
			{
				// Widened out of band: an open rule added by someone.
				PreConfig: func() {
					ref, err := env.API.CreateFirewallRule(context.Background(), cloudstack.CreateFirewallRuleParams{
						IPAddressID: env.Cluster(id).IPAddressID, Protocol: "tcp", StartPort: 6443, EndPort: 6443, CIDRList: []string{"0.0.0.0/0"}})
					if err == nil {
						err = env.WaitJob(ref.JobID)
					}
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: narrow(2, "1.34.2").String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check:             env.expectAPIRules(&id, narrowed),
			},
			{Config: narrow(2, "1.34.2").unset("api_cidrs").String(), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, "[0.0.0.0/0]")},
		},
	})
}
