package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The fault-injection suite: every fault it injects, when, and
// what must happen. TestAccReliability_faults runs each row against its own
// simulator with the real Terraform CLI and asserts the outcome the row
// states. After every row the simulator's dump must show exactly the
// expected clusters and no leaked or duplicated VM, rule or network; after a
// failure, before the next apply converges, no leak or duplicate either.
//
//	fault injected                                              | during                    | outcome
//	------------------------------------------------------------+---------------------------+-----------------------------
//	HTTP 503 twice on every read command                        | apply (create)            | survived: retried
//	HTTP 502 twice on every read command                        | refresh (plan)            | survived: retried, empty plan
//	HTTP 500 twice on every read command                        | drift reads (one + fleet) | survived: retried, in sync
//	HTTP 429 twice on every read command                        | apply (scale up)          | survived: retried
//	HTTP 429 twice on every read command                        | refresh (plan)            | survived: retried, empty plan
//	HTTP 429 twice on every read command                        | drift reads (one + fleet) | survived: retried, in sync
//	HTTP 200 carrying an error object on listKubernetesClusters | refresh (plan)            | failed clearly, cluster kept in state; next plan empty
//	first call of every read held past request_timeout          | apply (scale down)        | survived: retried
//	first call of every read held past request_timeout          | refresh (plan)            | survived: retried, empty plan
//	first call of every read held past request_timeout          | drift reads (one + fleet) | survived: retried, in sync
//	createKubernetesCluster held past request_timeout, not run  | apply (create)            | failed clearly (request timeout named), no cluster; next apply creates one
//	createKubernetesCluster run, its answer lost (timeout)      | apply (create)            | survived: adopted, one cluster, create sent once
//	HTTP 530 from queryAsyncJobResult during the create job     | apply (create)            | survived: poll retried, nothing deleted
//	job failure at create nodes-ready                           | apply (create)            | failed clearly: read in Error, deleted; next apply creates one
//	a cluster of the same name made out of band                 | apply (create)            | failed clearly: refused with an import hint; the import converges
//	job failure at scale-up vms / network-rules / nodes-ready   | apply (size +1)           | failed clearly; state = CloudStack; converges (*)
//	job failure at scale-down remove-vm / vm-removed / rules    | apply (size -1)           | failed clearly; state = CloudStack; converges (*)
//	job failure at upgrade node                                 | apply (version +1 minor)  | failed clearly; state = CloudStack; converges (*)
//	job failure at stop vms                                     | apply (state = Stopped)   | failed clearly; state = CloudStack; converges (*)
//	job failure at start vms / api / kubeconfig                 | apply (state = Running)   | failed clearly; state = CloudStack; converges (*)
//	create timeout (timeouts.create) shorter than the job       | apply (create)            | survived: kept untainted with a warning; next apply finishes it
//	update timeout (timeouts.update) shorter than the scale job | apply (size +1)           | failed clearly; next apply converges
//	SSH connection dropped mid-command                          | drift read (ssh)          | reported in node_check_error, VMs still compared
//	Kubernetes API answering 500                                | drift read (kubeconfig)   | reported in node_check_error, VMs still compared
//
// (*) A failed job leaves the cluster in Alert. The next apply converges
// once CloudStack's state scanner has returned it to Running; when the job
// failed after the VM map changed (scale-up network-rules or nodes-ready,
// scale-down vm-removed or network-rules), only after an administrator has
// corrected node_count, which no API call can: meanwhile apply restores the
// SSH rules, makes no start, stop or scale call, and says what to correct.
//
// Related faults covered elsewhere: a create whose connection is reset after
// CloudStack ran it, or before, whose answer is lost while somebody else
// makes a cluster of the same name, whose cluster appears after the provider
// stopped looking, and whose connection is refused
// (cluster_resource_adopt_test.go); a failed create job whose delete fails
// too, an interrupt (Ctrl-C) during the create, a step after the create that
// CloudStack refuses (the autoscaler above cloud.kubernetes.cluster.max.size)
// or that fails once (cluster_resource_faults_test.go); reads failing after
// the create job (cluster_resource_readback_test.go); a wrong SSH host key
// (cluster_drift_gate_test.go), TLS failures (transport_test.go).

// relOutcome is what a row requires.
type relOutcome string

const (
	relSurvived      relOutcome = "survived"
	relFailedClearly relOutcome = "failed clearly, then converged"
	relReported      relOutcome = "reported in node_check_error"
)

