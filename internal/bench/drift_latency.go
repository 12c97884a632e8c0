package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// Latencies injected by the drift benchmarks.
const (
	DefaultAPILatency = 50 * time.Millisecond
	DefaultSSHLatency = 100 * time.Millisecond
)

// driftLatencyMaxRatio is the target: a check takes at most 1.3 times the
// critical-path lower bound.
const driftLatencyMaxRatio = 1.3

// DriftLatencyOptions configure RunDriftLatency.
type DriftLatencyOptions struct {
	// APILatency is added to every CloudStack call; zero means 50 ms.
	APILatency time.Duration
	// SSHLatency is added to every SSH command; zero means 100 ms.
	SSHLatency time.Duration
	// Runs is how many checks are timed; zero means 7.
	Runs int
}

func (o DriftLatencyOptions) withDefaults() DriftLatencyOptions {
	o.APILatency = positiveOr(o.APILatency, DefaultAPILatency)
	o.SSHLatency = positiveOr(o.SSHLatency, DefaultSSHLatency)
	o.Runs = positiveOr(o.Runs, 7)
	return o
}

// View names of the critical path.
const (
	viewLookup   = "cluster lookup (listKubernetesClusters)"
	viewVMs      = "owner's VMs (listVirtualMachines)"
	viewFirewall = "firewall rules (listFirewallRules)"
	viewForwards = "port forwards (listPortForwardingRules)"
	viewNodes    = "nodes over SSH (kubectl get nodes)"
)

// dependentViews are the views that need the cluster lookup, in report order.
var dependentViews = []string{viewVMs, viewFirewall, viewForwards, viewNodes}

// DriftLatencyResult is the outcome of RunDriftLatency.
type DriftLatencyResult struct {
	Options DriftLatencyOptions
	// Checks are the wall times of the timed checks.
	Checks []time.Duration
	// Views are the wall times of each view fetched alone, by view name.
	Views map[string][]time.Duration
	// CloudStackRequests and SSHSessions are what one check cost, as the
	// checker counted them; SimulatorRequests as the simulator counted them.
	CloudStackRequests int
	SSHSessions        int
	SimulatorRequests  int64
}

// RunDriftLatency creates one cluster (a control node and two workers on an
// isolated network) in an in-process simulator, injects the latencies, and
// times full drift checks (nodes over SSH, network rules compared) against
// each view fetched alone, the same way the checker fetches it.
func RunDriftLatency(ctx context.Context, opts DriftLatencyOptions) (DriftLatencyResult, error) {
	opts = opts.withDefaults()
	env, err := startSim(0, 0)
	if err != nil {
		return DriftLatencyResult{}, err
	}
	defer env.close()
	ids, err := env.createClusters(ctx, []clusterSpec{{name: "latency", size: 2}})
	if err != nil {
		return DriftLatencyResult{}, err
	}
	cl, err := env.API.GetKubernetesCluster(ctx, ids[0])
	if err != nil {
		return DriftLatencyResult{}, err
	}
	hostKey := env.Sim.HostKey(cl.ID)
	if hostKey == nil {
		return DriftLatencyResult{}, errors.New("the simulator has no host key for the cluster")
	}
	sshOpts := sshlister.Config{PrivateKey: env.Sim.PrivateKeyPEM(), HostKey: string(ssh.MarshalAuthorizedKey(hostKey))}
	req := driftcheck.Request{ClusterID: cl.ID, Options: fullCheckOptions(sshOpts, 30*time.Second)}
	direct := sshOpts
	direct.Host, direct.Port = cl.IPAddress, 2222
	lister, err := sshlister.New(direct)
	if err != nil {
		return DriftLatencyResult{}, err
	}
	views := map[string]func(context.Context) error{
		viewLookup: func(ctx context.Context) error {
			_, err := env.API.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{ListAll: true})
			return err
		},
		viewVMs: func(ctx context.Context) error {
			_, err := env.API.ListVirtualMachines(ctx, cloudstack.ListVMsParams{
				Ownership: cloudstack.Ownership{Account: cl.Account, DomainID: cl.DomainID}, ListAll: true})
			return err
		},
		viewFirewall: func(ctx context.Context) error {
			_, err := env.API.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: cl.IPAddressID})
			return err
		},
		viewForwards: func(ctx context.Context) error {
			_, err := env.API.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{NetworkID: cl.NetworkID})
			return err
		},
		viewNodes: func(ctx context.Context) error {
			_, err := lister.ListNodes(ctx)
			return err
		},
	}

	env.setLatencies(opts.APILatency, opts.SSHLatency)
	checker := &driftcheck.Checker{API: env.API}
	// One untimed check opens the client's pooled connections.
	if _, _, err := checker.Check(ctx, req); err != nil {
		return DriftLatencyResult{}, fmt.Errorf("warm-up check: %w", err)
	}

	res := DriftLatencyResult{Options: opts, Views: map[string][]time.Duration{}}
	for run := range opts.Runs {
		env.Sim.ResetCallCounts()
		start := time.Now()
		out, st, err := checker.Check(ctx, req)
		elapsed := time.Since(start)
		if err != nil {
			return res, fmt.Errorf("check: %w", err)
		}
		if !out.NodesChecked {
			return res, fmt.Errorf("the check did not list the nodes: %s", out.NodeCheckError)
		}
		res.Checks = append(res.Checks, elapsed)
		if run == 0 {
			res.CloudStackRequests, res.SSHSessions = st.CloudStackRequests(), st.SSHSessions
			for _, n := range env.Sim.CallCounts() {
				res.SimulatorRequests += n
			}
		}
		for _, name := range append([]string{viewLookup}, dependentViews...) {
			start := time.Now()
			if err := views[name](ctx); err != nil {
				return res, fmt.Errorf("%s: %w", name, err)
			}
			res.Views[name] = append(res.Views[name], time.Since(start))
		}
	}
	return res, nil
}

