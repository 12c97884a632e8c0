package simulator

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

func TestJobStepFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})

	// Create failing at the network rules: Error, nothing rolled back.
	if err := e.sim.FailJobStep("create", "network-rules", 1, ""); err != nil {
		t.Fatal(err)
	}
	r, err := e.cs.Kubernetes.CreateKubernetesCluster(e.createParams("broken", 1))
	if err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(r.JobID); code != 530 || text != "Failed to setup Kubernetes cluster : broken, unable to setup network rules" {
		t.Fatalf("create failure: %d %q", code, text)
	}
	if cl := e.cluster(r.Id); cl.State != model.ClusterError || len(cl.Virtualmachines) != 2 {
		t.Fatalf("failed create: state %s, %d VMs", cl.State, len(cl.Virtualmachines))
	}
	del, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(r.Id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(del.JobID)

	// Scale-down failing after the first VM is removed: Alert, stale size.
	id := e.createCluster(e.createParams("partial", 3))
	if err := e.sim.FailJobStep("scale-down", "vm-removed", 1, ""); err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(e.scale(id, 1))
	if code != 530 || !strings.Contains(text, "failed to remove VM") {
		t.Fatalf("scale-down failure: %d %q", code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterAlert || cl.Size != 3 || len(workerVMs(e, id)) != 2 {
		t.Fatalf("after partial scale-down: state %s size %d workers %d", cl.State, cl.Size, len(workerVMs(e, id)))
	}

	// Scale-up failing at the ready check, with an injected message.
	id2 := e.createCluster(e.createParams("notready", 1))
	if err := e.sim.FailJobStep("scale-up", "nodes-ready", 1, "custom failure"); err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(e.scale(id2, 2)); code != 530 || text != "custom failure" {
		t.Fatalf("injected message: %d %q", code, text)
	}
	if cl := e.cluster(id2); cl.State != model.ClusterAlert || cl.Size != 1 || len(workerVMs(e, id2)) != 2 {
		t.Fatalf("after failed scale-up: state %s size %d workers %d", cl.State, cl.Size, len(workerVMs(e, id2)))
	}

	// Unknown operations and steps are refused.
	if err := e.sim.FailJobStep("scale-down", "drain", 1, ""); err == nil {
		t.Fatal("unknown step accepted")
	}
	if err := e.sim.FailJobStep("resize", "vms", 1, ""); err == nil {
		t.Fatal("unknown operation accepted")
	}
}

func TestFailNextCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.FailNextCalls("listZones", 2, 431, "injected")
	for i := range 2 {
		_, err := e.cs.Zone.ListZones(e.cs.Zone.NewListZonesParams())
		if err == nil || err.Error() != "CloudStack API error 431 (CSExceptionErrorCode: 4350): injected" {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := e.cs.Zone.ListZones(e.cs.Zone.NewListZonesParams()); err != nil {
		t.Fatalf("third call: %v", err)
	}
	e.sim.FailNextCalls("listZones", 5, 530, "")
	e.sim.ClearFaults()
	if _, err := e.cs.Zone.ListZones(e.cs.Zone.NewListZonesParams()); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}
	if n := e.sim.CallCounts()["listZones"]; n != 4 {
		t.Fatalf("listZones counted %d times, want 4", n)
	}
	e.sim.ResetCallCounts()
	if n := len(e.sim.CallCounts()); n != 0 {
		t.Fatalf("counters after reset: %d", n)
	}
}
