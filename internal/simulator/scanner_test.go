package simulator

import (
	"strings"
	"sync"
	"testing"
	"time"
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

func TestStateScanner(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 9, 12, 0, 0, 0, 0, time.UTC)}
	e := newEnv(t, Options{Clock: clock.now})
	id := e.createCluster(e.createParams("scanned", 1))

	// First run only: a cluster Starting for more than 10 minutes goes to Alert.
	if err := e.sim.SetClusterState(id, stStarting); err != nil {
		t.Fatal(err)
	}
	clock.advance(11 * time.Minute)
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("first scan of an old Starting cluster: %s, want Alert", st)
	}
	// Alert with every VM running and a complete map recovers.
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("reconcile: %s, want Running", st)
	}
	// Later scans leave Starting clusters alone.
	if err := e.sim.SetClusterState(id, stStarting); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Hour)
	if st := e.cluster(id).State; st != stStarting {
		t.Fatalf("later scan changed a Starting cluster: %s", st)
	}
	if err := e.sim.SetClusterState(id, stRunning); err != nil {
		t.Fatal(err)
	}

	worker := vmIDByRole(e, id, "-node-")
	// A missing map row: Alert; restored: back to Running.
	if err := e.sim.DeleteMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("map short of C+W+E: %s, want Alert", st)
	}
	if err := e.sim.RestoreMapRow(id, worker); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("map restored: %s, want Running", st)
	}

	// A stopped VM: Alert; running again: Running.
	if err := e.sim.SetVMState(worker, vmStopped); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("VM stopped: %s, want Alert", st)
	}
	if err := e.sim.SetVMState(worker, vmRunning); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("VM running again: %s", st)
	}

	// A missing Kubernetes node does not move a Running cluster, but an
	// Alert cluster only recovers when the ready count is complete.
	if err := e.sim.StopKubelet(worker, false); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("kubelet stopped: %s, want Running (the scanner checks VMs only)", st)
	}
	if err := e.sim.SetClusterState(id, stAlert); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("Alert with a node missing recovered: %s", st)
	}
	if err := e.sim.StartKubelet(worker); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("node back: %s, want Running", st)
	}

	// Stopped with a VM running: Alert; then with all VMs stopped: Stopped.
	r, err := e.cs.Kubernetes.StopKubernetesCluster(e.cs.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	if err := e.sim.SetVMState(worker, vmRunning); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("Stopped with a running VM: %s, want Alert", st)
	}
	if err := e.sim.SetVMState(worker, vmStopped); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stStopped {
		t.Fatalf("Alert with all VMs stopped: %s, want Stopped", st)
	}
}

func TestScannerCanBeDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("unscanned", 1))
	if err := e.sim.SetVMState(vmIDByRole(e, id, "-node-"), vmStopped); err != nil {
		t.Fatal(err)
	}
	if st := e.cluster(id).State; st != stRunning {
		t.Fatalf("disabled scanner changed the state to %s", st)
	}
}

func TestScannerOnDemandAndAdvancedClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.createCluster(e.createParams("ondemand", 1))
	if err := e.sim.SetClusterState(id, stStarting); err != nil {
		t.Fatal(err)
	}
	e.sim.AdvanceClock(11 * time.Minute)
	if st := e.cluster(id).State; st != stStarting {
		t.Fatalf("disabled scanner ran on list: %s", st)
	}
	status, _ := adminRequest(t, e.info.AdminURL, "POST", "scanner/run", nil)
	if status != 200 {
		t.Fatalf("scanner/run: %d", status)
	}
	if st := e.cluster(id).State; st != stAlert {
		t.Fatalf("on-demand first scan after the clock moved 11 minutes: %s, want Alert", st)
	}
	// The advanced clock also dates new VMs.
	before := time.Now().Add(10 * time.Minute)
	_, name, err := e.sim.CreateStrayVM(StrayVM{ClusterID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range e.sim.DumpState().VMs {
		if v.Name == name {
			created, err := timeParse(v.Created)
			if err != nil || created.Before(before) {
				t.Fatalf("stray VM created %s, want after %s (clock advanced)", v.Created, before)
			}
		}
	}
}
