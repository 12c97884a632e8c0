package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

func TestRunDriftLatencySmall(t *testing.T) {
	t.Parallel()
	res, err := RunDriftLatency(t.Context(), DriftLatencyOptions{APILatency: 2 * time.Millisecond, SSHLatency: 3 * time.Millisecond, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 2 {
		t.Fatalf("%d checks timed, want 2", len(res.Checks))
	}
	for _, name := range append([]string{viewLookup}, dependentViews...) {
		if len(res.Views[name]) != 2 {
			t.Errorf("view %q timed %d times, want 2", name, len(res.Views[name]))
		}
	}
	// The checker's own count agrees with the simulator's, within the budget:
	// the cluster, its owner's VMs, and the IP's firewall, forwarding and
	// load balancer rules.
	if int64(res.CloudStackRequests) != res.SimulatorRequests || res.CloudStackRequests < 1 || res.CloudStackRequests > 5 {
		t.Errorf("requests per check: checker %d, simulator %d", res.CloudStackRequests, res.SimulatorRequests)
	}
	if res.SSHSessions != 1 {
		t.Errorf("SSH sessions per check = %d, want 1", res.SSHSessions)
	}
	bound, slowest := res.Bound()
	if bound <= median(res.Views[viewLookup]) || slowest == "" {
		t.Errorf("bound %v (slowest %q) does not add a dependent view to the lookup", bound, slowest)
	}
	figs := res.Figures()
	if figs[0].Verdict == Info || !strings.Contains(figs[0].Reference, slowest) {
		t.Errorf("first figure = %+v, want the judged check against the bound", figs[0])
	}
	if len(figs) != 1+1+len(dependentViews)+2 {
		t.Errorf("%d figures", len(figs))
	}
}

func TestRunFleetDriftSmall(t *testing.T) {
	t.Parallel()
	res, err := RunFleetDrift(t.Context(), FleetOptions{Sizes: []int{3, 1, 2}, Concurrency: 2, Runs: 1,
		APILatency: time.Millisecond, SSHLatency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{res.Runs[0].Clusters, res.Runs[1].Clusters, res.Runs[2].Clusters}; got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("sizes run = %v, want sorted 1, 2, 3", got)
	}
	for _, run := range res.Runs {
		if run.SSHSessions != run.Clusters || len(run.Walls) != 1 {
			t.Errorf("fleet of %d: %d SSH sessions, %d timings", run.Clusters, run.SSHSessions, len(run.Walls))
		}
	}
	if last := res.Runs[2]; float64(last.CloudStackRequests)/3 > float64(res.SingleCheckRequests) {
		t.Errorf("3 clusters cost %d requests, more per cluster than a single check (%d)", last.CloudStackRequests, res.SingleCheckRequests)
	}
	figs := res.Figures()
	if len(figs) != 9 {
		t.Fatalf("%d figures, want 3 per size", len(figs))
	}
	// Growth is judged up to the concurrency bound only; requests per
	// cluster for every fleet larger than one.
	judged := map[string]bool{}
	for _, f := range figs {
		judged[f.Name] = f.Verdict != Info
	}
	for name, want := range map[string]bool{
		"1 cluster: wall time": false, "2 clusters: wall time": true, "3 clusters: wall time": false,
		"1 cluster: CloudStack requests per cluster": false, "3 clusters: CloudStack requests per cluster": true,
		"3 clusters: SSH sessions per cluster": false,
	} {
		if judged[name] != want {
			t.Errorf("%q judged = %v, want %v", name, judged[name], want)
		}
	}
}

// Not parallel: RunScale calls testing.AllocsPerRun, which refuses to run
// beside parallel tests.
func TestRunScaleInProcess(t *testing.T) {
	res, err := RunScale(t.Context(), ScaleOptions{Workers: 4, AccountVMs: 40, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.VMsListed != 40 {
		t.Errorf("the check listed %d VMs, want the account's 40", res.VMsListed)
	}
	// Three stray workers plus the worker whose map row was deleted.
	if res.Findings[drift.KindUnmappedVM] != scaleStrayNodeVMs+1 {
		t.Errorf("findings = %v, want %d unmapped VMs", res.Findings, scaleStrayNodeVMs+1)
	}
	if len(res.Full.Walls) != 1 || len(res.Compare.Walls) != 2 || res.Full.Allocs <= 0 || res.Compare.Allocs <= 0 {
		t.Errorf("measures: full %+v, compare %+v", res.Full, res.Compare)
	}
	if res.Full.PeakHeap < res.Full.BaseHeap/2 || res.Compare.PeakHeap == 0 {
		t.Errorf("peak heap: full %d (base %d), compare %d", res.Full.PeakHeap, res.Full.BaseHeap, res.Compare.PeakHeap)
	}
	figs := res.Figures()
	if len(figs) != 8 {
		t.Fatalf("%d figures, want 8", len(figs))
	}
	for _, f := range figs {
		targeted := strings.Contains(f.Name, "peak heap") || (strings.Contains(f.Name, "CPU time") && res.Full.CPUKnown)
		if (f.Verdict != Info) != targeted {
			t.Errorf("figure %q: verdict %v", f.Name, f.Verdict)
		}
	}
	if !strings.Contains(res.Section().Method, "4 unmapped_vm") {
		t.Errorf("method text does not list the findings: %s", res.Section().Method)
	}
}

// The runner's path: the scenario served by a child process (this test
// binary, see TestMain) and reachable with the credentials it printed.
func TestChildProcessScenario(t *testing.T) {
	t.Parallel()
	self, err := osExecutable()
	if err != nil {
		t.Fatal(err)
	}
	sc, stop, err := ChildProcessScenario(self, ScaleChildArg)(t.Context(), 2, 12)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if sc.Workers != 2 || sc.AccountVMs != 12 || sc.ClusterID == "" || !strings.HasPrefix(sc.HostKey, "ssh-ed25519 ") ||
		!strings.Contains(sc.PrivateKey, "PRIVATE KEY") {
		t.Fatalf("scenario = %+v", redacted(sc))
	}
	api, err := cloudstack.New(cloudstack.Config{APIURL: sc.APIURL, APIKey: sc.APIKey, SecretKey: sc.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := api.GetKubernetesCluster(t.Context(), sc.ClusterID)
	if err != nil {
		t.Fatal(err)
	}
	// One map row was deleted: a control node and one of the two workers remain.
	if len(cl.VirtualMachines) != 2 || cl.Size != 2 {
		t.Errorf("cluster has %d mapped VMs and size %d", len(cl.VirtualMachines), cl.Size)
	}
}

func TestServeScaleScenarioRejectsBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"5"}, {"five", "100"}, {"500", "10"}} {
		if err := ServeScaleScenario(t.Context(), args, strings.NewReader(""), &strings.Builder{}); err == nil {
			t.Errorf("args %q accepted", args)
		}
	}
}

// redacted hides the scenario's secrets from test output.
func redacted(sc ScaleScenario) ScaleScenario {
	sc.PrivateKey, sc.SecretKey = "<redacted>", "<redacted>"
	return sc
}
