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

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// TestAccCluster_brokenClusterGetsItsSSHBackWithoutRestart imports a
// cluster that #14159 broke. A size CloudStack could never apply fails the
// plan with the administrator's fix; with the size that really exists,
// apply restores every SSH path without a start, stop or scale call, and
// the next plan is empty. Once an administrator corrects node_count and the
// state scanner runs, the next plan is empty too, with the cluster Running.
func TestAccCluster_brokenClusterGetsItsSSHBackWithoutRestart(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t, simtest.WithProfile("4.22.1.1"))
	id := env.createEtcdClusterOutOfBand()
	env.breakByEtcdRulePick(t, id)
	adminFix := errorFragments("Cluster Size Cannot Change", "CloudStack refuses every size change",
		"node_count = 1 WHERE uuid = '"+id+"'", "terraform apply -replace")
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config:             env.etcdCluster(3, 1).String(),
				ResourceName:       clusterAddr,
				ImportState:        true,
				ImportStateId:      id,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					a := states[0].Attributes
					if a["size"] != "1" || a["cloudstack_state"] != "Alert" || a["ssh_rules_in_sync"] != "false" {
						return fmt.Errorf("imported size %s, cloudstack_state %s, ssh_rules_in_sync %s; want the 1 worker that "+
							"exists, Alert, false", a["size"], a["cloudstack_state"], a["ssh_rules_in_sync"])
					}
					return nil
				},
			},
			{
				// The size the cluster had before the failure: no scale can run.
				Config:      env.etcdCluster(3, 2).String(),
				ExpectError: adminFix,
			},
			{
				PreConfig: env.Sim.ResetCallCounts,
				Config:    env.etcdCluster(3, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("cloudstack_state", knownvalue.StringExact("Alert")),
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(env.expectNoCalls(lifecycleCalls...), func(s *terraform.State) error {
					c, err := env.API.GetKubernetesCluster(context.Background(), id)
					if err != nil {
						return err
					}
					if c.State != "Alert" || c.Size != 2 {
						return fmt.Errorf("cluster %s size %d: only an administrator can change it", c.State, c.Size)
					}
					return env.checkRulesAndSSH(t, c, etcdFirewalls(1, 3))
				}),
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterNodeCount(id, 1); err != nil {
						t.Fatal(err)
					}
					env.Sim.RunScanner()
				},
				Config:           env.etcdCluster(3, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringExact("Running")),
					expectAttr("size", knownvalue.Int64Exact(1)),
				},
				Check: env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
			},
			{
				// And the cluster scales again.
				Config:           env.etcdCluster(3, 2).String(),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check:            env.checkCluster(t, clusterAddr, 2, etcdFirewalls(2, 3)),
			},
		},
	})
}

// TestAccCluster_failedScaleUpKeepsTheWorkersItCreated fails a scale-up
// after its new worker joined the VM map: CloudStack keeps the worker but
// not the new size. The state records the two workers that exist; a size
// of 1 cannot be applied and says why; size 2 plans no change until an
// administrator corrects node_count, and then the cluster is Running.
func TestAccCluster_failedScaleUpKeepsTheWorkersItCreated(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t, simtest.WithProfile("4.22.1.1"))
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(3, 1).String(),
				Check:  recordClusterID(&id),
			},
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("scale-up", "nodes-ready", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      env.etcdCluster(3, 2).String(),
				ExpectError: errorFragments("Scaling cluster", "to 2 workers", "desired number of nodes in ready state"),
			},
			{
				Config: env.etcdCluster(3, 1).String(),
				ExpectError: errorFragments("Cluster Size Cannot Change", "failed scale-up created worker VMs",
					"node_count = 2"),
			},
			{
				PreConfig: env.Sim.ResetCallCounts,
				Config:    env.etcdCluster(3, 2).String(),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(2)),
					expectAttr("cloudstack_state", knownvalue.StringExact("Alert")),
				},
				Check: env.expectNoCalls(lifecycleCalls...),
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterNodeCount(id, 2); err != nil {
						t.Fatal(err)
					}
					env.Sim.RunScanner()
				},
				Config:           env.etcdCluster(3, 2).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringExact("Running")),
				},
				Check: env.checkCluster(t, clusterAddr, 2, etcdFirewalls(2, 3)),
			},
		},
	})
}
