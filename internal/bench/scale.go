package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// Scale targets: under 1 s of CPU and under 100 MB.
const (
	scaleMaxCPU  = time.Second
	scaleMaxHeap = 100_000_000
)

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	// Workers in the cluster; zero means 500.
	Workers int
	// AccountVMs is how many VMs the cluster's account holds, the
	// cluster's included; zero means 5,000.
	AccountVMs int
	// Runs is how many checks are measured; zero means 5.
	Runs int
	// Source starts the scenario; nil means InProcessScenario.
	Source ScenarioSource
}

func (o ScaleOptions) withDefaults() ScaleOptions {
	o.Workers = positiveOr(o.Workers, DefaultScaleWorkers)
	o.AccountVMs = positiveOr(o.AccountVMs, DefaultScaleAccountVMs)
	o.Runs = positiveOr(o.Runs, 5)
	if o.Source == nil {
		o.Source = InProcessScenario
	}
	return o
}

// ScaleMeasure is the cost of a series of checks.
type ScaleMeasure struct {
	Walls []time.Duration
	// CPU is the process CPU time per check; CPUKnown is false where the
	// platform cannot tell.
	CPU      time.Duration
	CPUKnown bool
	// Allocs and Bytes are heap allocations per check.
	Allocs float64
	Bytes  uint64
	// PeakHeap is the largest heap seen during the checks, BaseHeap the
	// heap before them (after a collection), in bytes.
	PeakHeap uint64
	BaseHeap uint64
}

// ScaleResult is the outcome of RunScale.
type ScaleResult struct {
	Options  ScaleOptions
	Scenario ScaleScenario
	// VMsListed is how many VMs the check saw for the owner.
	VMsListed int
	// Findings is the check's finding count by kind.
	Findings map[string]int
	// Full measures whole checks against the simulator: CloudStack calls
	// with decoding, the SSH node listing and the comparison.
	Full ScaleMeasure
	// Compare measures the same checks on views held in memory: the
	// conversion, indexing and drift.Compare alone.
	Compare ScaleMeasure
}

// RunScale checks one large cluster, first live and then on its views
// replayed from memory, measuring wall time, CPU time, allocations and peak
// heap of this process. Use ChildProcessScenario so that the simulator's
// own work is not counted.
func RunScale(ctx context.Context, opts ScaleOptions) (ScaleResult, error) {
	opts = opts.withDefaults()
	sc, stop, err := opts.Source(ctx, opts.Workers, opts.AccountVMs)
	if err != nil {
		return ScaleResult{}, fmt.Errorf("scale scenario: %w", err)
	}
	defer stop()
	client, err := cloudstack.New(cloudstack.Config{APIURL: sc.APIURL, APIKey: sc.APIKey, SecretKey: sc.SecretKey})
	if err != nil {
		return ScaleResult{}, err
	}
	api := newReplayAPI(client)
	listers := &replayListers{live: driftcheck.DefaultListers{}}
	checker := &driftcheck.Checker{API: api, Listers: listers}
	req := driftcheck.Request{ClusterID: sc.ClusterID, Options: fullCheckOptions(
		sshlister.Config{PrivateKey: []byte(sc.PrivateKey), HostKey: sc.HostKey}, time.Minute)}
	check := func() (drift.Result, error) {
		res, _, err := checker.Check(ctx, req)
		if err == nil && !res.NodesChecked {
			err = fmt.Errorf("the nodes were not checked: %s", res.NodeCheckError)
		}
		return res, err
	}

	live, err := check() // also records the views for the replay
	if err != nil {
		return ScaleResult{}, fmt.Errorf("live check: %w", err)
	}
	res := ScaleResult{Options: opts, Scenario: sc, Findings: nonZero(live.Counts), VMsListed: api.vmsRecorded()}
	if res.Full, err = measureChecks(opts.Runs, check); err != nil {
		return res, fmt.Errorf("live check: %w", err)
	}

	api.replay()
	listers.replay()
	replayed, err := check()
	if err != nil {
		return res, fmt.Errorf("replayed check: %w", err)
	}
	if fmt.Sprint(replayed.Counts) != fmt.Sprint(live.Counts) {
		return res, fmt.Errorf("the replayed check found %v, the live one %v", replayed.Counts, live.Counts)
	}
	if res.Compare, err = measureChecks(2*opts.Runs, check); err != nil {
		return res, fmt.Errorf("replayed check: %w", err)
	}
	// testing.AllocsPerRun, as the brief asks, for the comparison; it runs
	// with GOMAXPROCS=1, so it only replaces the allocation count.
	var runErr error
	res.Compare.Allocs = testing.AllocsPerRun(opts.Runs, func() {
		if _, err := check(); err != nil {
			runErr = err
		}
	})
	return res, runErr
}

