package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// Fleet scale targets on 2 cores: a whole fleet check under 30 s, under
// 0.05 CloudStack calls per cluster and under 500 MB.
const (
	fleetScaleMaxWall         = 30 * time.Second
	fleetScaleMaxCallsPerCl   = 0.05
	fleetScaleMaxHeap         = 500_000_000
	fleetScaleNodeTimeout     = time.Minute
	fleetScaleHeapSampleEvery = 5 * time.Millisecond
)

// FleetScaleOptions configure RunFleetScale.
type FleetScaleOptions struct {
	// Clusters and AccountVMs size the fleet; zero means 1,000 and 20,000.
	Clusters   int
	AccountVMs int
	// Concurrency is CheckMany's bound; zero means driftcheck.DefaultConcurrency.
	Concurrency int
	// APILatency and SSHLatency are injected as for RunFleetDrift.
	APILatency time.Duration
	SSHLatency time.Duration
	// Source starts the scenario; nil means InProcessFleetScale.
	Source FleetScaleSource
}

func (o FleetScaleOptions) withDefaults() FleetScaleOptions {
	o.Clusters = positiveOr(o.Clusters, DefaultFleetScaleClusters)
	o.AccountVMs = positiveOr(o.AccountVMs, DefaultFleetScaleAccountVMs)
	o.Concurrency = positiveOr(o.Concurrency, driftcheck.DefaultConcurrency)
	o.APILatency = positiveOr(o.APILatency, DefaultAPILatency)
	o.SSHLatency = positiveOr(o.SSHLatency, DefaultSSHLatency)
	if o.Source == nil {
		o.Source = InProcessFleetScale
	}
	return o
}

// FleetScaleRun is one whole-fleet check.
type FleetScaleRun struct {
	NodeSource driftcheck.NodeSource
	Wall       time.Duration
	// CPU is this process's CPU time during the check (the simulator's
	// runs elsewhere); CPUKnown is false where the platform cannot tell.
	CPU      time.Duration
	CPUKnown bool
	Stats    driftcheck.Stats
	// PeakHeap is the largest heap of this process during the check,
	// BaseHeap the heap before it (after a collection), in bytes.
	PeakHeap, BaseHeap uint64
	// Findings is the fleet's finding count by kind.
	Findings map[string]int
	// LoadAvg is the machine's load average (1, 5, 15 min) after the check.
	LoadAvg string
}

// FleetScaleResult is the outcome of RunFleetScale.
type FleetScaleResult struct {
	Options  FleetScaleOptions
	Scenario FleetScaleScenario
	Runs     []FleetScaleRun
}

// RunFleetScale checks a fleet of 1,000 clusters and 20,000 VMs in one
// account with cks_clusters_drift's engine, once with the nodes read
// through the Kubernetes API (node_source = "kubeconfig") and once over
// SSH, and measures each check's wall time, CloudStack calls, node
// listings and this process's peak heap. Use ChildProcessFleetScale so
// that the simulator's memory is not counted.
func RunFleetScale(ctx context.Context, opts FleetScaleOptions) (FleetScaleResult, error) {
	opts = opts.withDefaults()
	sc, stop, err := opts.Source(ctx, opts.Clusters, opts.AccountVMs, opts.APILatency, opts.SSHLatency)
	if err != nil {
		return FleetScaleResult{}, fmt.Errorf("fleet scale scenario: %w", err)
	}
	defer stop()
	client, err := cloudstack.New(cloudstack.Config{APIURL: sc.APIURL, APIKey: sc.APIKey, SecretKey: sc.SecretKey})
	if err != nil {
		return FleetScaleResult{}, err
	}
	checker := &driftcheck.Checker{API: client}
	res := FleetScaleResult{Options: opts, Scenario: sc}
	for _, source := range []driftcheck.NodeSource{driftcheck.NodeSourceKubeconfig, driftcheck.NodeSourceSSH} {
		checkOpts := driftcheck.Options{NodeSource: source, GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true,
			NodeTimeout: fleetScaleNodeTimeout}
		if source == driftcheck.NodeSourceSSH {
			checkOpts.SSH = sshlister.Config{PrivateKey: []byte(sc.PrivateKey), KnownHosts: sc.KnownHosts}
		}
		run, err := measureFleetCheck(ctx, checker, checkOpts, opts.Concurrency)
		if err != nil {
			return res, fmt.Errorf("node_source %s: %w", source, err)
		}
		if err := fleetScaleComplete(run, sc); err != nil {
			return res, fmt.Errorf("node_source %s: %w", source, err)
		}
		res.Runs = append(res.Runs, run)
	}
	return res, nil
}

