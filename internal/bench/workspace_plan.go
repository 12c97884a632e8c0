package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/sharedreads"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Workspace plan targets: at most one CloudStack call per cluster, and no
// slower than the official provider's read path, in the same run.
const (
	planMaxCallsPerCluster = 1.0
	planMaxWallRatio       = 1.0
)

// WorkspacePlanOptions configure RunWorkspacePlan.
type WorkspacePlanOptions struct {
	// Sizes are the workspace sizes measured, smallest first; nil means
	// 100 and 500.
	Sizes []int
	// APILatency is added to every CloudStack call; zero means 20 ms.
	APILatency time.Duration
	// Parallelism is how many resources Terraform refreshes at once; zero
	// means its default, 10.
	Parallelism int
}

func (o WorkspacePlanOptions) withDefaults() WorkspacePlanOptions {
	if len(o.Sizes) == 0 {
		o.Sizes = []int{100, 500}
	}
	o.APILatency = positiveOr(o.APILatency, 20*time.Millisecond)
	o.Parallelism = positiveOr(o.Parallelism, 10)
	return o
}

// PlanSample is the refresh of one workspace: its wall time, its CloudStack
// calls and the largest heap of this process while it ran.
type PlanSample struct {
	Wall     time.Duration
	Calls    int64
	PeakHeap uint64
}

// PlanPoint is one workspace size, refreshed by both providers.
type PlanPoint struct {
	Clusters int
	Ours     PlanSample
	Official PlanSample
}

// WorkspacePlanResult is the outcome of RunWorkspacePlan.
type WorkspacePlanResult struct {
	Options WorkspacePlanOptions
	Points  []PlanPoint
}

// RunWorkspacePlan creates, for each size, an account's clusters on a new
// simulator (every call APILatency more) and refreshes them all as a
// `terraform plan` of that many resources does, ten at a time: once as cks_cluster's Read does it (clusterops.Engine.Observe in
// a sharedreads.Shared context, through a sharedreads layer made for the
// plan, as a new provider process has it), once as the official
// provider's cloudstack_kubernetes_cluster Read does it (cloudstack-go's
// GetKubernetesClusterByID per cluster).
func RunWorkspacePlan(ctx context.Context, opts WorkspacePlanOptions) (WorkspacePlanResult, error) {
	opts = opts.withDefaults()
	res := WorkspacePlanResult{Options: opts}
	for _, n := range opts.Sizes {
		p, err := planWorkspace(ctx, n, opts)
		if err != nil {
			return res, err
		}
		res.Points = append(res.Points, p)
	}
	return res, nil
}

// planWorkspace creates an account's n clusters on a new simulator and
// refreshes them with both providers.
func planWorkspace(ctx context.Context, n int, opts WorkspacePlanOptions) (PlanPoint, error) {
	p := PlanPoint{Clusters: n}
	// One source NAT address per cluster, 253 to a block.
	env, err := startSimWith(0, 0, func(o *simulator.Options) { o.PublicIPBlocks = n/250 + 1 })
	if err != nil {
		return p, err
	}
	defer env.close()
	specs := make([]clusterSpec, n)
	for i := range specs {
		specs[i] = clusterSpec{name: fmt.Sprintf("ws-%04d", i), size: 1}
	}
	ids, err := env.createClusters(ctx, specs)
	if err != nil {
		return p, err
	}
	env.setLatencies(opts.APILatency, 0)
	// A new provider process for the plan: nothing shared before it.
	engine := clusterops.New(sharedreads.New(env.API, sharedreads.Options{}), clusterops.Options{})
	in := clusterops.Intent{Network: rules.NetworkIsolated} // as the private state holds it
	if p.Ours, err = measurePlan(env, ids, opts.Parallelism, func(id string) error {
		obs, err := engine.Observe(sharedreads.Shared(ctx), id, in)
		if err == nil && obs.RulesErr != nil {
			err = obs.RulesErr
		}
		return err
	}); err != nil {
		return p, fmt.Errorf("cks_cluster refresh of %d clusters: %w", n, err)
	}
	cs := csgo.NewAsyncClient(env.Info.APIURL, env.Info.APIKey, env.Info.SecretKey, false)
	if p.Official, err = measurePlan(env, ids, opts.Parallelism, func(id string) error {
		_, _, err := cs.Kubernetes.GetKubernetesClusterByID(id, csgo.WithProject(""))
		return err
	}); err != nil {
		return p, fmt.Errorf("official refresh of %d clusters: %w", n, err)
	}
	return p, nil
}

