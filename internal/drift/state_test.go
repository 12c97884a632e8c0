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

// A failed operation leaves a healthy cluster in Alert until the scanner's
// next pass: the finding says so before it suspects hidden map rows.
func TestAlertAfterAFailedOperationSaysTheScannerReturnsIt(t *testing.T) {
	t.Parallel()
	msg := Compare(alertInput()).Findings[0].Message
	for _, want := range []string{"a failed operation (a scale, upgrade, start or stop)", "returns it to Running",
		"if it stays in Alert"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "most likely held by map rows") {
		t.Errorf("message blames hidden map rows first: %s", msg)
	}
}

// A node finding hides the state finding only when the scanner's Ready
// count is off: a stale NotReady registration of no VM changes nothing the
// scanner counts, while a Ready node of no VM makes the count too high.
func TestAlertNodeFindingsThatDoNotExplainIt(t *testing.T) {
	t.Parallel()
	in := alertInput()
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: "test-node-1a1c6e00000", Ready: false})
	assertKinds(t, Compare(in), KindNodeWithoutVM, KindClusterStateUnexpected)

	in = alertInput()
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: "test-node-1a1c6e00000", Ready: true})
	assertKinds(t, Compare(in), KindNodeWithoutVM)
}