func measureFleetCheck(ctx context.Context, checker *driftcheck.Checker, opts driftcheck.Options, concurrency int) (FleetScaleRun, error) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	sampler := startHeapSampler(fleetScaleHeapSampleEvery)
	cpu0, ok0 := processCPU()
	start := time.Now()
	fleet, st, err := checker.CheckMany(ctx, driftcheck.Filter{}, opts, concurrency)
	wall := time.Since(start)
	cpu1, ok1 := processCPU()
	peak := sampler.Stop()
	if err != nil {
		return FleetScaleRun{}, err
	}
	if err := fleetComplete(fleet, len(fleet.Clusters)); err != nil {
		return FleetScaleRun{}, err
	}
	return FleetScaleRun{NodeSource: opts.NodeSource, Wall: wall, CPU: cpu1 - cpu0, CPUKnown: ok0 && ok1, Stats: st,
		PeakHeap: peak, BaseHeap: before.HeapAlloc, Findings: nonZero(fleet.Counts), LoadAvg: loadAverage()}, nil
}

// fleetScaleComplete checks that the check saw the whole fleet and exactly
// the planted drift: a benchmark of failing checks would measure the wrong
// thing.
func fleetScaleComplete(run FleetScaleRun, sc FleetScaleScenario) error {
	want := map[string]int{drift.KindNodeNotReady: sc.Drifted}
	if fmt.Sprint(run.Findings) != fmt.Sprint(want) {
		return fmt.Errorf("findings %v, want %v", run.Findings, want)
	}
	listings := run.Stats.SSHSessions + run.Stats.KubeAPIListings
	if listings != sc.Clusters {
		return fmt.Errorf("%d node listings for %d clusters", listings, sc.Clusters)
	}
	return nil
}

// listCalls are a run's CloudStack calls other than
// getKubernetesClusterConfig, which returns one cluster's kubeconfig per
// call.
func (r FleetScaleRun) listCalls() int {
	return r.Stats.CloudStackRequests() - r.Stats.CloudStackCalls["getKubernetesClusterConfig"]
}

// Figures reports each run against the targets.
func (r FleetScaleResult) Figures() []Figure {
	group := fmt.Sprintf("Fleet scale (%d clusters, %d VMs)", r.Scenario.Clusters, r.Scenario.AccountVMs)
	n := float64(r.Scenario.Clusters)
	var figs []Figure
	for _, run := range r.Runs {
		label := "node_source " + string(run.NodeSource)
		calls := float64(run.Stats.CloudStackRequests()) / n
		figs = append(figs,
			Figure{Group: group, Name: label + ": wall time", Value: seconds(run.Wall),
				Reference: "budget " + seconds(fleetScaleMaxWall), Ratio: ratio(run.Wall.Seconds(), fleetScaleMaxWall.Seconds()),
				Target: "< " + seconds(fleetScaleMaxWall), Verdict: verdictOf(run.Wall < fleetScaleMaxWall)},
			Figure{Group: group, Name: label + ": CPU time of the checking process", Value: cpuText(run),
				Reference: "wall " + seconds(run.Wall), Ratio: ratio(run.CPU.Seconds(), run.Wall.Seconds())},
			Figure{Group: group, Name: label + ": CloudStack calls per cluster", Value: fmt.Sprintf("%.3f", calls),
				Reference: fmt.Sprintf("%d calls: %s", run.Stats.CloudStackRequests(), callsText(callCounts(run.Stats.CloudStackCalls))),
				Ratio:     ratio(calls, fleetScaleMaxCallsPerCl), Target: fmt.Sprintf("< %.2f", fleetScaleMaxCallsPerCl),
				Verdict: verdictOf(calls < fleetScaleMaxCallsPerCl)},
			Figure{Group: group, Name: label + ": list calls per cluster (all but getKubernetesClusterConfig)",
				Value: fmt.Sprintf("%.3f", float64(run.listCalls())/n), Reference: fmt.Sprintf("%d calls", run.listCalls()),
				Ratio: ratio(float64(run.listCalls())/n, fleetScaleMaxCallsPerCl)},
			Figure{Group: group, Name: label + ": SSH sessions", Value: fmt.Sprint(run.Stats.SSHSessions),
				Reference: fmt.Sprintf("%d clusters", r.Scenario.Clusters), Ratio: ratio(float64(run.Stats.SSHSessions), n)},
			Figure{Group: group, Name: label + ": peak heap", Value: megabytes(run.PeakHeap),
				Reference: "budget " + megabytes(fleetScaleMaxHeap) + "; before " + megabytes(run.BaseHeap),
				Ratio:     ratio(float64(run.PeakHeap), fleetScaleMaxHeap), Target: "< " + megabytes(fleetScaleMaxHeap),
				Verdict: verdictOf(run.PeakHeap < fleetScaleMaxHeap)},
		)
	}
	return figs
}