// measurePlan reads every cluster with read, parallelism at a time.
func measurePlan(env *simEnv, ids []string, parallelism int, read func(id string) error) (PlanSample, error) {
	env.Sim.ResetCallCounts()
	heap := startHeapSampler(5 * time.Millisecond)
	sem := make(chan struct{}, parallelism)
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	start := time.Now()
	for i, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = read(id)
		})
	}
	wg.Wait()
	s := PlanSample{Wall: time.Since(start), PeakHeap: heap.Stop()}
	for _, n := range env.Sim.CallCounts() {
		s.Calls += n
	}
	return s, errors.Join(errs...)
}

func (s PlanSample) perCluster(n int) float64 { return float64(s.Calls) / float64(n) }

// Figures reports, for the first size, calls per cluster and wall time
// against the official provider's, with the peak heap for information, and
// the slope from the first size to the last.
func (r WorkspacePlanResult) Figures() []Figure {
	if len(r.Points) == 0 {
		return nil
	}
	const group = "Workspace plan"
	first := r.Points[0]
	n := first.Clusters
	perCluster := first.Ours.perCluster(n)
	wallRatio := ratio(first.Ours.Wall.Seconds(), first.Official.Wall.Seconds())
	figs := []Figure{
		{Group: group, Name: fmt.Sprintf("%d clusters: CloudStack calls per cluster", n), Value: fmt.Sprintf("%.2f", perCluster),
			Reference: fmt.Sprintf("official %.2f", first.Official.perCluster(n)), Ratio: ratio(perCluster, first.Official.perCluster(n)),
			Target: fmt.Sprintf("≤ %.1f", planMaxCallsPerCluster), Verdict: verdictOf(perCluster <= planMaxCallsPerCluster)},
		{Group: group, Name: fmt.Sprintf("%d clusters: wall time", n), Value: seconds(first.Ours.Wall),
			Reference: "official " + seconds(first.Official.Wall), Ratio: wallRatio,
			Target: fmt.Sprintf("ratio ≤ %.2f", planMaxWallRatio), Verdict: verdictOf(wallRatio <= planMaxWallRatio)},
		{Group: group, Name: fmt.Sprintf("%d clusters: peak heap", n), Value: mebibytes(first.Ours.PeakHeap),
			Reference: "official " + mebibytes(first.Official.PeakHeap), Ratio: ratio(float64(first.Ours.PeakHeap), float64(first.Official.PeakHeap))},
	}
	if len(r.Points) > 1 {
		last := r.Points[len(r.Points)-1]
		figs = append(figs, r.slopeFigures(group, first, last)...)
	}
	return figs
}

