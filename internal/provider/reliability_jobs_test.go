package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

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
		expectAttr("kubernetes_version_id", knownvalue.StringExact(sc.env.VersionID(c.version))),
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
	c, err := sc.env.API.GetKubernetesCluster(context.Background(), sc.relClusterID())
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
			api := sc.env.API
			ref, err := api.StopKubernetesCluster(ctx, sc.relClusterID())
			if err == nil {
				err = sc.env.WaitJob(ref.JobID)
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
			// The request timed out, not the resource: the error names
			// request_timeout, and says the request was sent.
			ExpectError: errorFragments("Unable to Create Cluster", fmt.Sprintf("createKubernetesCluster for %q got no answer", sc.cluster.name),
				"no answer within the per-request timeout of 1s", "the request was sent but no answer came",
				fmt.Sprintf("no cluster named %q appeared", sc.cluster.name), "The create was not sent again",
				"did not come within the provider's request_timeout"),
		},
		{
			PreConfig: func() {
				sc.env.Sim.ClearFaults()
				if n := sc.env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
					sc.t.Fatalf("createKubernetesCluster was sent %d times, want once", n)
				}
				if err := sc.env.expectClean(); err != nil {
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
			sc.proxy.rearm(holdAfterRun, 1, "createKubernetesCluster")
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
// than the simulator's jobs: the apply's wait is cut short while CloudStack
// still works. The healthy cluster must be kept in state, not tainted,
// and the next apply finishes it without replacing it.
func relCreateInterrupted(sc *relScenario) []resource.TestStep {
	sc.cluster.timeouts = `{ create = "500ms" }`
	interrupted := sc.config()
	sc.cluster.timeouts = ""
	sameID := statecheck.CompareValue(compare.ValuesSame())
	return []resource.TestStep{
		{
			Config: interrupted,
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("cloudstack_state", knownvalue.StringRegexp(regexpMust("^(Created|Starting)$"))),
				sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
			},
			Check: func(s *terraform.State) error {
				if id, err := clusterID(s); err != nil || id != sc.relClusterID() {
					return fmt.Errorf("state holds %s (%v), the simulator %s", id, err, sc.relClusterID())
				}
				return expectUntainted(s)
			},
		},
		{
			PreConfig: func() { sc.relWaitState("Running") },
			Config:    sc.config(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				expectNotReplaced{clusterAddr},
			}},
			// The interrupted cluster is kept.
			ConfigStateChecks: append(sc.relExpectState(), sameID.AddStateValue(clusterAddr, tfjsonpath.New("id"))),
		},
	}
}

// relWaitState waits until the scenario's cluster is in state.
func (sc *relScenario) relWaitState(state string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range sc.env.Sim.DumpState().Clusters {
			if !c.Removed && c.Name == sc.cluster.name && c.State == state {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	sc.t.Fatalf("cluster %s did not reach state %s", sc.cluster.name, state)
}

// relCreatePollFailed answers the first poll of the create job with HTTP 530
// from queryAsyncJobResult itself: a failed poll, not a failed job. The
// create must succeed and delete nothing.
func relCreatePollFailed(sc *relScenario) []resource.TestStep {
	return []resource.TestStep{{
		PreConfig: func() {
			sc.env.Sim.ResetCallCounts()
			sc.env.Sim.FailNextCalls("queryAsyncJobResult", 1, 530, "Injected failure of queryAsyncJobResult")
		},
		Config:            sc.config(),
		ConfigStateChecks: sc.relExpectState(),
		Check: func(s *terraform.State) error {
			defer sc.env.Sim.ClearFaults()
			counts := sc.env.Sim.CallCounts()
			if counts["deleteKubernetesCluster"] != 0 || counts["queryAsyncJobResult"] < 2 {
				return fmt.Errorf("calls %v: want the failed poll retried and nothing deleted", counts)
			}
			return expectUntainted(s)
		},
	}}
}

// relCreateJobFailed renames the cluster (a replacement) and fails its
// create job at nodes-ready: CloudStack keeps the failed cluster, which the
// provider reads, finds in Error and deletes. The next apply creates one.
func relCreateJobFailed(sc *relScenario) []resource.TestStep {
	sc.cluster.name = "create-failed"
	config := sc.config()
	return []resource.TestStep{
		{
			PreConfig: func() {
				if err := sc.env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
					sc.t.Fatal(err)
				}
			},
			Config:      config,
			ExpectError: errorFragments("Cluster Creation Failed", "the provider read it in state Error", "so the provider deleted it"),
		},
		{
			PreConfig: func() {
				if n := len(sc.env.liveClusters()); n != 0 {
					sc.t.Fatalf("%d clusters left after the failed create, want 0", n)
				}
			},
			Config:            config,
			ConfigStateChecks: sc.relExpectState(),
		},
	}
}

// relCreateTwin renames the cluster (a replacement) to a name a cluster made
// out of band already has, as a create whose answer was lost may have made.
// The provider refuses to create a twin and asks to import it; importing it
// converges, and that cluster is never lost.
func relCreateTwin(sc *relScenario) []resource.TestStep {
	sc.cluster.name = "create-twin"
	config := sc.config()
	var twin string
	steps := []resource.TestStep{{
		PreConfig:   func() { twin = sc.env.createOutOfBand(sc.t, sc.cluster.name, int64(sc.cluster.size)) },
		Config:      config,
		ExpectError: errorFragments("Cluster Name Already Taken", fmt.Sprintf("named %q already exists", sc.cluster.name), "terraform import"),
	}}
	imported := importSteps(config, &twin)
	imported[0].ConfigStateChecks = sc.relExpectState()
	return append(steps, imported...)
}

// relScaleInterrupted scales with an update timeout shorter than the scale
// job. The apply must fail saying it timed out, and the next apply (with
// the default timeout) converges.
func relScaleInterrupted(sc *relScenario) []resource.TestStep {
	sc.cluster.size = 2
	sc.cluster.timeouts = `{ update = "500ms" }`
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
