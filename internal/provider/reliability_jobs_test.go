package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// Rows of relFaultTable that hit mutating calls and jobs: a lost create,
// a job failing at each step, an apply cut short by its timeout.

// relSize, relVersion and relState change what the configuration asks.
func relSize(n int) func(*relClusterSpec) { return func(s *relClusterSpec) { s.size = n } }

func relVersion(semver string) func(*relClusterSpec) {
	return func(s *relClusterSpec) { s.version = semver }
}

func relState(state string) func(*relClusterSpec) { return func(s *relClusterSpec) { s.state = state } }

// relClusterID is the id of the live cluster of the scenario.
func (sc *relScenario) relClusterID() string {
	sc.t.Helper()
	for _, c := range sc.env.Sim.DumpState().Clusters {
		if !c.Removed && c.Name == sc.cluster.name {
			return c.ID
		}
	}
	sc.t.Fatalf("no live cluster named %s", sc.cluster.name)
	return ""
}

// relExpectState checks what the configuration asked of the cluster.
func (sc *relScenario) relExpectState() []statecheck.StateCheck {
	c := sc.cluster
	return []statecheck.StateCheck{
		expectAttr("state", knownvalue.StringExact(c.state)),
		expectAttr("size", knownvalue.Int64Exact(int64(c.size))),
		expectAttr("kubernetes_version_id", knownvalue.StringExact(sc.env.VersionID(sc.t, c.version))),
	}
}

// relJobFault fails the next job of op at step while an apply makes the
// change. The apply must fail naming the operation and quoting the job's
// error; the refresh before the next plan must find the state saved by the
// failed apply equal to what CloudStack reports; and once CloudStack's
// state scanner has run (and, when the failure left the VM map at odds
// with the size, once an administrator has corrected node_count, which no
// API call can), the next apply must reach the configuration.
func relJobFault(op, step string, change func(*relClusterSpec)) func(*relScenario) []resource.TestStep {
	return func(sc *relScenario) []resource.TestStep {
		change(&sc.cluster)
		target := sc.config()
		message := fmt.Sprintf("Injected failure of %s at step %s", op, step)
		return []resource.TestStep{
			{
				PreConfig: func() {
					if err := sc.env.Sim.FailJobStep(op, step, 1, message); err != nil {
						sc.t.Fatal(err)
					}
				},
				Config:      target,
				ExpectError: errorFragments("Cluster Operation Failed", relOperationOf(op), message),
			},
			{
				// The plan's refresh is a refresh-only read of the cluster:
				// it must change nothing the failed apply saved. A job that
				// failed after changing the VM map leaves the workers the
				// configuration asks for, recorded as such: nothing to plan.
				Config:             target,
				PlanOnly:           true,
				ExpectNonEmptyPlan: !relMapChangedBeforeFailing[op+"/"+step],
				ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{relNoRefreshDrift{clusterAddr}}},
			},
			{
				PreConfig:         sc.relAdministratorAndScanner,
				Config:            target,
				ConfigStateChecks: sc.relExpectState(),
			},
		}
	}
}

// relMapChangedBeforeFailing are the job steps that fail after the job
// added or removed worker VMs.
var relMapChangedBeforeFailing = map[string]bool{
	"scale-up/network-rules": true, "scale-up/nodes-ready": true, "scale-down/vm-removed": true, "scale-down/network-rules": true,
}

// relAdministratorAndScanner does what the time after a failure does on a
// real CloudStack: an administrator corrects node_count when the VM map
// disagrees with it, and the state scanner runs.
func (sc *relScenario) relAdministratorAndScanner() {
	c, err := sc.env.apiClient(sc.t).GetKubernetesCluster(context.Background(), sc.relClusterID())
	if err != nil {
		sc.t.Fatal(err)
	}
	if bad := clusterops.InconsistentMap(c); bad != nil {
		if err := sc.env.Sim.SetClusterNodeCount(c.ID, bad.Workers); err != nil {
			sc.t.Fatal(err)
		}
	}
	sc.env.Sim.RunScanner()
}

// relOperationOf is how the provider's error names a failed operation.
func relOperationOf(op string) string {
	switch op {
	case "scale-up", "scale-down":
		return "Scaling cluster"
	case "upgrade":
		return "Upgrading cluster"
	case "stop":
		return "Stopping cluster"
	default:
		return "Starting cluster"
	}
}