// relFault is one row: the fault, when it strikes, the required outcome,
// and the steps that inject it and assert the outcome.
type relFault struct {
	scenario string
	fault    string
	during   string
	outcome  relOutcome
	steps    func(*relScenario) []resource.TestStep
}

var relFaultTable = []relFault{
	{"transient reads", "HTTP 503 twice on every read", "apply (create)", relSurvived, relStatusFault(503, relApplyCreate)},
	{"transient reads", "HTTP 502 twice on every read", "refresh", relSurvived, relStatusFault(502, relRefresh)},
	{"transient reads", "HTTP 500 twice on every read", "drift reads", relSurvived, relStatusFault(500, relDriftRead)},
	{"transient reads", "HTTP 429 twice on every read", "apply (scale up)", relSurvived, relStatusFault(429, relApplyScale(2))},
	{"transient reads", "HTTP 429 twice on every read", "refresh", relSurvived, relStatusFault(429, relRefresh)},
	{"transient reads", "HTTP 429 twice on every read", "drift reads", relSurvived, relStatusFault(429, relDriftRead)},
	{"transient reads", "HTTP 200 carrying an error object on listKubernetesClusters", "refresh", relFailedClearly, relErrorIn200},
	{"timed-out reads", "first call of every read held past request_timeout", "apply (scale down)", relSurvived, relTimeoutFault(relApplyScale(1))},
	{"timed-out reads", "first call of every read held past request_timeout", "refresh", relSurvived, relTimeoutFault(relRefresh)},
	{"timed-out reads", "first call of every read held past request_timeout", "drift reads", relSurvived, relTimeoutFault(relDriftRead)},

	{"lost create", "createKubernetesCluster held past request_timeout before CloudStack ran it", "apply (create)", relFailedClearly, relCreateNeverRan},
	{"lost create", "createKubernetesCluster ran, its answer held past request_timeout", "apply (create)", relSurvived, relCreateAnswerLost},

	{"scale-up job", "job failure at scale-up step vms", "apply (size 1 -> 2)", relFailedClearly, relJobFault("scale-up", "vms", relSize(2))},
	{"scale-up job", "job failure at scale-up step network-rules", "apply (size 2 -> 3)", relFailedClearly, relJobFault("scale-up", "network-rules", relSize(3))},
	{"scale-up job", "job failure at scale-up step nodes-ready", "apply (size 3 -> 4)", relFailedClearly, relJobFault("scale-up", "nodes-ready", relSize(4))},

	{"scale-down job", "job failure at scale-down step remove-vm", "apply (size 4 -> 3)", relFailedClearly, relJobFault("scale-down", "remove-vm", relSize(3))},
	{"scale-down job", "job failure at scale-down step vm-removed", "apply (size 3 -> 2)", relFailedClearly, relJobFault("scale-down", "vm-removed", relSize(2))},
	{"scale-down job", "job failure at scale-down step network-rules", "apply (size 2 -> 1)", relFailedClearly, relJobFault("scale-down", "network-rules", relSize(1))},

	{"lifecycle jobs", "job failure at upgrade step node", "apply (1.32.9 -> 1.33.13)", relFailedClearly, relJobFault("upgrade", "node", relVersion("1.33.13"))},
	{"lifecycle jobs", "job failure at stop step vms", "apply (state Stopped)", relFailedClearly, relJobFault("stop", "vms", relState("Stopped"))},
	{"lifecycle jobs", "job failure at start step vms", "apply (state Running)", relFailedClearly, relJobFault("start", "vms", relState("Running"))},
	{"lifecycle jobs", "job failure at start step api", "apply (state Running)", relFailedClearly, relStopped(relJobFault("start", "api", relState("Running")))},
	{"lifecycle jobs", "job failure at start step kubeconfig", "apply (state Running)", relFailedClearly, relStopped(relJobFault("start", "kubeconfig", relState("Running")))},

	{"create job", "HTTP 530 from queryAsyncJobResult while the create job runs", "apply (create)", relSurvived, relCreatePollFailed},
	{"create job", "job failure at create step nodes-ready", "apply (rename: create)", relFailedClearly, relCreateJobFailed},
	{"create job", "a cluster of the same name made out of band", "apply (rename: create)", relFailedClearly, relCreateTwin},

	{"interrupted apply", "timeouts.create shorter than the create job", "apply (create)", relSurvived, relCreateInterrupted},
	{"interrupted apply", "timeouts.update shorter than the scale job", "apply (size 1 -> 2)", relFailedClearly, relScaleInterrupted},

	{"node faults", "SSH connection dropped mid-command", "drift read (node_source ssh)", relReported, relSSHDropped},
	{"node faults", "Kubernetes API answering 500", "drift read (node_source kubeconfig)", relReported, relKubeAPI500},
}

