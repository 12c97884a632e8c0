package simulator

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// fakeClock is a settable clock for tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func vmIDByRole(e *testEnv, clusterID, marker string) string {
	for _, v := range e.cluster(clusterID).Virtualmachines {
		if strings.Contains(v.Name, marker) {
			return v.Id
		}
	}
	e.t.Fatalf("no %s VM in cluster %s", marker, clusterID)
	return ""
}

// scanned runs the state scanner once and returns the cluster's state.
func (e *testEnv) scanned(id string) string {
	e.t.Helper()
	e.sim.RunScanner()
	return e.cluster(id).State
}

// ruleID returns the id of the first rule of a purpose starting at port.
func ruleID(e *testEnv, purpose string, port int) string {
	e.t.Helper()
	return ruleIDOn(e, "", purpose, port)
}

// ruleIDOn returns the id of the rule of a purpose starting at port on a
// public IP ("" for any).
func ruleIDOn(e *testEnv, ipID, purpose string, port int) string {
	e.t.Helper()
	for _, r := range e.sim.DumpState().Rules {
		if r.Purpose == purpose && r.StartPort == port && (ipID == "" || r.IPAddressID == ipID) {
			return r.ID
		}
	}
	e.t.Fatalf("no %s rule on port %d", purpose, port)
	return ""
}

func TestScannerRunsOnATimerNotOnListCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	if d := e.sim.ScannerInterval(); d != 0 {
		t.Fatalf("DisableScanner: interval %s, want the timer off", d)
	}
	id := e.createCluster(e.createParams("timer", 1))
	if err := e.sim.SetVMState(vmIDByRole(e, id, "-node-"), model.VMStopped); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if st := e.cluster(id).State; st != model.ClusterRunning {
			t.Fatalf("a list call ran the scanner: state %s", st)
		}
	}
	e.sim.SetScannerInterval(20 * time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for e.cluster(id).State != model.ClusterAlert {
		if time.Now().After(deadline) {
			t.Fatal("the scanner timer did not move the cluster with a stopped VM to Alert")
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.sim.SetScannerInterval(0)
	if err := e.sim.SetVMState(vmIDByRole(e, id, "-node-"), model.VMRunning); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if st := e.cluster(id).State; st != model.ClusterAlert {
		t.Fatalf("the stopped timer still ran: state %s", st)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("RunScanner: state %s, want Running", st)
	}

	if d := newEnv(t, Options{}).sim.ScannerInterval(); DefaultScannerInterval != 30*time.Second || d != DefaultScannerInterval {
		t.Fatalf("default interval %s, want 30s", d)
	}
	if d := newEnv(t, Options{ScannerInterval: time.Second}).sim.ScannerInterval(); d != time.Second {
		t.Fatalf("ScannerInterval option: %s", d)
	}
	if _, err := New(Options{ScannerInterval: -time.Second}); err == nil {
		t.Fatal("a negative scanner interval was accepted")
	}
}

func TestScannerAdminRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("adminscan", 1))
	status, body := adminRequest(t, e.info.AdminURL, "POST", "scanner/interval", map[string]any{"interval": "25ms"})
	if status != 200 || !strings.Contains(string(body), `"interval":"25ms"`) || e.sim.ScannerInterval() != 25*time.Millisecond {
		t.Fatalf("scanner/interval: %d %s", status, body)
	}
	status, body = adminRequest(t, e.info.AdminURL, "GET", "scanner", nil)
	var got map[string]string
	if status != 200 || json.Unmarshal(body, &got) != nil || got["interval"] != "25ms" {
		t.Fatalf("GET scanner: %d %s", status, body)
	}
	for _, bad := range []map[string]any{{}, {"interval": "soon"}, {"interval": "-1s"}} {
		if status, body := adminRequest(t, e.info.AdminURL, "POST", "scanner/interval", bad); status != 400 {
			t.Fatalf("scanner/interval %v: %d %s", bad, status, body)
		}
	}
	if status, _ := adminRequest(t, e.info.AdminURL, "POST", "scanner/interval", map[string]any{"interval": 0}); status != 200 || e.sim.ScannerInterval() != 0 {
		t.Fatalf("interval 0 must stop the timer: %d %s", status, e.sim.ScannerInterval())
	}
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	if status, _ := adminRequest(t, e.info.AdminURL, "POST", "scanner/run", nil); status != 200 {
		t.Fatalf("scanner/run: %d", status)
	}
	if st := e.cluster(id).State; st != model.ClusterRunning {
		t.Fatalf("scanner/run: state %s, want the healthy Alert cluster recovered", st)
	}
}

func TestScannerRunningAndStoppedClusters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("scanned", 1))
	worker := vmIDByRole(e, id, "-node-")

	// Running with fewer map rows than C+W+E: Alert; restored: Running.
	if err := e.sim.DeleteMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("map short of C+W+E: %s, want Alert", st)
	}
	if err := e.sim.RestoreMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("map restored: %s, want Running", st)
	}

	// Running with a VM not Running: Alert; running again: Running.
	if err := e.sim.SetVMState(worker, model.VMStopped); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("VM stopped: %s, want Alert", st)
	}
	if err := e.sim.SetVMState(worker, model.VMRunning); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("VM running again: %s", st)
	}

	// A stopped kubelet does not move a Running cluster: the scanner checks
	// VM states only.
	if err := e.sim.StopKubelet(worker, true); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("kubelet stopped: %s, want Running", st)
	}
	if err := e.sim.StartKubelet(worker); err != nil {
		t.Fatal(err)
	}

	// Stopped with a VM running: FaultsDetected has no transition from
	// Stopped, so the cluster stays Stopped.
	r, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	if err := e.sim.SetVMState(worker, model.VMRunning); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterStopped {
		t.Fatalf("Stopped with a running VM: %s, want Stopped (no transition)", st)
	}

	// Alert with every VM stopped: Stopped, but only with a complete map.
	if err := e.sim.SetVMState(worker, model.VMStopped); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.DeleteMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert, VMs stopped, map short: %s, want Alert (the map count is checked first)", st)
	}
	if err := e.sim.RestoreMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterStopped {
		t.Fatalf("Alert with all VMs stopped: %s, want Stopped", st)
	}
}

