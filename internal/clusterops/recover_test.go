package clusterops

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// breakLikeSeed000 replays seed 000 with raw API scales on 4.22.1.1: the
// last scale fails and leaves the cluster in Alert, size 2, one worker.
func breakLikeSeed000(t *testing.T, env *testEnv) string {
	t.Helper()
	id := env.createCluster("cks-etcd-minimal-20260912", 3, 1)
	if err := env.rawScale(id, 2); err != nil {
		t.Fatalf("raw scale to 2: %v", err)
	}
	err := env.rawScale(id, 1)
	if err == nil || !strings.Contains(err.Error(), "unable to update network rules") {
		t.Fatalf("raw scale to 1 = %v, want the #14159 failure", err)
	}
	c := env.cluster(id)
	if c.State != "Alert" || c.Size != 2 || MapWorkerCount(c) != 1 || !NeedsRecovery(c) {
		t.Fatalf("broken cluster is %s size %d with %d workers, want Alert size 2 with 1", c.State, c.Size, MapWorkerCount(c))
	}
	return id
}

func TestRecoverWithoutOptInChangesNothing(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := breakLikeSeed000(t, env)
	before, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}

	rep, err := env.engine(Options{}).Recover(env.ctx(), id, 1)
	var need *RecoveryNeededError
	if !errors.As(err, &need) {
		t.Fatalf("Recover without the opt-in = %v, want *RecoveryNeededError", err)
	}
	if need.State != "Alert" || need.Size != 2 || need.MapWorkers != 1 || need.OptIn != "AllowRestartForRecovery" {
		t.Errorf("error fields = %+v", need)
	}
	for _, want := range []string{"stale", "stop the cluster", "start it", "from the stale size 2 to 1, removing 0 worker VM(s)",
		"interrupts its workloads", "AllowRestartForRecovery"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if rep.Changed() {
		t.Errorf("report shows changes:\n%s", rep)
	}
	after, err := env.sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("Recover without the opt-in changed the simulator state:\nbefore %s\nafter %s", before, after)
	}
}

func TestRecoverWithOptIn(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := breakLikeSeed000(t, env)
	vmsBefore := env.cluster(id).VirtualMachines

	rep, err := env.engine(Options{AllowRestartForRecovery: true}).Recover(env.ctx(), id, 1)
	if err != nil {
		t.Fatalf("Recover: %v\n%s", err, rep)
	}
	for _, kind := range []StepKind{StepRepaired, StepStopped, StepStarted, StepScaled} {
		if len(rep.StepsOf(kind)) == 0 {
			t.Errorf("report has no %s step:\n%s", kind, rep)
		}
	}
	if !strings.Contains(rep.String(), "created missing node SSH port forward 2222→22 to VM") {
		t.Errorf("report does not say the control forward was re-created:\n%s", rep)
	}
	c := env.assertSeedRules(id)
	if c.State != "Running" || c.Size != 1 || MapWorkerCount(c) != 1 || NeedsRecovery(c) {
		t.Fatalf("recovered cluster is %s size %d with %d workers, want Running size 1", c.State, c.Size, MapWorkerCount(c))
	}
	if len(c.VirtualMachines) != len(vmsBefore) {
		t.Errorf("recovery changed the VM map from %d to %d VMs", len(vmsBefore), len(c.VirtualMachines))
	}
	for i := range vmsBefore {
		if c.VirtualMachines[i].ID != vmsBefore[i].ID {
			t.Errorf("VM %d is %s, was %s: recovery must not replace VMs", i, c.VirtualMachines[i].ID, vmsBefore[i].ID)
		}
	}
	if rep.Cluster == nil || rep.Cluster.State != "Running" || rep.Cluster.Size != 1 {
		t.Errorf("report cluster = %+v", rep.Cluster)
	}
	env.assertSSH(id, c)

	// The recovered cluster scales normally again.
	up, err := env.engine(Options{}).Scale(env.ctx(), id, 2)
	if err != nil || up.Cluster.Size != 2 {
		t.Fatalf("Scale after recovery: %v\n%s", err, up)
	}
}

// Recovering to a size above the VM map first fixes the size, then scales
// up like any scale.
func TestRecoverToLargerSize(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := breakLikeSeed000(t, env)

	rep, err := env.engine(Options{AllowRestartForRecovery: true}).Recover(env.ctx(), id, 3)
	if err != nil {
		t.Fatalf("Recover: %v\n%s", err, rep)
	}
	scaled := rep.StepsOf(StepScaled)
	if len(scaled) != 2 || !strings.Contains(scaled[0].Message, "from 2 to 1") || !strings.Contains(scaled[1].Message, "from 1 to 3") {
		t.Fatalf("scale steps = %+v, want 2→1 then 1→3", scaled)
	}
	c := env.cluster(id)
	if c.State != "Running" || c.Size != 3 || MapWorkerCount(c) != 3 {
		t.Fatalf("cluster is %s size %d with %d workers, want Running size 3", c.State, c.Size, MapWorkerCount(c))
	}
	if rep.Cluster == nil || rep.Cluster.Size != 3 {
		t.Errorf("report cluster = %+v", rep.Cluster)
	}
	s, err := env.engine(Options{}).Snapshot(env.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Classification.Missing) != 0 || len(s.Classification.Stale) != 0 {
		t.Errorf("after recovery: missing %v, stale %v", s.Classification.Missing, s.Classification.Stale)
	}
}

// A cluster in Alert whose size matches its VM map needs no restart: once
// its rules are repaired CloudStack's scanner reconciles it.
func TestRecoverAlertWithoutStaleSize(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("alert-only", 3, 1)
	c := env.cluster(id)
	for _, pf := range env.forwards(c.IPAddressID) {
		if pf.PublicPort == 2222 {
			if err := env.sim.DeleteRule(pf.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := env.sim.SetClusterState(id, "Alert"); err != nil {
		t.Fatal(err)
	}

	rep, err := env.engine(Options{}).Recover(env.ctx(), id, 0)
	if err != nil {
		t.Fatalf("Recover: %v\n%s", err, rep)
	}
	if len(rep.StepsOf(StepStopped)) != 0 || len(rep.StepsOf(StepScaled)) != 0 {
		t.Errorf("recovery restarted or scaled:\n%s", rep)
	}
	if r := rep.StepsOf(StepRepaired); len(r) != 1 || !strings.Contains(r[0].Message, "2222→22") {
		t.Errorf("repairs = %+v, want the control forward", r)
	}
	if rep.Cluster == nil || rep.Cluster.State != "Running" {
		t.Errorf("report cluster = %+v, want Running", rep.Cluster)
	}
	env.assertSeedRules(id)
}
