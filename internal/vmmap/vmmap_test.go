package vmmap

import (
	"strings"
	"testing"
)

func TestCheckFindsAFailedScaleDown(t *testing.T) {
	t.Parallel()
	// 1 control, 3 etcd, size 2, one worker left after the failed scale-down.
	c := Cluster{ID: "3b74274b-6554-40c2-b2cf-4329d4308544", Name: "prod", State: "Alert",
		ControlNodes: 1, Size: 2, EtcdNodes: 3, Rows: 5, Workers: 1}
	bad := Check(c)
	if bad == nil || !bad.Lost() || bad.Expected != 6 {
		t.Fatalf("Check = %+v", bad)
	}
	text := bad.Explanation()
	for _, want := range []string{"holds 5 VM(s) with 1 worker(s)", "node_count) is 2", "unstable state", "keeps it in Alert", "No CloudStack API call",
		"UPDATE cloud.kubernetes_cluster SET node_count = 1 WHERE uuid = '3b74274b-6554-40c2-b2cf-4329d4308544'",
		"within about 30 seconds", "delete and re-create"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
}

func TestCheckFindsAFailedScaleUpAndIgnoresTransitions(t *testing.T) {
	t.Parallel()
	c := Cluster{ID: "c", State: "Alert", ControlNodes: 1, Size: 1, Rows: 3, Workers: 2}
	if bad := Check(c); bad == nil || bad.Lost() || !strings.Contains(bad.Explanation(), "failed scale-up") ||
		!strings.Contains(bad.AdminFix(), "node_count = 2") {
		t.Fatalf("extra worker: %+v", bad)
	}
	for _, state := range []string{"Scaling", "Created", "Starting", "Destroying"} {
		c.State = state
		if Check(c) != nil {
			t.Errorf("%s: reported although an operation runs", state)
		}
	}
	c.State, c.Rows = "Running", 0
	if Check(c) != nil {
		t.Error("a cluster without VMs is not inconsistent")
	}
}

// node_count counts the external nodes (addNodesToKubernetesCluster adds
// them to it), so the map of a healthy cluster with one holds C + node_count
// + E rows, each external node once.
func TestCheckCountsExternalNodesOnce(t *testing.T) {
	t.Parallel()
	// 1 control, 1 etcd, 1 worker and 1 external node: node_count 2, 4 rows.
	healthy := Cluster{ID: "c", Name: "gpu", State: "Running", ControlNodes: 1, Size: 2, EtcdNodes: 1, Rows: 4, External: 1, Workers: 1}
	if bad := Check(healthy); bad != nil {
		t.Fatalf("a healthy cluster with an external node is reported: %s", bad.Explanation())
	}
	// A failed scale-down took the worker: node_count 2, 3 rows.
	lost := healthy
	lost.State, lost.Rows, lost.Workers = "Alert", 3, 0
	bad := Check(lost)
	if bad == nil || !bad.Lost() || bad.Expected != 4 || bad.MapNodeCount() != 1 {
		t.Fatalf("Check = %+v", bad)
	}
	for _, want := range []string{"0 worker(s) and 1 external node(s)", "SET node_count = 1 WHERE", "external nodes count in node_count"} {
		if !strings.Contains(bad.Explanation(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, bad.Explanation())
		}
	}
}
