package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// fleetMaxFlatGrowth is our reading of "close to flat up to the
// concurrency bound": a fleet no larger than the bound takes at most 1.3
// times one cluster's check. Larger fleets need more waves of concurrent
// checks; their growth is reported, not judged.
const fleetMaxFlatGrowth = 1.3

// DefaultFleetSizes are the fleet sizes measured: one cluster, ten and a
// hundred.
var DefaultFleetSizes = []int{1, 10, 100}

// FleetOptions configure RunFleetDrift.
type FleetOptions struct {
	// Sizes are the fleet sizes; nil means DefaultFleetSizes plus the
	// concurrency bound itself, where growth should still be flat.
	Sizes []int
	// Concurrency is CheckMany's bound; zero means driftcheck.DefaultConcurrency.
	Concurrency int
	// APILatency and SSHLatency are injected as for RunDriftLatency.
	APILatency time.Duration
	SSHLatency time.Duration
	// Runs is how many times each size is checked; zero means 3.
	Runs int
}

func (o FleetOptions) withDefaults() FleetOptions {
	o.Concurrency = positiveOr(o.Concurrency, driftcheck.DefaultConcurrency)
	if len(o.Sizes) == 0 {
		o.Sizes = append(slices.Clone(DefaultFleetSizes), o.Concurrency)
	}
	o.Sizes = slices.Clone(o.Sizes)
	slices.Sort(o.Sizes)
	o.Sizes = slices.Compact(o.Sizes)
	o.APILatency = positiveOr(o.APILatency, DefaultAPILatency)
	o.SSHLatency = positiveOr(o.SSHLatency, DefaultSSHLatency)
	o.Runs = positiveOr(o.Runs, 3)
	return o
}

// FleetRun is one fleet size's measurements.
type FleetRun struct {
	Clusters int
	// Walls are the wall times of each CheckMany.
	Walls []time.Duration
	// CloudStackRequests and SSHSessions are what one CheckMany cost.
	CloudStackRequests int
	SSHSessions        int
}

// FleetResult is the outcome of RunFleetDrift.
type FleetResult struct {
	Options FleetOptions
	Runs    []FleetRun
	// SingleCheckRequests is what driftcheck.Check costs for one cluster of
	// the same simulator: the per-cluster reference.
	SingleCheckRequests int
	// Setup is how long creating the clusters took.
	Setup time.Duration
}

// RunFleetDrift creates the largest fleet (clusters of one control node
// and one worker, each on its own isolated network) in one in-process
// simulator, then, with the latencies injected, checks the first N
// clusters with CheckMany (selected by a name regex) for each size.
func RunFleetDrift(ctx context.Context, opts FleetOptions) (FleetResult, error) {
	opts = opts.withDefaults()
	largest := opts.Sizes[len(opts.Sizes)-1]
	env, err := startSim(0, 0)
	if err != nil {
		return FleetResult{}, err
	}
	defer env.close()

	setupStart := time.Now()
	specs := make([]clusterSpec, largest)
	names := make([]string, largest)
	for i := range specs {
		names[i] = fmt.Sprintf("fleet-%03d", i)
		specs[i] = clusterSpec{name: names[i], size: 1}
	}
	ids, err := env.createClusters(ctx, specs)
	if err != nil {
		return FleetResult{}, err
	}
	knownHosts, err := fleetKnownHosts(ctx, env, ids)
	if err != nil {
		return FleetResult{}, err
	}
	res := FleetResult{Options: opts, Setup: time.Since(setupStart)}

	checkOpts := fullCheckOptions(sshlister.Config{PrivateKey: env.Sim.PrivateKeyPEM(), KnownHosts: knownHosts}, 30*time.Second)
	env.setLatencies(opts.APILatency, opts.SSHLatency)
	checker := &driftcheck.Checker{API: env.API}

	_, single, err := checker.Check(ctx, driftcheck.Request{ClusterID: ids[0], Options: checkOpts})
	if err != nil {
		return res, fmt.Errorf("single check: %w", err)
	}
	res.SingleCheckRequests = single.CloudStackRequests()

	for _, n := range opts.Sizes {
		filter := driftcheck.Filter{NameRegex: namesRegex(names[:n])}
		run := FleetRun{Clusters: n}
		for i := range opts.Runs {
			start := time.Now()
			fleet, st, err := checker.CheckMany(ctx, filter, checkOpts, opts.Concurrency)
			elapsed := time.Since(start)
			if err != nil {
				return res, fmt.Errorf("fleet of %d: %w", n, err)
			}
			if err := fleetComplete(fleet, n); err != nil {
				return res, fmt.Errorf("fleet of %d: %w", n, err)
			}
			run.Walls = append(run.Walls, elapsed)
			if i == 0 {
				run.CloudStackRequests, run.SSHSessions = st.CloudStackRequests(), st.SSHSessions
			}
		}
		res.Runs = append(res.Runs, run)
	}
	return res, nil
}

