package clusterops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// A size change of a cluster in Alert waits for CloudStack's state scanner,
// on its own timer, to return the cluster to Running, then scales it.
func TestUpdateWaitsForTheScannerToEndAlert(t *testing.T) {
	t.Parallel()
	e := &testEnv{Env: simtest.Start(t, simtest.WithJobDuration(3*time.Millisecond), simtest.WithScannerTimer(200*time.Millisecond))}
	id := e.createCluster("alert-wait", 0, 1)
	if err := e.Sim.SetClusterState(id, "Alert"); err != nil {
		t.Fatal(err)
	}
	size := int64(2)
	rep, err := e.engine().Update(e.ctx(), id, UpdateRequest{Size: &size})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if c := e.Cluster(id); c.State != "Running" || c.Size != 2 {
		t.Fatalf("after the update: %s with size %d, want Running with 2", c.State, c.Size)
	}
	if !hasStep(rep, StepNote, "state scanner to return the cluster from Alert") {
		t.Fatalf("the report does not say it waited for the scanner: %+v", rep.Steps)
	}
}

// Without a scanner run, the wait ends with the caller's deadline and says
// which step it was in; nothing is scaled.
func TestUpdateOfAnAlertClusterEndsAtTheDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	id := e.createCluster("alert-deadline", 0, 1)
	if err := e.Sim.SetClusterState(id, "Alert"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(e.ctx(), 300*time.Millisecond)
	defer cancel()
	size := int64(2)
	_, err := e.engine().Update(ctx, id, UpdateRequest{Size: &size})
	var step *StepError
	if !errors.As(err, &step) || !strings.Contains(step.Step, "to leave Alert") {
		t.Fatalf("Update = %v, want the Alert wait named", err)
	}
	if c := e.Cluster(id); c.State != "Alert" || c.Size != 1 {
		t.Fatalf("after the update: %s with size %d, want Alert with 1", c.State, c.Size)
	}
}

func hasStep(rep Report, kind StepKind, fragment string) bool {
	for _, s := range rep.Steps {
		if s.Kind == kind && strings.Contains(s.Message, fragment) {
			return true
		}
	}
	return false
}

// A rule change the scale needs first fails: the error names that step and
// says no scale was sent, and none was.
func TestUpdateSaysNoScaleWasSentWhenTheRulesBeforeItFail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	id := e.createCluster("rules-first", 1, 1) // CKS's single etcd rule: the scale replaces it with the etcd range first
	e.Sim.FailNextCalls("createFirewallRule", 5, 530, "")
	e.Sim.ResetCallCounts()
	size := int64(2)
	_, err := e.engine().Update(e.ctx(), id, UpdateRequest{Size: &size})
	var step *StepError
	if !errors.As(err, &step) || !strings.Contains(step.Step, "before scaling it (no scale was sent)") ||
		strings.Contains(step.Step, "to 2 workers") {
		t.Fatalf("Update = %v, want the rule step named", err)
	}
	if n := e.Sim.CallCounts()["scaleKubernetesCluster"]; n != 0 {
		t.Fatalf("%d scale call(s) sent", n)
	}
}