func TestScannerAlertRecoveryNeedsSSHReadyNodesAPIAndExactMap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("recover", 1))
	cl := e.cluster(id)
	worker := vmIDByRole(e, id, "-node-")
	control := vmIDByRole(e, id, "-control-")
	alert := func() {
		t.Helper()
		if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
			t.Fatal(err)
		}
	}

	// A NotReady node: the ready count falls short.
	alert()
	if err := e.sim.StopKubelet(worker, true); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert with a NotReady node: %s, want Alert", st)
	}
	if err := e.sim.StartKubelet(worker); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("node Ready again: %s, want Running", st)
	}

	// No SSH through 2222: kubectl cannot run.
	alert()
	if err := e.sim.DeleteRule(ruleID(e, model.PurposePF, nodesStartSSHPort)); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert without PF 2222: %s, want Alert", st)
	}
	status, body := e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"2222"}, "privateport": {"22"}, "virtualmachineid": {control}, "openfirewall": {"false"}})
	if status != 200 {
		t.Fatalf("restore PF 2222: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createportforwardingruleresponse")["jobid"]))
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("PF 2222 restored: %s, want Running", st)
	}

	// 6443 closed: the API does not answer.
	alert()
	if err := e.sim.DeleteRule(ruleID(e, model.PurposeFirewall, clusterAPIPort)); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert without the 6443 firewall rule: %s, want Alert", st)
	}
	status, body = e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"startport": {"6443"}, "endport": {"6443"}})
	if status != 200 {
		t.Fatalf("restore the 6443 rule: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("6443 reopened: %s, want Running", st)
	}

	// More map rows than C+W+E: reconcileAlertCluster wants exactly C+W+E.
	alert()
	stray, _, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.sim.InsertMapRow(id, stray, MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert with C+W+E+1 map rows: %s, want Alert", st)
	}
	if err := e.sim.DeleteMapRow(id, stray); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("extra row gone: %s, want Running", st)
	}
}

func TestScannerFirstRunStartingAndDestroying(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 9, 12, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, Options{Clock: clock.now, DisableScanner: true})
	id := e.createCluster(e.createParams("starting", 1))
	gone := e.createCluster(e.createParams("destroying", 1))

	// First run only: a cluster Starting for more than 10 minutes goes to
	// Alert and a Destroying cluster is destroyed again.
	if err := e.sim.SetClusterState(id, model.ClusterStarting); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetClusterState(gone, model.ClusterDestroying); err != nil {
		t.Fatal(err)
	}
	clock.advance(11 * time.Minute)
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("first scan of an old Starting cluster: %s, want Alert", st)
	}
	p := e.cs.Kubernetes.NewListKubernetesClustersParams()
	p.SetId(gone)
	if r, err := e.cs.Kubernetes.ListKubernetesClusters(p); err != nil || r.Count != 0 {
		t.Fatalf("first scan of a Destroying cluster: %+v %v, want it destroyed", r, err)
	}
	// The next runs reconcile the Alert cluster and leave Starting alone.
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("second scan: %s, want Running", st)
	}
	if err := e.sim.SetClusterState(id, model.ClusterStarting); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Hour)
	if st := e.scanned(id); st != model.ClusterStarting {
		t.Fatalf("a later scan changed a Starting cluster: %s", st)
	}
	// The advanced clock also dates new VMs.
	e.sim.AdvanceClock(10 * time.Minute)
	_, name, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range e.sim.DumpState().VMs {
		if v.Name == name {
			created, err := timeParse(v.Created)
			if err != nil || !created.Equal(clock.now().Add(10*time.Minute).Truncate(time.Second)) {
				t.Fatalf("stray VM created %s, want the advanced clock", v.Created)
			}
		}
	}
}

// TestScannerSkipsClusterWithMapRowOfMissingVM: a map row whose VM never
// existed makes isClusterVMsInDesiredState throw for that cluster; the
// scanner catches it and leaves the cluster as it is for the pass, while
// other clusters are still scanned.
func TestScannerSkipsClusterWithMapRowOfMissingVM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("ghost", 2))
	other := e.createCluster(e.createParams("healthy", 1))
	workers := workerIDs(e, id)
	// The map keeps C+W+E rows, one of them for a VM that never existed.
	if err := e.sim.DeleteMapRow(id, workers[1]); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.InsertMapRow(id, "99999999-9999-4999-8999-999999999999", MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetVMState(vmIDByRole(e, other, "-node-"), model.VMStopped); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterRunning {
		t.Fatalf("cluster with a row of a missing VM: %s, want it left Running for the pass", st)
	}
	if st := e.cluster(other).State; st != model.ClusterAlert {
		t.Fatalf("the other cluster: %s, want Alert (still scanned)", st)
	}
	// In Alert the same row keeps it from being reconciled or stopped.
	if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
		t.Fatal(err)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("Alert cluster with a row of a missing VM: %s", st)
	}
}
