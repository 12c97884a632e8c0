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
	c.Rows, c.External = 4, 2
	c.Size = 1
	if Check(Cluster{State: "Running", ControlNodes: 1, Size: 1, Rows: 4, External: 2, Workers: 1}) != nil {
		t.Error("external nodes are part of the map")
	}
}
