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

// expectNoDrift fails when the refresh before a plan changed the resource:
// the state the provider saved then matched CloudStack.
type expectNoDrift struct{ addr string }

func (c expectNoDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address == c.addr {
			resp.Error = fmt.Errorf("the refresh changed %s, so the state saved before did not match CloudStack:\nsaved:     %v\nrefreshed: %v",
				c.addr, rc.Change.Before, rc.Change.After)
			return
		}
	}
}

// TestAccCluster_scaleJobFailsAfterRemovingVM injects a failure into a
// scale-down job after it removed a worker. The apply fails, the state it
// leaves matches CloudStack (the next refresh finds no drift) and records
// the one worker that exists, the rules are back in the provider's layout,
// and the next plan is empty; once an administrator has corrected
// node_count and the state scanner has run, the cluster is Running.
func TestAccCluster_scaleJobFailsAfterRemovingVM(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdClusterConfig(t, 3, 2, ""),
				Check: func(s *terraform.State) error {
					var err error
					id, err = clusterID(s)
					return err
				},
			},
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("scale-down", "vm-removed", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: env.etcdClusterConfig(t, 3, 1, ""),
				ExpectError: errorFragments("Cluster Operation Failed", "Scaling cluster", "to 1 workers failed",
					"Scaling failed for Kubernetes cluster", "The state now holds the cluster as CloudStack reports it"),
			},
			{
				Config: env.etcdClusterConfig(t, 3, 1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNoDrift{clusterAddr},
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringExact("Alert")),
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker")),
				},
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterNodeCount(id, 1); err != nil {
						t.Fatal(err)
					}
					env.Sim.RunScanner()
				},
				Config: env.etcdClusterConfig(t, 3, 1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("cloudstack_state", knownvalue.StringExact("Running"))},
				Check:             env.checkCluster(t, 1, etcdFirewalls(1, 3)),
			},
		},
	})
}

// TestAccCluster_transientReadErrorsRetried makes reads fail with 503 twice
// per command; the provider's reads retry and the apply succeeds.
func TestAccCluster_transientReadErrorsRetried(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(size int) string {
		return env.clusterHCL("retries", fmt.Sprintf("  kubernetes_version_id = %q\n  size = %d\n", env.VersionID(t, "1.33.13"), size))
	}
	readCommands := []string{"listKubernetesClusters", "queryAsyncJobResult", "listNetworks", "listFirewallRules", "listPortForwardingRules"}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config(1)},
			{
				PreConfig: func() {
					for _, command := range readCommands {
						env.Sim.FailNextCalls(command, 2, 503, "Service Unavailable")
					}
				},
				Config: config(2),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(2)),
					expectAttr("state", knownvalue.StringExact("Running")),
				},
				Check: func(*terraform.State) error {
					// Every injected failure was consumed by a read that was
					// then retried: a client without retries now succeeds.
					api, err := cloudstack.New(cloudstack.Config{APIURL: env.Info.APIURL, APIKey: env.Info.APIKey,
						SecretKey: env.Info.SecretKey, Retry: cloudstack.RetryPolicy{MaxAttempts: 1}})
					if err != nil {
						return err
					}
					ctx := context.Background()
					if _, err := api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{}); err != nil {
						return fmt.Errorf("an injected listKubernetesClusters failure was not consumed: %w", err)
					}
					if _, err := api.ListFirewallRules(ctx, cloudstack.ListRulesParams{}); err != nil {
						return fmt.Errorf("an injected listFirewallRules failure was not consumed: %w", err)
					}
					if _, err := api.QueryAsyncJob(ctx, "no-such-job"); cloudstack.IsTransient(err) {
						return fmt.Errorf("an injected queryAsyncJobResult failure was not consumed: %w", err)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_failedCreateIsDeleted injects a failure into the create
// job. CloudStack keeps the failed cluster; the provider deletes it and says
// so, and the next apply creates exactly one cluster.
func TestAccCluster_failedCreateIsDeleted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.clusterHCL("failing", fmt.Sprintf("  kubernetes_version_id = %q\n  size = 1\n", env.VersionID(t, "1.33.13")))
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: errorFragments("Cluster Creation Failed", "CloudStack keeps a failed cluster", "the provider deleted it; nothing is left behind"),
			},
			{
				PreConfig: func() {
					if n := env.liveClusters(); n != 0 {
						t.Fatalf("%d cluster(s) left after the failed create", n)
					}
				},
				Config: config,
				Check: func(*terraform.State) error {
					if n := env.liveClusters(); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_failedCreateKeptWhenDeleteFails makes the create job fail
// and the clean-up delete fail too. The half-made cluster is kept in state
// as tainted, and the next apply replaces it: one cluster in the end.
func TestAccCluster_failedCreateKeptWhenDeleteFails(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.clusterHCL("failing", fmt.Sprintf("  kubernetes_version_id = %q\n  size = 1\n", env.VersionID(t, "1.33.13")))
	var failedID string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
						t.Fatal(err)
					}
					if err := env.Sim.FailJobStep("delete", "vms", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: errorFragments("Cluster Creation Failed", "Deleting the half-made cluster failed too", "kept in state and marked tainted, so the next apply deletes and replaces it"),
			},
			{
				PreConfig: func() {
					d := env.Sim.DumpState()
					if len(d.Clusters) != 1 || d.Clusters[0].Removed {
						t.Fatalf("want the failed cluster kept, got %+v", d.Clusters)
					}
					failedID = d.Clusters[0].ID
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if id == failedID {
						return fmt.Errorf("the failed cluster %s was not replaced", id)
					}
					if n := env.liveClusters(); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}