// relScenario is the simulator and cluster a group of rows shares.
type relScenario struct {
	t     *testing.T
	env   *simEnv
	proxy *faultProxy
	drift *simEnv
	// cluster is the configuration of the shared cluster; rows change it.
	cluster relClusterSpec
	// driftClusterID is the cluster the node-fault rows check.
	driftClusterID string
	// existing makes the scenario start with the cluster created, for rows
	// that change an existing cluster.
	existing bool
	// requestTimeout is the provider's request_timeout in seconds, 0 for
	// the default. Rows that hold calls until the client gives up set it
	// to 1, the least allowed, to stay fast.
	requestTimeout int
}

// relClusterSpec is what the configuration asks of cks_cluster.test.
type relClusterSpec struct {
	name, version, state string
	size                 int
	timeouts             hcl // the timeouts object, "" for none
	driftSources         bool
}

// relScenarios start the simulator each group of rows needs.
var relScenarios = map[string]func(t *testing.T) *relScenario{
	"transient reads": func(t *testing.T) *relScenario { return newRelScenario(t, "transient", 1) },
	"timed-out reads": func(t *testing.T) *relScenario {
		sc := existingRelScenario(t, "timeouts", 2, "1.33.13")
		sc.requestTimeout = 1
		return sc
	},
	"lost create": func(t *testing.T) *relScenario {
		sc := newRelScenario(t, "lost", 1)
		sc.requestTimeout = 1
		return sc
	},
	"create job":     func(t *testing.T) *relScenario { return newRelScenario(t, "create-job", 1) },
	"scale-up job":   func(t *testing.T) *relScenario { return existingRelScenario(t, "scale-up", 1, "1.33.13") },
	"scale-down job": func(t *testing.T) *relScenario { return existingRelScenario(t, "scale-down", 4, "1.33.13") },
	"lifecycle jobs": func(t *testing.T) *relScenario { return existingRelScenario(t, "lifecycle", 1, "1.32.9") },
	"interrupted apply": func(t *testing.T) *relScenario {
		// Jobs that outlast the 500 ms create and update timeouts by
		// seconds, so that a slow machine still reads the cluster before
		// its job ends, and that wait in the queue past those timeouts,
		// so that the cluster has not yet moved when the wait ends.
		return newRelScenario(t, "interrupted", 1, simtest.WithJobDuration(4*time.Second), simtest.WithJobQueueDelay(time.Second))
	},
	"node faults": func(t *testing.T) *relScenario {
		e := newDriftEnv(t)
		return &relScenario{t: t, env: e, drift: e}
	},
}

func newRelScenario(t *testing.T, name string, size int, opts ...simtest.Option) *relScenario {
	env := newSimEnv(t, opts...)
	return &relScenario{t: t, env: env, proxy: newFaultProxy(t, env.Info.APIURL),
		cluster: relClusterSpec{name: name, version: "1.33.13", state: "Running", size: size}}
}

// existingRelScenario starts with the cluster created at the version.
func existingRelScenario(t *testing.T, name string, size int, version string) *relScenario {
	sc := newRelScenario(t, name, size)
	sc.cluster.version = version
	sc.existing = true
	return sc
}

// TestAccReliability_faults runs every row of relFaultTable, grouped by
// scenario; the scenarios run in parallel, each on its own simulator.
func TestAccReliability_faults(t *testing.T) {
	t.Parallel()
	var order []string
	for _, row := range relFaultTable {
		if !slices.Contains(order, row.scenario) {
			order = append(order, row.scenario)
		}
	}
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start, ok := relScenarios[name]
			if !ok {
				t.Fatalf("no set-up for scenario %q", name)
			}
			sc := start(t)
			var steps []resource.TestStep
			if sc.existing {
				steps = append(steps, resource.TestStep{Config: sc.config(), ConfigStateChecks: sc.relExpectState()})
			}
			for _, row := range relFaultTable {
				if row.scenario == name {
					steps = append(steps, sc.rowSteps(row)...)
				}
			}
			tc := resource.TestCase{Steps: steps}
			if sc.drift == nil {
				tc.CheckDestroy = sc.env.expectNothingLeft
			}
			accTest(t, tc)
		})
	}
}

