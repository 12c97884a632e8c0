package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// A small fleet through the same code the 1,000-cluster run takes: both
// node sources, the planted drift found, and one figure per target.
func TestRunFleetScaleSmall(t *testing.T) {
	t.Parallel()
	res, err := RunFleetScale(t.Context(), FleetScaleOptions{Clusters: 12, AccountVMs: 60, Concurrency: 4,
		APILatency: time.Millisecond, SSHLatency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Runs[0].NodeSource != driftcheck.NodeSourceKubeconfig || res.Runs[1].NodeSource != driftcheck.NodeSourceSSH {
		t.Fatalf("runs %+v", res.Runs)
	}
	kube, ssh := res.Runs[0], res.Runs[1]
	if kube.Stats.KubeAPIListings != 12 || kube.Stats.SSHSessions != 0 || kube.Stats.CloudStackCalls["getKubernetesClusterConfig"] != 12 {
		t.Errorf("kubeconfig run: %+v", kube.Stats)
	}
	if ssh.Stats.SSHSessions != 12 || ssh.Stats.CloudStackCalls["getKubernetesClusterConfig"] != 0 {
		t.Errorf("SSH run: %+v", ssh.Stats)
	}
	// The fleet's lists do not grow with it: far fewer calls than clusters.
	if ssh.listCalls() >= 12 || ssh.listCalls() != kube.listCalls() {
		t.Errorf("list calls: SSH %d, kubeconfig %d", ssh.listCalls(), kube.listCalls())
	}
	if kube.PeakHeap == 0 || ssh.Wall <= 0 {
		t.Errorf("unmeasured: %+v", ssh)
	}
	judged := 0
	for _, f := range res.Figures() {
		if f.Verdict != Info {
			judged++
		}
	}
	if judged != 6 {
		t.Errorf("%d judged figures, want wall time, calls and heap for each node source", judged)
	}
	if s := res.Section(); !strings.Contains(s.Method, "12 clusters") || !strings.Contains(s.Method, "60 VMs in one account") {
		t.Errorf("method: %s", s.Method)
	}
}

func TestChildProcessFleetScale(t *testing.T) {
	t.Parallel()
	self, err := osExecutable()
	if err != nil {
		t.Fatal(err)
	}
	sc, stop, err := ChildProcessFleetScale(self, FleetScaleChildArg)(t.Context(), 10, 30, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if sc.Clusters != 10 || sc.AccountVMs != 30 || sc.Drifted != fleetScaleDrifted || strings.Count(sc.KnownHosts, "\n") != 10 {
		t.Fatalf("scenario %+v", sc)
	}
	if _, _, err := ChildProcessFleetScale(self, FleetScaleChildArg)(t.Context(), 10, 5, 0, 0); err == nil ||
		!strings.Contains(err.Error(), "cannot hold") {
		t.Fatalf("a fleet that does not fit: %v", err)
	}
}
