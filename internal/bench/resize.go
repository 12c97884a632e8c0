package bench

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/sharedreads"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// Size change targets: the provider's apply of a new size against the same
// scale sent with cloudstack-go alone, measured in one run.
const (
	resizeMaxWallRatio  = 1.10
	resizeMaxCallsRatio = 2.0
	// resizeMaxWholeRatio is the whole `terraform apply` (refresh, plan,
	// the plan again at apply, the change) against the official
	// provider's (its refresh, the scale, the read back).
	resizeMaxWholeRatio = 1.0
)

// ResizeOptions configure RunResize.
type ResizeOptions struct {
	// JobTime is how long every async job takes; zero means 2 s.
	JobTime time.Duration
	// APILatency is added to every CloudStack call; zero means 20 ms.
	APILatency time.Duration
	// Sizes are the worker counts the clusters go through, from 1; nil
	// means 2, 1, 2, 1.
	Sizes []int64
	// EtcdNodes of each cluster; zero means 3.
	EtcdNodes int64
}

func (o ResizeOptions) withDefaults() ResizeOptions {
	o.JobTime = positiveOr(o.JobTime, 2*time.Second)
	o.APILatency = positiveOr(o.APILatency, 20*time.Millisecond)
	if len(o.Sizes) == 0 {
		o.Sizes = []int64{2, 1, 2, 1}
	}
	if o.EtcdNodes <= 0 {
		o.EtcdNodes = 3
	}
	return o
}

// ResizeSample is one size change: its wall time and the CloudStack calls
// it made, by command.
type ResizeSample struct {
	Wall  time.Duration
	Calls map[string]int64
}

func (s ResizeSample) total() int64 {
	var n int64
	for _, c := range s.Calls {
		n += c
	}
	return n
}

// ruleJobs counts the calls that create or delete a network rule.
func (s ResizeSample) ruleJobs() int64 {
	var n int64
	for cmd, c := range s.Calls {
		if strings.HasSuffix(cmd, "FirewallRule") || strings.HasSuffix(cmd, "PortForwardingRule") {
			if strings.HasPrefix(cmd, "create") || strings.HasPrefix(cmd, "delete") || strings.HasPrefix(cmd, "update") {
				n += c
			}
		}
	}
	return n
}

// ResizeResult is the outcome of RunResize.
type ResizeResult struct {
	Options ResizeOptions
	// Apply is each size change applied by the provider's engine, as
	// ApplyResourceChange runs it (clusterops.Engine.Update).
	Apply []ResizeSample
	// Plan is, for each size change, the reads of the rest of a
	// `terraform apply`: the refresh (Observe) and the plan-time pre-flight
	// (CheckScale), which Terraform runs at plan and again at apply.
	Plan []ResizeSample
	// Raw is each same size change applied with cloudstack-go alone, as
	// the official CloudStack provider applies it: ScaleKubernetesCluster,
	// which waits for the job itself, then the cluster read back.
	Raw []ResizeSample
	// RawRefresh is, for each size change, the official provider's
	// refresh before it: GetKubernetesClusterByID.
	RawRefresh []ResizeSample
	// Hardening is the first apply on a cluster in CKS's own rule layout.
	Hardening ResizeSample
}