// slopeFigures report the largest workspace and the growth from first to
// last: wall time per added cluster, and the ratio of the growth to
// linear.
func (r WorkspacePlanResult) slopeFigures(group string, first, last PlanPoint) []Figure {
	added := float64(last.Clusters - first.Clusters)
	slope := (last.Ours.Wall - first.Ours.Wall).Seconds() / added
	officialSlope := (last.Official.Wall - first.Official.Wall).Seconds() / added
	growth := perClusterGrowth(first.Ours, last.Ours, first.Clusters, last.Clusters)
	officialGrowth := perClusterGrowth(first.Official, last.Official, first.Clusters, last.Clusters)
	return []Figure{
		{Group: group, Name: fmt.Sprintf("%d clusters: CloudStack calls per cluster", last.Clusters),
			Value: fmt.Sprintf("%.2f", last.Ours.perCluster(last.Clusters)), Reference: fmt.Sprintf("official %.2f", last.Official.perCluster(last.Clusters)),
			Ratio:  ratio(last.Ours.perCluster(last.Clusters), last.Official.perCluster(last.Clusters)),
			Target: fmt.Sprintf("≤ %.1f", planMaxCallsPerCluster), Verdict: verdictOf(last.Ours.perCluster(last.Clusters) <= planMaxCallsPerCluster)},
		{Group: group, Name: fmt.Sprintf("%d clusters: wall time", last.Clusters), Value: seconds(last.Ours.Wall),
			Reference: "official " + seconds(last.Official.Wall), Ratio: ratio(last.Ours.Wall.Seconds(), last.Official.Wall.Seconds())},
		{Group: group, Name: fmt.Sprintf("slope %d → %d: ms per added cluster", first.Clusters, last.Clusters),
			Value: fmt.Sprintf("%.2f ms", slope*1000), Reference: fmt.Sprintf("official %.2f ms", officialSlope*1000),
			Ratio: ratio(slope, officialSlope)},
		{Group: group, Name: fmt.Sprintf("time per cluster at %d over at %d (1.00 is linear)", last.Clusters, first.Clusters),
			Value: fmt.Sprintf("%.2f", growth), Reference: fmt.Sprintf("official %.2f", officialGrowth), Ratio: ratio(growth, officialGrowth),
			Target: "≤ official's", Verdict: verdictOf(growth <= officialGrowth)},
	}
}

// perClusterGrowth is the wall time per cluster of the larger workspace
// over the smaller's: 1 for a refresh that grows linearly.
func perClusterGrowth(small, large PlanSample, smallN, largeN int) float64 {
	return ratio(large.Wall.Seconds()/float64(largeN), small.Wall.Seconds()/float64(smallN))
}

// Section is the report's part for the workspace plan benchmark.
func (r WorkspacePlanResult) Section() Section {
	o := r.Options
	s := Section{
		Title: "Workspace plan",
		Method: fmt.Sprintf("For each workspace size (%s), a new simulator holds an account's clusters (one control node, one worker, each "+
			"on its own isolated network, in CKS's rule layout); every call takes %s more. A `terraform plan` of a workspace of that many imported clusters "+
			"refreshes every resource, %d at a time, in one provider process. \"Ours\" is cks_cluster's Read: "+
			"clusterops.Engine.Observe (the cluster, its firewall rules and its port forwards) in a sharedreads.Shared context, "+
			"through a sharedreads layer new for each plan, as a new provider process has it. \"Official\" is the official "+
			"provider's cloudstack_kubernetes_cluster Read, reproduced from its source because its module is not on the Go "+
			"proxy: cloudstack-go's GetKubernetesClusterByID per cluster, with its project (none here). Both read the same "+
			"clusters in the same run; the Terraform CLI's own work, the same for both, is left out. The peak heap is this "+
			"process's, the simulator included (it runs in the same process for the call counts), for information.",
			sizesList(o.Sizes), o.APILatency, o.Parallelism),
		Figures: r.Figures(),
	}
	for _, p := range r.Points {
		s.Notes = append(s.Notes, fmt.Sprintf("%d clusters: ours %d calls in %s, official %d calls in %s.", p.Clusters,
			p.Ours.Calls, seconds(p.Ours.Wall), p.Official.Calls, seconds(p.Official.Wall)))
	}
	s.Notes = append(s.Notes, missNotes(s.Figures)...)
	return s
}

func sizesList(sizes []int) string {
	out := ""
	for i, n := range sizes {
		if i > 0 {
			out += " and "
		}
		out += fmt.Sprint(n)
	}
	if len(sizes) > 1 {
		return "up to " + fmt.Sprint(sizes[len(sizes)-1]) + " (" + out + " measured)"
	}
	return out
}