// measureChecks runs check n times and measures them together.
func measureChecks(n int, check func() (drift.Result, error)) (ScaleMeasure, error) {
	var m ScaleMeasure
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m.BaseHeap = before.HeapAlloc
	cpu0, ok0 := processCPU()
	sampler := startHeapSampler(time.Millisecond)
	for range n {
		start := time.Now()
		if _, err := check(); err != nil {
			sampler.Stop()
			return m, err
		}
		m.Walls = append(m.Walls, time.Since(start))
	}
	m.PeakHeap = sampler.Stop()
	cpu1, ok1 := processCPU()
	runtime.ReadMemStats(&after)
	m.CPUKnown = ok0 && ok1
	m.CPU = (cpu1 - cpu0) / time.Duration(n)
	m.Allocs = float64(after.Mallocs-before.Mallocs) / float64(n)
	m.Bytes = (after.TotalAlloc - before.TotalAlloc) / uint64(n)
	return m, nil
}

// vmsRecorded is the size of the recorded VM listing.
func (r *replayAPI) vmsRecorded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.answers {
		if vms, ok := v.([]cloudstack.VirtualMachine); ok {
			n += len(vms)
		}
	}
	return n
}

func nonZero(counts map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range counts {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

// findingsText lists finding counts in report order, e.g. "4 unmapped_vm,
// 1 size_mismatch".
func findingsText(counts map[string]int) string {
	var parts []string
	for _, k := range drift.Kinds() {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// megabytes formats bytes in MB (10^6), the unit of the target.
func megabytes(b uint64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

// Figures reports both measurements with the targets.
func (r ScaleResult) Figures() []Figure {
	group := fmt.Sprintf("Scale (%d workers, %d VMs)", r.Scenario.Workers, r.VMsListed)
	var figs []Figure
	for _, part := range []struct {
		name         string
		m, other     ScaleMeasure
		otherName    string
		allocsMethod string
	}{
		{"full check", r.Full, r.Compare, "comparison alone", "MemStats"},
		{"comparison alone", r.Compare, r.Full, "full check", "testing.AllocsPerRun"},
	} {
		wall, otherWall := median(part.m.Walls), median(part.other.Walls)
		figs = append(figs, Figure{Group: group, Name: part.name + ": wall time", Value: seconds(wall),
			Reference: part.otherName + " " + seconds(otherWall), Ratio: ratio(wall.Seconds(), otherWall.Seconds())})
		cpu := Figure{Group: group, Name: part.name + ": CPU time", Value: "unknown", Reference: "budget " + seconds(scaleMaxCPU),
			Target: "< " + seconds(scaleMaxCPU), Ratio: ratio(part.m.CPU.Seconds(), scaleMaxCPU.Seconds())}
		if part.m.CPUKnown {
			cpu.Value = seconds(part.m.CPU)
			cpu.Verdict = verdictOf(part.m.CPU < scaleMaxCPU)
		} else {
			cpu.Verdict, cpu.Target = Info, ""
		}
		figs = append(figs, cpu,
			Figure{Group: group, Name: fmt.Sprintf("%s: allocations (%s)", part.name, part.allocsMethod),
				Value:     fmt.Sprintf("%.0f allocs, %s", part.m.Allocs, megabytes(part.m.Bytes)),
				Reference: fmt.Sprintf("%s %.0f allocs", part.otherName, part.other.Allocs), Ratio: ratio(part.m.Allocs, part.other.Allocs)},
			Figure{Group: group, Name: part.name + ": peak heap", Value: megabytes(part.m.PeakHeap),
				Reference: "budget " + megabytes(scaleMaxHeap), Ratio: ratio(float64(part.m.PeakHeap), scaleMaxHeap),
				Target: "< " + megabytes(scaleMaxHeap), Verdict: verdictOf(part.m.PeakHeap < scaleMaxHeap)},
		)
	}
	return figs
}

// Section is the scale part of the report.
func (r ScaleResult) Section() Section {
	s := Section{
		Title: "Scale",
		Method: fmt.Sprintf("One cluster with one control node and %d workers in an account holding %d VMs (the check listed %d), "+
			"served by a simulator in a child process so that only the checking side is measured. Planted drift: %d stray VMs "+
			"named as workers and one deleted VM map row; the check found %s. The full check (%d runs) fetches the views "+
			"(listVirtualMachines in pages of 500, nodes over SSH, rules) and compares them; the comparison alone (%d runs) "+
			"replays the same views from memory. CPU time is this process's user+system time per check; peak heap is sampled "+
			"every millisecond (%s) and includes the base heap before the runs (full %s, comparison %s). Building the scenario "+
			"took %s.",
			r.Scenario.Workers, r.Scenario.AccountVMs, r.VMsListed, scaleStrayNodeVMs, findingsText(r.Findings), len(r.Full.Walls),
			len(r.Compare.Walls), heapObjectsMetric, megabytes(r.Full.BaseHeap), megabytes(r.Compare.BaseHeap),
			r.Scenario.Setup.Round(100*time.Millisecond)),
		Figures: r.Figures(),
	}
	s.Notes = append(s.Notes, missNotes(s.Figures)...)
	return s
}