// Bound is the critical-path lower bound from the median view times: the
// lookup, then the slowest dependent view (named by slowest).
func (r DriftLatencyResult) Bound() (bound time.Duration, slowest string) {
	var worst time.Duration
	for _, name := range dependentViews {
		if d := median(r.Views[name]); d > worst {
			worst, slowest = d, name
		}
	}
	return median(r.Views[viewLookup]) + worst, slowest
}

// Figures reports the check against the bound (the target), each view, and
// the check's cost.
func (r DriftLatencyResult) Figures() []Figure {
	const group = "Drift latency"
	check := median(r.Checks)
	bound, slowest := r.Bound()
	x := ratio(check.Seconds(), bound.Seconds())
	figs := []Figure{{
		Group: group, Name: "one check, median wall time",
		Value: seconds(check), Reference: fmt.Sprintf("bound %s (lookup + %s)", seconds(bound), slowest), Ratio: x,
		Target: fmt.Sprintf("ratio ≤ %.2f", driftLatencyMaxRatio), Verdict: verdictOf(x <= driftLatencyMaxRatio),
	}}
	for _, name := range append([]string{viewLookup}, dependentViews...) {
		d := median(r.Views[name])
		figs = append(figs, Figure{Group: group, Name: "alone: " + name, Value: seconds(d),
			Reference: "check " + seconds(check), Ratio: ratio(d.Seconds(), check.Seconds())})
	}
	figs = append(figs,
		Figure{Group: group, Name: "CloudStack requests per check", Value: fmt.Sprint(r.CloudStackRequests),
			Reference: fmt.Sprintf("simulator counted %d", r.SimulatorRequests), Ratio: ratio(float64(r.CloudStackRequests), float64(r.SimulatorRequests))},
		Figure{Group: group, Name: "SSH sessions per check", Value: fmt.Sprint(r.SSHSessions), Ratio: ratio(float64(r.SSHSessions), 1), Reference: "one per cluster"},
	)
	return figs
}

// Section is the drift latency part of the report.
func (r DriftLatencyResult) Section() Section {
	s := Section{
		Title: "Drift latency",
		Method: fmt.Sprintf("One cks_cluster_drift-equivalent check (driftcheck.Checker.Check: nodes over SSH, network rules "+
			"compared) of a cluster with one control node and two workers on an isolated network, with %s added to every "+
			"CloudStack call and %s to every SSH command by the in-process simulator. The lower bound is measured in the same "+
			"run: each view is fetched alone, as the checker fetches it, and the bound is the lookup plus the slowest "+
			"dependent view (medians of %d runs).", r.Options.APILatency, r.Options.SSHLatency, r.Options.Runs),
		Figures: r.Figures(),
	}
	if f := s.Figures[0]; f.Verdict == Miss {
		s.Notes = append(s.Notes, fmt.Sprintf("MISS: the check took %s against a bound of %s (%s). The views after the lookup "+
			"should run concurrently; the difference is time spent outside the critical path.", f.Value, f.Reference, f.RatioText()))
	}
	return s
}
