package bench

import (
	"context"
	"testing"
	"time"
)

// TestRunWorkspacePlanSmall: a small workspace's refresh through the shared
// reads costs fewer calls than one per cluster, where the official read
// path costs one each, and the figures come out.
func TestRunWorkspacePlanSmall(t *testing.T) {
	t.Parallel()
	r, err := RunWorkspacePlan(context.Background(), WorkspacePlanOptions{Sizes: []int{60, 120}, APILatency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 {
		t.Fatalf("points %+v", r.Points)
	}
	for _, p := range r.Points {
		if p.Official.Calls != int64(p.Clusters) {
			t.Errorf("%d clusters: the official read path made %d calls, want one per cluster", p.Clusters, p.Official.Calls)
		}
		if p.Ours.Calls == 0 || p.Ours.perCluster(p.Clusters) > planMaxCallsPerCluster {
			t.Errorf("%d clusters: the shared refresh made %d calls", p.Clusters, p.Ours.Calls)
		}
	}
	sec := r.Section()
	if len(sec.Figures) != 7 || sec.Figures[0].Verdict != Pass {
		t.Fatalf("figures %+v", sec.Figures)
	}
}
