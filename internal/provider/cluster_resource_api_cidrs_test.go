package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// apiRules are the CIDR lists of the firewall rules on 6443 of the cluster.
func (e *simEnv) apiRules(id string) []string {
	var out []string
	for _, fw := range e.FirewallRulesOn(e.Cluster(id).IPAddressID) {
		if fw.StartPort == 6443 {
			out = append(out, fmt.Sprint(fw.CIDRList))
		}
	}
	return out
}

func (e *simEnv) expectAPIRules(id *string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := e.apiRules(*id); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("API firewall rules %v, want %v", got, want)
		}
		return nil
	}
}

// TestAccCluster_apiCIDRs narrows the API firewall rule and keeps it so
// through a scale by the provider, scales by another client, an upgrade,
// and a stop and start; a rule widened out of band is seen at refresh and
// narrowed again; without api_cidrs the rule is open again.
func TestAccCluster_apiCIDRs(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	narrow := `  api_cidrs             = ["127.0.0.0/8"]` + "\n"
	config := func(size int, version, extra string) string {
		return env.clusterHCL("api-cidrs", fmt.Sprintf("  kubernetes_version_id = %q\n  etcd_nodes = 1\n  size = %d\n  keypair = %q\n%s",
			env.VersionID(version), size, env.Info.Keypair, extra))
	}
	var id string
	narrowed := "[127.0.0.0/8]"
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:           config(1, "1.33.13", narrow),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            resource.ComposeTestCheckFunc(recordClusterID(&id), env.expectAPIRules(&id, narrowed)),
			},
			{Config: config(2, "1.33.13", narrow), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
			{
				PreConfig: func() {
					for _, size := range []int64{3, 2} {
						env.rawScale(t, id, size)
					}
				},
				Config:           config(2, "1.33.13", narrow),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            env.expectAPIRules(&id, narrowed),
			},
			{Config: config(2, "1.34.2", narrow), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
			{
				Config:           config(2, "1.34.2", narrow+`  state = "Stopped"`+"\n"),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            env.expectAPIRules(&id, narrowed),
			},
			{Config: config(2, "1.34.2", narrow), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, narrowed)},
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
				Config: config(2, "1.34.2", narrow),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("ssh_rules_in_sync", knownvalue.Bool(true))},
				Check:             env.expectAPIRules(&id, narrowed),
			},
			{Config: config(2, "1.34.2", ""), ConfigPlanChecks: emptyPlanAfterApply, Check: env.expectAPIRules(&id, "[0.0.0.0/0]")},
		},
	})
}
