package drift

import (
	"strings"
	"testing"
)

func alertInput() Input {
	in := cleanInput()
	in.Cluster.State = "Alert"
	return in
}

// An Alert cluster whose views are all clean: the API hides the map rows
// of expunged VMs that keep the scanner from recovering it.
func TestAlertWithNothingElseWrong(t *testing.T) {
	t.Parallel()
	r := Compare(alertInput())
	assertKinds(t, r, KindClusterStateUnexpected)
	f := r.Findings[0]
	for _, want := range []string{"cluster test is in Alert", "holds exactly 3 VMs", "expunged or never existed"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
	if f.VMID != "" || f.VMName != "" || r.ClusterState != "Alert" {
		t.Fatalf("finding %+v", f)
	}

	// Without the nodes, the scanner's Ready test cannot be judged.
	in := alertInput()
	in.Nodes = nil
	r = Compare(in)
	assertKinds(t, r, KindClusterStateUnexpected)
	if !strings.Contains(r.Findings[0].Message, "nodes were not checked") {
		t.Fatalf("message %s", r.Findings[0].Message)
	}
}

// Stopped VMs are not drift in an Alert cluster, but they are why the
// scanner keeps it there, or moves it to Stopped.
func TestAlertReasonsFromStoppedVMs(t *testing.T) {
	t.Parallel()
	in := alertInput()
	in.Nodes = nil
	in.VMs[2].State = "Stopped"
	r := Compare(in)
	assertKinds(t, r, KindClusterStateUnexpected)
	if want := "VMs not Running: VM " + worker2Name + " (493, Stopped)"; !strings.Contains(r.Findings[0].Message, want) {
		t.Fatalf("message lacks %q: %s", want, r.Findings[0].Message)
	}

	for i := range in.VMs {
		in.VMs[i].State = "Stopped"
	}
	r = Compare(in)
	if !strings.Contains(r.Findings[0].Message, "every VM is Stopped, so the scanner moves it to Stopped") {
		t.Fatalf("message %s", r.Findings[0].Message)
	}
}

// Findings that already explain the Alert state, and steady states
// other than Alert, give no state finding.
func TestAlertExplainedOrNotAlert(t *testing.T) {
	t.Parallel()
	in := alertInput()
	in.Nodes.Nodes[1].Ready = false
	assertKinds(t, Compare(in), KindNodeNotReady)

	for _, state := range []string{"Running", "Stopped"} {
		in := cleanInput()
		in.Cluster.State = state
		if state == "Stopped" {
			for i := range in.VMs {
				in.VMs[i].State = "Stopped"
			}
		}
		assertKinds(t, Compare(in))
	}
}
