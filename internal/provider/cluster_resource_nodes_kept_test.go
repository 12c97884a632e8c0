package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func nodeValue(t *testing.T, id, state string, port int64) attr.Value {
	t.Helper()
	v, d := types.ObjectValueFrom(context.Background(), nodeAttrTypes, nodeModel{ID: types.StringValue(id),
		Name: types.StringValue("c-node-" + id), Role: types.StringValue("worker"), State: types.StringValue(state),
		SSHPort: types.Int64Value(port)})
	if d.HasError() {
		t.Fatal(d)
	}
	return v
}

func nodeList(t *testing.T, elems ...attr.Value) types.List {
	t.Helper()
	l, d := types.ListValue(nodeObjectType, elems)
	if d.HasError() {
		t.Fatal(d)
	}
	return l
}

// The planned nodes are kept when CloudStack has them where the plan put
// them (a VM state that changed meanwhile shows at the next refresh); the
// nodes a scale added take the refreshed values; other nodes than planned
// are recorded as CloudStack has them, and reported.
func TestKeepPlannedNodesRecordsOnlyWhatHappened(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	planned := nodeList(t, nodeValue(t, "a", "Running", 2223), types.ObjectUnknown(nodeAttrTypes))

	asPlanned := nodeList(t, nodeValue(t, "a", "Stopping", 2223), nodeValue(t, "b", "Running", 2224))
	got, matched := keepPlannedNodes(ctx, planned, asPlanned)
	want := nodeList(t, nodeValue(t, "a", "Running", 2223), nodeValue(t, "b", "Running", 2224))
	if !matched || !got.Equal(want) {
		t.Fatalf("as planned: %v (matched %v), want %v", got, matched, want)
	}

	otherNode := nodeList(t, nodeValue(t, "b", "Running", 2223), nodeValue(t, "c", "Running", 2224))
	if got, matched := keepPlannedNodes(ctx, planned, otherNode); matched || !got.Equal(otherNode) {
		t.Fatalf("another node in place of a: %v (matched %v), want the refreshed list", got, matched)
	}
	movedPort := nodeList(t, nodeValue(t, "a", "Running", 2225), nodeValue(t, "b", "Running", 2224))
	if got, matched := keepPlannedNodes(ctx, planned, movedPort); matched || !got.Equal(movedPort) {
		t.Fatalf("a on another port: %v (matched %v), want the refreshed list", got, matched)
	}
	if got, matched := keepPlannedNodes(ctx, planned, nodeList(t, nodeValue(t, "a", "Running", 2223))); matched || len(got.Elements()) != 1 {
		t.Fatalf("fewer nodes: %v (matched %v)", got, matched)
	}

}
