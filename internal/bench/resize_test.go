package bench

import (
	"context"
	"testing"
	"time"
)

func TestRunResizeSmall(t *testing.T) {
	t.Parallel()
	r, err := RunResize(context.Background(), ResizeOptions{JobTime: 50 * time.Millisecond, APILatency: time.Millisecond,
		Sizes: []int64{2, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Apply) != 2 || len(r.Raw) != 2 || len(r.Plan) != 2 {
		t.Fatalf("samples: %d apply, %d raw, %d plan", len(r.Apply), len(r.Raw), len(r.Plan))
	}
	// The first apply replaces the 3 single-port etcd rules with one range;
	// after that a size change makes no rule job at all.
	if got := r.Hardening.ruleJobs(); got != 4 {
		t.Fatalf("hardening made %d rule jobs (%v), want 3 deletes and 1 create", got, r.Hardening.Calls)
	}
	for i, s := range r.Apply {
		if s.ruleJobs() != 0 || s.Calls["scaleKubernetesCluster"] != 1 {
			t.Fatalf("size change %d: %v", i, s.Calls)
		}
		if raw := r.Raw[i]; raw.Calls["scaleKubernetesCluster"] != 1 || raw.total() < 3 {
			t.Fatalf("cloudstack-go size change %d: %v", i, raw.Calls)
		}
		if s.Wall < r.Options.JobTime {
			t.Fatalf("size change %d took %s, less than one job", i, s.Wall)
		}
	}
	sec := r.Section()
	if len(sec.Figures) != 8 || sec.Figures[1].Verdict != Pass {
		t.Fatalf("figures %+v", sec.Figures)
	}
}