// fleetKnownHosts pins every cluster's control node host key at ip:2222.
func fleetKnownHosts(ctx context.Context, env *simEnv, ids []string) (string, error) {
	clusters, err := env.API.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{ListAll: true})
	if err != nil {
		return "", err
	}
	byID := map[string]cloudstack.Cluster{}
	for _, c := range clusters {
		byID[c.ID] = c
	}
	var b strings.Builder
	for _, id := range ids {
		c, ok := byID[id]
		key := env.Sim.HostKey(id)
		if !ok || c.IPAddress == "" || key == nil {
			return "", fmt.Errorf("cluster %s has no address or host key", id)
		}
		b.WriteString(knownhosts.Line([]string{net.JoinHostPort(c.IPAddress, strconv.Itoa(2222))}, key))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// namesRegex matches exactly the given names.
func namesRegex(names []string) *regexp.Regexp {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile("^(?:" + strings.Join(quoted, "|") + ")$")
}

// fleetComplete checks that all n clusters were checked, nodes included:
// a benchmark of failing checks would measure the wrong thing.
func fleetComplete(f driftcheck.Fleet, n int) error {
	if len(f.Clusters) != n {
		return fmt.Errorf("%d clusters matched, want %d", len(f.Clusters), n)
	}
	var errs []error
	for _, c := range f.Clusters {
		switch {
		case c.Err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", c.Name, c.Err))
		case !c.Result.NodesChecked:
			errs = append(errs, fmt.Errorf("%s: nodes not checked: %s", c.Name, c.Result.NodeCheckError))
		}
	}
	return errors.Join(errs...)
}

// waves is how many rounds of concurrently checked clusters a fleet needs.
func waves(clusters, concurrency int) int {
	return (clusters + concurrency - 1) / concurrency
}

// Figures reports, per fleet size, the wall time growth against one
// cluster and the CloudStack requests per cluster against a single check.
func (r FleetResult) Figures() []Figure {
	const group = "Fleet drift"
	var base time.Duration
	for _, run := range r.Runs {
		if run.Clusters == 1 {
			base = median(run.Walls)
		}
	}
	var figs []Figure
	for _, run := range r.Runs {
		wall := median(run.Walls)
		w := waves(run.Clusters, r.Options.Concurrency)
		growth := Figure{Group: group, Name: clustersLabel(run.Clusters) + ": wall time", Value: seconds(wall),
			Reference: fmt.Sprintf("1 cluster %s; %d wave(s)", seconds(base), w), Ratio: ratio(wall.Seconds(), base.Seconds())}
		if run.Clusters > 1 && run.Clusters <= r.Options.Concurrency && base > 0 {
			growth.Target = fmt.Sprintf("ratio ≤ %.2f (flat up to the bound)", fleetMaxFlatGrowth)
			growth.Verdict = verdictOf(growth.Ratio <= fleetMaxFlatGrowth)
		}
		perCluster := float64(run.CloudStackRequests) / float64(run.Clusters)
		calls := Figure{Group: group, Name: clustersLabel(run.Clusters) + ": CloudStack requests per cluster",
			Value: fmt.Sprintf("%.2f", perCluster), Reference: fmt.Sprintf("single check %d", r.SingleCheckRequests),
			Ratio: ratio(perCluster, float64(r.SingleCheckRequests))}
		if run.Clusters > 1 {
			calls.Target = "≤ single check"
			calls.Verdict = verdictOf(perCluster <= float64(r.SingleCheckRequests))
		}
		sessions := Figure{Group: group, Name: clustersLabel(run.Clusters) + ": SSH sessions per cluster",
			Value: fmt.Sprintf("%.2f", float64(run.SSHSessions)/float64(run.Clusters)), Reference: "one per cluster",
			Ratio: ratio(float64(run.SSHSessions), float64(run.Clusters))}
		figs = append(figs, growth, calls, sessions)
	}
	return figs
}

// clustersLabel is "1 cluster" or "N clusters".
func clustersLabel(n int) string {
	if n == 1 {
		return "1 cluster"
	}
	return fmt.Sprintf("%d clusters", n)
}

// Section is the fleet part of the report.
func (r FleetResult) Section() Section {
	sizes := make([]string, len(r.Options.Sizes))
	for i, n := range r.Options.Sizes {
		sizes[i] = strconv.Itoa(n)
	}
	s := Section{
		Title: "Fleet drift",
		Method: fmt.Sprintf("cks_clusters_drift-equivalent checks (driftcheck.Checker.CheckMany, nodes over SSH with a known_hosts "+
			"entry per cluster, rules compared, concurrency %d) over %s clusters of one in-process simulator, with %s on every "+
			"CloudStack call and %s on every SSH command. The %d clusters (one control node and one worker each, each on its own "+
			"isolated network) were created once, in %s; each size selects the first N by a name regex, so every size pays for "+
			"listing all of them. Wall times are medians of %d runs. Up to the concurrency bound the wall time should stay flat "+
			"(target ≤ %.1f× one cluster); beyond it a fleet of N clusters needs ceil(N/%d) waves of concurrent checks, so its "+
			"growth is reported without a target.",
			r.Options.Concurrency, strings.Join(sizes, ", "), r.Options.APILatency, r.Options.SSHLatency,
			r.Options.Sizes[len(r.Options.Sizes)-1], r.Setup.Round(100*time.Millisecond), r.Options.Runs, fleetMaxFlatGrowth,
			r.Options.Concurrency),
		Figures: r.Figures(),
	}
	for _, f := range s.Figures {
		if f.Verdict == Miss {
			s.Notes = append(s.Notes, fmt.Sprintf("MISS %q: %s against %s (%s, target %s).", f.Name, f.Value, f.Reference, f.RatioText(), f.Target))
		}
	}
	return s
}