// RunResize creates two identical clusters (one control node, EtcdNodes
// etcd nodes, one worker) in CKS's own layout, hardens the first with the
// provider's engine and times it, then changes both clusters' sizes in
// turn, one size change at a time so that the simulator's call counts
// belong to one client: the first through the engine, the second with
// cloudstack-go alone. Every job takes JobTime.
func RunResize(ctx context.Context, opts ResizeOptions) (ResizeResult, error) {
	opts = opts.withDefaults()
	res := ResizeResult{Options: opts}
	launched, err := simtest.Launch(simtest.WithListOrder(simulator.ListOrderReal))
	if err != nil {
		return res, err
	}
	defer launched.Close()
	r, err := newResizeRun(ctx, &simEnv{launched}, opts.EtcdNodes)
	if err != nil {
		return res, err
	}
	sim := launched.Sim
	sim.SetJobDuration(opts.JobTime)
	sim.SetCommandLatency("", opts.APILatency)
	res.Hardening, err = measure(sim, func() error {
		_, err := r.engine.Update(ctx, r.ours, clusterops.UpdateRequest{Intent: r.in})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("hardening: %w", err)
	}
	for _, size := range opts.Sizes {
		if err := r.resize(ctx, size, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// resizeRun is the two clusters of RunResize and the clients that change
// them.
type resizeRun struct {
	sim       *simulator.Simulator
	api       cloudstack.API
	engine    *clusterops.Engine
	cs        *csgo.CloudStackClient
	in        clusterops.Intent
	ours, raw string
}

// newResizeRun creates the two clusters in CKS's own layout and hardens the
// second, untimed: on CKS's own layout its second scale would trip
// apache/cloudstack#14159.
func newResizeRun(ctx context.Context, env *simEnv, etcd int64) (*resizeRun, error) {
	info, api := env.Info, env.API
	r := &resizeRun{sim: env.Sim, api: api, engine: clusterops.New(api, clusterops.Options{}),
		cs: csgo.NewAsyncClient(info.APIURL, info.APIKey, info.SecretKey, false)}
	var err error
	if r.ours, err = env.createCluster(ctx, clusterSpec{name: "provider", size: 1, etcd: etcd}); err != nil {
		return nil, err
	}
	if r.raw, err = env.createCluster(ctx, clusterSpec{name: "raw", size: 1, etcd: etcd}); err != nil {
		return nil, err
	}
	c, err := api.GetKubernetesCluster(ctx, r.ours)
	if err != nil {
		return nil, err
	}
	if c.WorkerOfferingID != "" || c.ControlOfferingID != "" {
		// The size changes must be measured as a quick-start cluster has
		// them: its first scale makes CloudStack record the worker offering.
		return nil, fmt.Errorf("cluster %s was created with node offerings (worker %q, control %q)", c.ID, c.WorkerOfferingID, c.ControlOfferingID)
	}
	if r.in.Network, err = clusterops.NetworkKindOf(ctx, api, c); err != nil {
		return nil, err
	}
	if _, err := r.engine.Update(ctx, r.raw, clusterops.UpdateRequest{Intent: r.in}); err != nil {
		return nil, fmt.Errorf("hardening: %w", err)
	}
	return r, nil
}

// resize changes both clusters to size, one after the other, and records
// the provider's plan reads, its apply, and cloudstack-go's change.
func (r *resizeRun) resize(ctx context.Context, size int64, res *ResizeResult) error {
	var applyEngine *clusterops.Engine
	plan, err := measure(r.sim, func() error {
		var err error
		applyEngine, err = r.planReads(ctx, size)
		return err
	})
	if err != nil {
		return fmt.Errorf("plan of size %d: %w", size, err)
	}
	apply, err := measure(r.sim, func() error {
		_, err := applyEngine.Update(ctx, r.ours, clusterops.UpdateRequest{Intent: r.in, Size: &size})
		return err
	})
	if err != nil {
		return fmt.Errorf("apply of size %d: %w", size, err)
	}
	refresh, err := measure(r.sim, func() error {
		_, _, err := r.cs.Kubernetes.GetKubernetesClusterByID(r.raw, csgo.WithProject(""))
		return err
	})
	if err != nil {
		return fmt.Errorf("cloudstack-go refresh before the scale to %d: %w", size, err)
	}
	direct, err := measure(r.sim, func() error {
		p := r.cs.Kubernetes.NewScaleKubernetesClusterParams(r.raw)
		p.SetSize(size)
		if _, err := r.cs.Kubernetes.ScaleKubernetesCluster(p); err != nil {
			return err
		}
		_, _, err := r.cs.Kubernetes.GetKubernetesClusterByID(r.raw)
		return err
	})
	if err != nil {
		return fmt.Errorf("cloudstack-go scale to %d: %w", size, err)
	}
	res.Plan = append(res.Plan, plan)
	res.Apply = append(res.Apply, apply)
	res.Raw = append(res.Raw, direct)
	res.RawRefresh = append(res.RawRefresh, refresh)
	return nil
}

// planReads are the reads Terraform has the provider make before the
// apply, each walk in its own provider process: the plan's refresh and its
// pre-flight of the scale, then, in the apply's process, the pre-flight
// again (Terraform plans each change again before it applies it). Both
// read through a new sharedreads layer with a Shared context, as the
// provider's Read and ModifyPlan do. It returns the apply process's engine,
// whose Update reads fresh.
func (r *resizeRun) planReads(ctx context.Context, size int64) (*clusterops.Engine, error) {
	shared := sharedreads.Shared(ctx)
	planProcess := clusterops.New(sharedreads.New(r.api, sharedreads.Options{}), clusterops.Options{})
	if _, err := planProcess.Observe(shared, r.ours, r.in); err != nil {
		return nil, err
	}
	applyProcess := clusterops.New(sharedreads.New(r.api, sharedreads.Options{}), clusterops.Options{})
	for _, e := range []*clusterops.Engine{planProcess, applyProcess} {
		check, err := e.CheckScale(shared, r.ours, size, r.in)
		if err != nil {
			return nil, err
		}
		if err := check.Err(); err != nil {
			return nil, err
		}
	}
	return applyProcess, nil
}

// measure runs fn alone against the simulator and returns its wall time and
// the calls it made.
func measure(sim *simulator.Simulator, fn func() error) (ResizeSample, error) {
	sim.ResetCallCounts()
	start := time.Now()
	err := fn()
	return ResizeSample{Wall: time.Since(start), Calls: sim.CallCounts()}, err
}

// sumSamples adds each sample of a to the same change's sample of b: the
// parts of one whole operation.
func sumSamples(a, b []ResizeSample) []ResizeSample {
	out := make([]ResizeSample, 0, min(len(a), len(b)))
	for i := range min(len(a), len(b)) {
		calls := maps.Clone(a[i].Calls)
		if calls == nil {
			calls = map[string]int64{}
		}
		for cmd, n := range b[i].Calls {
			calls[cmd] += n
		}
		out = append(out, ResizeSample{Wall: a[i].Wall + b[i].Wall, Calls: calls})
	}
	return out
}

func medianWall(samples []ResizeSample) time.Duration {
	walls := make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		walls = append(walls, s.Wall)
	}
	return median(walls)
}

func medianOf(samples []ResizeSample, f func(ResizeSample) int64) float64 {
	xs := make([]float64, 0, len(samples))
	for _, s := range samples {
		xs = append(xs, float64(f(s)))
	}
	return median(xs)
}

// Figures reports the three targets and, for information, the reads of the
// rest of a `terraform apply` and the one-time hardening.
func (r ResizeResult) Figures() []Figure {
	const group = "Size change"
	wallOurs, wallRaw := medianWall(r.Apply), medianWall(r.Raw)
	callsOurs, callsRaw := medianOf(r.Apply, ResizeSample.total), medianOf(r.Raw, ResizeSample.total)
	rules := medianOf(r.Apply, ResizeSample.ruleJobs)
	plan := medianOf(r.Plan, ResizeSample.total)
	refreshRaw := medianOf(r.RawRefresh, ResizeSample.total)
	wholeOurs, wholeRaw := medianWall(sumSamples(r.Plan, r.Apply)), medianWall(sumSamples(r.RawRefresh, r.Raw))
	wholeRatio := ratio(wholeOurs.Seconds(), wholeRaw.Seconds())
	wallRatio, callsRatio := ratio(wallOurs.Seconds(), wallRaw.Seconds()), ratio(callsOurs, callsRaw)
	return []Figure{
		{Group: group, Name: "apply: median wall time", Value: seconds(wallOurs), Reference: "cloudstack-go " + seconds(wallRaw),
			Ratio: wallRatio, Target: fmt.Sprintf("ratio ≤ %.2f", resizeMaxWallRatio), Verdict: verdictOf(wallRatio <= resizeMaxWallRatio)},
		{Group: group, Name: "apply: rule jobs per size change", Value: fmt.Sprintf("%.0f", rules), Ratio: math.NaN(),
			Target: "= 0", Verdict: verdictOf(rules == 0)},
		{Group: group, Name: "apply: CloudStack calls per size change", Value: fmt.Sprintf("%.0f", callsOurs),
			Reference: fmt.Sprintf("cloudstack-go %.0f", callsRaw), Ratio: callsRatio,
			Target: fmt.Sprintf("ratio ≤ %.2f", resizeMaxCallsRatio), Verdict: verdictOf(callsRatio <= resizeMaxCallsRatio)},
		{Group: group, Name: "refresh and plans: CloudStack calls", Value: fmt.Sprintf("%.0f", plan),
			Reference: fmt.Sprintf("official provider %.0f", refreshRaw), Ratio: ratio(plan, refreshRaw)},
		{Group: group, Name: "whole terraform apply: median wall time", Value: seconds(wholeOurs),
			Reference: "official provider " + seconds(wholeRaw), Ratio: wholeRatio,
			Target: fmt.Sprintf("ratio ≤ %.2f", resizeMaxWholeRatio), Verdict: verdictOf(wholeRatio <= resizeMaxWholeRatio)},
		{Group: group, Name: "whole terraform apply: CloudStack calls", Value: fmt.Sprintf("%.0f", plan+callsOurs),
			Reference: fmt.Sprintf("official provider %.0f", refreshRaw+callsRaw), Ratio: ratio(plan+callsOurs, refreshRaw+callsRaw)},
		{Group: group, Name: "first apply on CKS's layout: rule jobs (once)", Value: fmt.Sprintf("%d", r.Hardening.ruleJobs()),
			Ratio: math.NaN()},
		{Group: group, Name: "first apply on CKS's layout: wall time (once)", Value: seconds(r.Hardening.Wall), Ratio: math.NaN()},
	}
}

// Section is the report's part for the size change benchmark.
func (r ResizeResult) Section() Section {
	o := r.Options
	s := Section{
		Title: "Size change",
		Method: fmt.Sprintf("Two clusters with one control node, %d etcd nodes and one worker on an isolated network, created "+
			"with a service offering alone (no node offering, as the README's quick start), on one "+
			"simulator where every job takes %s and every call %s more. Their sizes go through %s, one change at a time: the "+
			"first cluster's through the provider's engine, as `terraform apply` runs it, the second's with cloudstack-go alone, "+
			"as the official CloudStack provider applies it (ScaleKubernetesCluster, which waits for the job, then the cluster "+
			"read back). \"apply\" is the provider's ApplyResourceChange (clusterops.Engine.Update: the pre-flight reads, the "+
			"scale, its job, the rule check after it); \"refresh and plans\" are the reads Terraform asks for before it: the "+
			"plan's refresh and pre-flight in one provider process, the pre-flight again in the apply's process (Terraform "+
			"plans each change again before it applies it), each process with its own shared reads (sharedreads), as the "+
			"provider's Read and ModifyPlan have them; the apply itself reads fresh. \"whole terraform apply\" is both, "+
			"against the official provider's refresh (GetKubernetesClusterByID), scale and read back: its refresh is one "+
			"read and its plan none. The figures without a target are for information. Medians of %d changes. The first apply on the first cluster, which "+
			"replaces CKS's single-port etcd SSH rules with one range, is measured once before.",
			o.EtcdNodes, o.JobTime, o.APILatency, sizesText(o.Sizes), len(r.Apply)),
		Figures: r.Figures(),
	}
	if len(r.Apply) > 0 {
		s.Notes = append(s.Notes, "Calls of one size change through the provider's apply: "+callsText(r.Apply[0].Calls)+
			"; with cloudstack-go: "+callsText(r.Raw[0].Calls)+".",
			"Job polls (queryAsyncJobResult) of each size change: the provider's "+commandCounts(r.Apply, "queryAsyncJobResult")+
				"; cloudstack-go's "+commandCounts(r.Raw, "queryAsyncJobResult")+" (the last poll of each saw the job done; with every job "+o.JobTime.String()+" long, the count says which poll "+
				"of each schedule was the first to see it).")
	}
	s.Notes = append(s.Notes, missNotes(s.Figures)...)
	return s
}

func sizesText(sizes []int64) string {
	parts := []string{"1"}
	for _, s := range sizes {
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, " → ")
}

// commandCounts lists how many calls of command each sample made, e.g.
// "4, 4, 5, 4".
func commandCounts(samples []ResizeSample, command string) string {
	parts := make([]string, len(samples))
	for i, s := range samples {
		parts[i] = fmt.Sprint(s.Calls[command])
	}
	return strings.Join(parts, ", ")
}

func callsText(calls map[string]int64) string {
	var parts []string
	for _, cmd := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", cmd, calls[cmd]))
	}
	return strings.Join(parts, ", ")
}
