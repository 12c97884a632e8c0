package drift

import (
	"errors"
	"slices"
	"testing"
)

// A view that was asked for and could not be read makes the check
// incomplete: never in sync, whatever the other views say, so that the
// drift gate fails closed.

func TestNodeViewErrorIsIncompleteNotInSync(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes = &NodeView{Err: errors.New("ssh 10.1.1.1:2222: connecting: connection refused")}
	r := Compare(in)
	if len(r.Findings) != 0 {
		t.Fatalf("findings = %+v", r.Findings)
	}
	if r.InSync || r.Complete() {
		t.Fatalf("a check without its nodes must not be in sync or complete: %+v", r)
	}
	want := []IncompleteView{{View: ViewNodes, Reason: "ssh 10.1.1.1:2222: connecting: connection refused"}}
	if !slices.Equal(r.Incomplete, want) {
		t.Fatalf("incomplete = %+v, want %+v", r.Incomplete, want)
	}
	if want := "incomplete: no finding in the views checked; Kubernetes nodes not checked: " +
		"ssh 10.1.1.1:2222: connecting: connection refused"; r.Summary != want {
		t.Fatalf("summary = %q, want %q", r.Summary, want)
	}
}

func TestRulesViewErrorIsIncompleteNotInSync(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Rules = &RulesView{Err: errors.New("network n-1 is not visible to these credentials")}
	r := Compare(in)
	if r.InSync || len(r.Findings) != 0 {
		t.Fatalf("result = %+v", r)
	}
	if want := []IncompleteView{{View: ViewNetworkRules, Reason: "network n-1 is not visible to these credentials"}}; !slices.Equal(r.Incomplete, want) {
		t.Fatalf("incomplete = %+v", r.Incomplete)
	}
	if want := "incomplete: no finding in the views checked; network rules not checked: network n-1 is not visible to these credentials"; r.Summary != want {
		t.Fatalf("summary = %q", r.Summary)
	}
}

func TestIncompleteViewsWithFindingsAreListedInViewOrder(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	removeMapRow(&in, "493")
	in.Nodes = &NodeView{Err: errors.New("refused")}
	in.Rules = &RulesView{Err: errors.New("no network")}
	r := Compare(in)
	assertKindsOnly(t, r, KindUnmappedVM, KindVMMapInconsistent)
	if got := []string{r.Incomplete[0].View, r.Incomplete[1].View}; !slices.Equal(got, []string{ViewNodes, ViewNetworkRules}) {
		t.Fatalf("incomplete views = %v", got)
	}
	if want := "2 findings: 1 unmapped_vm, 1 vm_map_inconsistent; Kubernetes nodes not checked: refused; " +
		"network rules not checked: no network"; r.Summary != want {
		t.Fatalf("summary = %q", r.Summary)
	}
}

// Views that were not asked for, and the nodes of a Stopped cluster (its
// VMs are off), leave the check complete.
func TestViewsNotAskedForLeaveTheCheckComplete(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes = nil
	if r := Compare(in); !r.InSync || !r.Complete() || r.Summary != "in sync" {
		t.Fatalf("node_source none: %+v", r)
	}
	stopped := cleanInput()
	stopped.Cluster.State = "Stopped"
	for i := range stopped.VMs {
		stopped.VMs[i].State = "Stopped"
	}
	stopped.Nodes = &NodeView{}
	if r := Compare(stopped); !r.InSync || !r.Complete() || r.NodesChecked {
		t.Fatalf("stopped cluster: %+v", r)
	}
	skipped := cleanInput()
	skipped.Cluster.State = "Scaling"
	if r := Compare(skipped); r.InSync || r.Complete() || len(r.Incomplete) != 0 {
		t.Fatalf("skipped cluster: %+v", r)
	}
}

func assertKindsOnly(t *testing.T, r Result, want ...string) {
	t.Helper()
	if got := kinds(r); !slices.Equal(got, want) {
		t.Fatalf("findings = %v, want %v", got, want)
	}
}