// rowSteps builds a row's steps and makes them assert the row: the step
// that meets the fault fails exactly when the outcome says it must, and
// the row's last step checks the simulator's dump.
func (sc *relScenario) rowSteps(row relFault) []resource.TestStep {
	steps := row.steps(sc)
	if len(steps) == 0 {
		sc.t.Fatalf("row %q has no steps", row.fault)
	}
	first := &steps[0]
	if failing := first.ExpectError != nil; failing != (row.outcome == relFailedClearly) {
		sc.t.Fatalf("row %q: the outcome is %q but the step that meets the fault expects an error: %v", row.fault, row.outcome, failing)
	}
	if row.outcome == relFailedClearly {
		if len(steps) < 2 {
			sc.t.Fatalf("row %q fails clearly but has no step showing that the next apply converges", row.fault)
		}
		// Right after the failure, before anything converges, nothing may
		// be leaked or duplicated either.
		next := steps[1].PreConfig
		steps[1].PreConfig = func() {
			if problems := relMidwayProblems(sc.env.Info, sc.env.Sim.DumpState()); len(problems) > 0 {
				sc.t.Fatalf("after %s during %s the simulator shows:\n- %s", row.fault, row.during, strings.Join(problems, "\n- "))
			}
			if next != nil {
				next()
			}
		}
	}
	last := &steps[len(steps)-1]
	if last.PlanOnly || last.ExpectError != nil {
		sc.t.Fatalf("row %q must end with an apply that succeeds, to check the simulator after it", row.fault)
	}
	clean := sc.env.checkClean(sc.liveClusterNames()...)
	if last.Check == nil {
		last.Check = clean
	} else {
		last.Check = resource.ComposeAggregateTestCheckFunc(last.Check, clean)
	}
	return steps
}

// liveClusterNames are the clusters the simulator must hold after a row.
func (sc *relScenario) liveClusterNames() []string {
	if sc.drift != nil {
		return []string{"test"}
	}
	return []string{sc.cluster.name}
}

// config is the configuration of the shared cluster as the spec stands.
func (sc *relScenario) config() string {
	c := sc.cluster
	var settings []string
	if sc.requestTimeout > 0 {
		settings = append(settings, fmt.Sprintf("request_timeout = %d", sc.requestTimeout))
	}
	cluster := sc.env.cluster(c.name).through(sc.env.providerAt(sc.proxy.URL(), settings...)).
		set("kubernetes_version_id", hcl("data.cks_kubernetes_version.v.id")).size(c.size).set("state", c.state).
		with(fmt.Sprintf("\ndata \"cks_kubernetes_version\" \"v\" {\n  zone_id          = %q\n  semantic_version = %q\n}\n",
			sc.env.Info.ZoneID, c.version))
	if c.timeouts != "" {
		cluster = cluster.set("timeouts", c.timeouts)
	}
	if c.driftSources {
		cluster = cluster.with(`
data "cks_cluster_drift" "test" {
  cluster_id  = cks_cluster.test.id
  node_source = "kubeconfig"
}

data "cks_clusters_drift" "all" {
  node_source = "kubeconfig"
}
`)
	}
	return cluster.String()
}

// --- transient read faults ---

// relPhase is where a transient fault strikes: it sets the spec and says
// which reads the phase must have made (each must have met the fault).
type relPhase struct {
	name      string
	emptyPlan bool
	prepare   func(*relClusterSpec)
	reads     []string
	checks    []statecheck.StateCheck
}

var (
	relApplyCreate = relPhase{name: "apply (create)", prepare: func(*relClusterSpec) {},
		reads: []string{"listKubernetesSupportedVersions", "queryAsyncJobResult", "listKubernetesClusters", "listNetworks",
			"listFirewallRules", "listPortForwardingRules"}}
	relRefresh = relPhase{name: "refresh", emptyPlan: true, prepare: func(*relClusterSpec) {},
		reads: []string{"listKubernetesSupportedVersions", "listKubernetesClusters", "listFirewallRules", "listPortForwardingRules"}}
	relDriftRead = relPhase{name: "drift reads",
		prepare: func(s *relClusterSpec) { s.driftSources = true },
		reads: []string{"listKubernetesSupportedVersions", "listKubernetesClusters", "listVirtualMachines", "listFirewallRules",
			"listPortForwardingRules", "getKubernetesClusterConfig"},
		checks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.cks_cluster_drift.test", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("data.cks_cluster_drift.test", tfjsonpath.New("nodes_checked"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("data.cks_clusters_drift.all", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("data.cks_clusters_drift.all", tfjsonpath.New("clusters"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{"error": knownvalue.Null(), "nodes_checked": knownvalue.Bool(true)}),
			})),
		},
	}
)