// relStopped stops the cluster out of band before a row, as an operator
// would, so that the row's apply has to start it.
func relStopped(steps func(*relScenario) []resource.TestStep) func(*relScenario) []resource.TestStep {
	return func(sc *relScenario) []resource.TestStep {
		out := steps(sc)
		inject := out[0].PreConfig
		out[0].PreConfig = func() {
			ctx := context.Background()
			api := sc.env.apiClient(sc.t)
			ref, err := api.StopKubernetesCluster(ctx, sc.relClusterID())
			if err == nil {
				_, err = cloudstack.WaitForJob(ctx, api, ref.JobID, clusterJobWait)
			}
			if err != nil {
				sc.t.Fatalf("stopping the cluster out of band: %v", err)
			}
			inject()
		}
		return out
	}
}

// relCreateNeverRan delays createKubernetesCluster in the simulator beyond
// the provider's request_timeout: the client gives up and the simulator,
// seeing the client gone, never runs the command. The provider must not
// send the create again, must find no cluster and say so; the next apply
// creates exactly one.
func relCreateNeverRan(sc *relScenario) []resource.TestStep {
	config := sc.config()
	return []resource.TestStep{
		{
			PreConfig: func() {
				sc.env.Sim.ResetCallCounts()
				sc.env.Sim.SetCommandLatency("createKubernetesCluster", 10*time.Second)
			},
			Config: config,
			ExpectError: errorFragments("Unable to Create Cluster", "createKubernetesCluster got no answer",
				fmt.Sprintf("no cluster named %q", sc.cluster.name), "The create was not sent again"),
		},
		{
			PreConfig: func() {
				sc.env.Sim.ClearFaults()
				if n := sc.env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
					sc.t.Fatalf("createKubernetesCluster was sent %d times, want once", n)
				}
				if err := sc.env.relExpectClean(); err != nil {
					sc.t.Fatal(err)
				}
			},
			Config:            config,
			ConfigStateChecks: sc.relExpectState(),
		},
	}
}

// relCreateAnswerLost renames the cluster (a replacement) and loses the
// answer to its createKubernetesCluster: CloudStack creates the cluster,
// the client times out. The provider must adopt the one cluster it made,
// having sent the create once.
func relCreateAnswerLost(sc *relScenario) []resource.TestStep {
	sc.cluster.name = "lost-answer"
	return []resource.TestStep{{
		PreConfig: func() {
			sc.env.Sim.ResetCallCounts()
			sc.proxy.loseNext("createKubernetesCluster")
		},
		Config: sc.config(),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
		}},
		ConfigStateChecks: sc.relExpectState(),
		Check: func(s *terraform.State) error {
			defer sc.proxy.disarm()
			if retried, abandoned := sc.proxy.heldAndRetried(); len(abandoned) != 1 || len(retried) != 0 {
				return fmt.Errorf("want the create's answer lost once and the create never sent again; retried %v, lost %v", retried, abandoned)
			}
			if n := sc.env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
				return fmt.Errorf("createKubernetesCluster reached CloudStack %d times, want once", n)
			}
			id, err := clusterID(s)
			if err != nil {
				return err
			}
			if live := sc.relClusterID(); live != id {
				return fmt.Errorf("the state holds cluster %s, the simulator %s", id, live)
			}
			return nil
		},
	}}
}

// relCreateInterrupted creates the cluster with a create timeout shorter
// than the simulator's jobs: the apply is cut short while CloudStack still
// works. The cluster must be kept in state (tainted) rather than leaked,
// and the next apply replaces it with exactly one cluster.
func relCreateInterrupted(sc *relScenario) []resource.TestStep {
	sc.cluster.timeouts = "  timeouts = { create = \"500ms\" }\n"
	interrupted := sc.config()
	sc.cluster.timeouts = ""
	var firstID string
	return []resource.TestStep{
		{
			Config: interrupted,
			ExpectError: errorFragments("Cluster Creation Timed Out", "did not come up within the create timeout",
				"kept in state and marked tainted"),
		},
		{
			PreConfig: func() { firstID = sc.relClusterID() },
			Config:    sc.config(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: sc.relExpectState(),
			Check: func(s *terraform.State) error {
				id, err := clusterID(s)
				if err != nil {
					return err
				}
				if id == firstID {
					return fmt.Errorf("the interrupted cluster %s was not replaced", id)
				}
				return nil
			},
		},
	}
}

// relScaleInterrupted scales with an update timeout shorter than the scale
// job. The apply must fail saying it timed out, and the next apply (with
// the default timeout) converges.
func relScaleInterrupted(sc *relScenario) []resource.TestStep {
	sc.cluster.size = 2
	sc.cluster.timeouts = "  timeouts = { update = \"500ms\" }\n"
	interrupted := sc.config()
	sc.cluster.timeouts = ""
	return []resource.TestStep{
		{
			Config:      interrupted,
			ExpectError: errorFragments("Cluster Operation Timed Out", "did not finish within the configured timeout"),
		},
		{Config: sc.config(), ConfigStateChecks: sc.relExpectState()},
	}
}