func cpuText(run FleetScaleRun) string {
	if !run.CPUKnown {
		return "unknown"
	}
	return seconds(run.CPU)
}

// callCounts converts a check's call counts for callsText.
func callCounts(calls map[string]int) map[string]int64 {
	out := make(map[string]int64, len(calls))
	for cmd, n := range calls {
		out[cmd] = int64(n)
	}
	return out
}

// Section is the fleet scale part of the report.
func (r FleetScaleResult) Section() Section {
	s := Section{
		Title: "Fleet scale",
		Method: fmt.Sprintf("One cks_clusters_drift-equivalent check (driftcheck.Checker.CheckMany, every cluster, rules "+
			"compared, concurrency %d) of %d clusters (one control node and one worker each, each on its own isolated "+
			"network) and %d VMs in one account (the clusters' and %d VMs of other applications), run in a child process "+
			"so that only the checking side counts in memory, with %s on every CloudStack call and %s on every SSH "+
			"command; %d clusters have a stopped kubelet, and each check must report exactly those. Once with "+
			"`node_source = \"kubeconfig\"` and once over SSH with a known_hosts entry per cluster. The fleet was built in %s. "+
			"A list call counts once however many pages it takes. With kubeconfig, getKubernetesClusterConfig returns one "+
			"cluster's kubeconfig per call, so that mode makes one call per cluster on top of the fleet's lists; the lists "+
			"alone are reported beside it. The latencies alone bound the wall time from below: %d waves of %d clusters, "+
			"each waiting at least %s (SSH) or %s (kubeconfig). The wall time also depends on the machine's other load "+
			"(see Machine); the CPU time of the checking process does not.",
			r.Options.Concurrency, r.Scenario.Clusters, r.Scenario.AccountVMs, r.Scenario.AccountVMs-2*r.Scenario.Clusters,
			r.Options.APILatency, r.Options.SSHLatency, r.Scenario.Drifted, r.Scenario.Setup.Round(100*time.Millisecond),
			waves(r.Scenario.Clusters, r.Options.Concurrency), r.Options.Concurrency, r.Options.SSHLatency, r.Options.APILatency),
		Figures: r.Figures(),
	}
	for _, f := range s.Figures {
		if f.Verdict == Miss {
			s.Notes = append(s.Notes, fmt.Sprintf("MISS %q: %s (%s, target %s).%s", f.Name, f.Value, f.Reference, f.Target,
				r.missReason(f.Name)))
		}
	}
	return s
}

// missReason says what a missed target of this benchmark depends on.
func (r FleetScaleResult) missReason(figure string) string {
	for _, run := range r.Runs {
		label := "node_source " + string(run.NodeSource)
		switch figure {
		case label + ": wall time":
			bound := time.Duration(waves(r.Scenario.Clusters, r.Options.Concurrency)) * r.Options.SSHLatency
			if run.NodeSource == driftcheck.NodeSourceKubeconfig {
				bound = time.Duration(waves(r.Scenario.Clusters, r.Options.Concurrency)) * r.Options.APILatency
			}
			return fmt.Sprintf(" The checking process used %s of CPU and the latencies alone take %s; the rest is waiting "+
				"for the CPUs, which the simulator's child process shares, with the machine's other work: load average %s "+
				"after the check, on %d CPUs.", cpuText(run), seconds(bound), orUnknown(run.LoadAvg), runtime.NumCPU())
		case label + ": CloudStack calls per cluster":
			return fmt.Sprintf(" getKubernetesClusterConfig returns one cluster's kubeconfig per call, so reading the nodes "+
				"through the Kubernetes API costs a call per cluster; the fleet's lists cost %.3f per cluster. Over SSH "+
				"there is no such call.", float64(run.listCalls())/float64(r.Scenario.Clusters))
		}
	}
	return ""
}