// relApplyScale is an apply that changes the size.
func relApplyScale(size int) relPhase {
	return relPhase{name: fmt.Sprintf("apply (size %d)", size),
		prepare: func(s *relClusterSpec) { s.size, s.driftSources = size, false },
		reads: []string{"listKubernetesSupportedVersions", "listKubernetesClusters", "queryAsyncJobResult",
			"listFirewallRules", "listPortForwardingRules"},
		checks: []statecheck.StateCheck{expectAttr("size", knownvalue.Int64Exact(int64(size)))},
	}
}

// relStatusFault makes the next two calls of every read answer an HTTP
// status; the phase must succeed, and each read it made must have been
// sent at least three times (two failures, then the answer), which rules
// out a read whose failure was merely tolerated.
func relStatusFault(status int, phase relPhase) func(*relScenario) []resource.TestStep {
	return func(sc *relScenario) []resource.TestStep {
		arm := func() {
			sc.env.Sim.ClearFaults()
			sc.env.Sim.ResetCallCounts()
			for _, command := range relReadCommands {
				sc.env.Sim.FailNextCalls(command, 2, status, fmt.Sprintf("Injected HTTP %d", status))
			}
		}
		verify := func() error {
			defer sc.env.Sim.ClearFaults()
			calls := sc.env.Sim.CallCounts()
			var faulted []string
			for _, command := range relReadCommands {
				switch n := calls[command]; {
				case n == 0:
				case n < 3:
					return fmt.Errorf("%s was sent %d times under HTTP %d: a failed read was not retried", command, n, status)
				default:
					faulted = append(faulted, command)
				}
			}
			for _, want := range phase.reads {
				if !slices.Contains(faulted, want) {
					return fmt.Errorf("the %s made no %s call to fault (faulted: %v)", phase.name, want, faulted)
				}
			}
			return nil
		}
		return []resource.TestStep{sc.transientStep(phase, arm, verify)}
	}
}

// relTimeoutFault holds the first call of every read until the client's
// request_timeout (1 s) runs out; each read the phase made must have been
// sent again.
func relTimeoutFault(phase relPhase) func(*relScenario) []resource.TestStep {
	return func(sc *relScenario) []resource.TestStep {
		arm := func() { sc.proxy.rearm(holdUnsent, 1, relReadCommands...) }
		verify := func() error {
			defer sc.proxy.disarm()
			retried, abandoned := sc.proxy.heldAndRetried()
			if len(abandoned) > 0 {
				return fmt.Errorf("reads that timed out were not sent again: %v", abandoned)
			}
			for _, want := range phase.reads {
				if !slices.Contains(retried, strings.ToLower(want)) {
					return fmt.Errorf("the %s made no %s call to time out (timed out and retried: %v)", phase.name, want, retried)
				}
			}
			return nil
		}
		return []resource.TestStep{sc.transientStep(phase, arm, verify)}
	}
}

// transientStep runs the phase with the fault armed and verifies it after.
// A refresh is an apply of the unchanged configuration: its plan refreshes
// the cluster and must come out empty.
func (sc *relScenario) transientStep(phase relPhase, arm func(), verify func() error) resource.TestStep {
	phase.prepare(&sc.cluster)
	step := resource.TestStep{PreConfig: arm, Config: sc.config(), ConfigStateChecks: phase.checks,
		Check: func(*terraform.State) error { return verify() }}
	if phase.emptyPlan {
		step.ConfigPlanChecks.PreApply = []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	}
	return step
}

// relErrorIn200 answers the cluster's refresh with HTTP 200 and an error
// object. The refresh must fail saying so; read as an empty list it would
// mean "cluster gone", drop the cluster from state and plan a second one.
// Once the gateway behaves, the plan is empty: the cluster never left.
func relErrorIn200(sc *relScenario) []resource.TestStep {
	sc.cluster.driftSources = false
	config := sc.config()
	return []resource.TestStep{
		{
			PreConfig: func() { sc.proxy.rearm(errorIn200, 1000, "listKubernetesClusters") },
			Config:    config,
			ExpectError: errorFragments("Unable to Read Cluster", "listKubernetesClusters", "error 530",
				"Injected error object in an HTTP 200 answer"),
		},
		{
			PreConfig: sc.proxy.disarm,
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
	}
}
