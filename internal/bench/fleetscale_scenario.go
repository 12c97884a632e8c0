package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// FleetScaleChildArg is the first argument that makes cksbench serve the
// fleet scale scenario instead of running benchmarks.
const FleetScaleChildArg = "-serve-fleet-scale-scenario"

// Fleet scale defaults: the fleet of the target.
const (
	DefaultFleetScaleClusters   = 1000
	DefaultFleetScaleAccountVMs = 20000
	// fleetScaleDrifted clusters get a stopped kubelet, so that the checks
	// walk their finding paths.
	fleetScaleDrifted = 10
)

// FleetScaleScenario is a running simulator holding a large fleet in one
// account, as the measuring side needs it.
type FleetScaleScenario struct {
	SimAccess
	// KnownHosts pins control node 1 of every cluster.
	KnownHosts string `json:"known_hosts"`
	Clusters   int    `json:"clusters"`
	AccountVMs int    `json:"account_vms"`
	// Drifted is how many clusters have a stopped kubelet.
	Drifted int `json:"drifted"`
	// Setup is how long building the scenario took.
	Setup time.Duration `json:"setup"`
}

// FleetScaleSource starts the scenario with the latencies injected once it
// is built; stop ends it.
type FleetScaleSource func(ctx context.Context, clusters, accountVMs int, api, ssh time.Duration) (FleetScaleScenario, func(), error)

// InProcessFleetScale builds the scenario in this process, for tests: the
// simulator's work then counts in this process's memory.
func InProcessFleetScale(ctx context.Context, clusters, accountVMs int, api, ssh time.Duration) (FleetScaleScenario, func(), error) {
	env, sc, err := buildFleetScaleScenario(ctx, clusters, accountVMs)
	if err != nil {
		return FleetScaleScenario{}, nil, err
	}
	env.setLatencies(api, ssh)
	return sc, env.close, nil
}

// ChildProcessFleetScale runs argv (cksbench with FleetScaleChildArg, see
// ServeFleetScaleScenario), so that only the checking side counts in this
// process's memory.
func ChildProcessFleetScale(argv ...string) FleetScaleSource {
	return func(ctx context.Context, clusters, accountVMs int, api, ssh time.Duration) (FleetScaleScenario, func(), error) {
		var sc FleetScaleScenario
		stop, err := startChildScenario(ctx, argv, &sc, strconv.Itoa(clusters), strconv.Itoa(accountVMs), api.String(), ssh.String())
		return sc, stop, err
	}
}

// ServeFleetScaleScenario builds the scenario from args (clusters, account
// VMs, API latency, SSH latency), injects the latencies, writes the
// scenario as one JSON line to out and serves until in reaches EOF.
func ServeFleetScaleScenario(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	if len(args) != 4 {
		return fmt.Errorf("want 4 arguments (clusters, account VMs, API latency, SSH latency), got %d", len(args))
	}
	clusters, err1 := strconv.Atoi(args[0])
	accountVMs, err2 := strconv.Atoi(args[1])
	api, err3 := time.ParseDuration(args[2])
	ssh, err4 := time.ParseDuration(args[3])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return err
	}
	env, sc, err := buildFleetScaleScenario(ctx, clusters, accountVMs)
	if err != nil {
		return err
	}
	defer env.close()
	env.setLatencies(api, ssh)
	return serveScenario(sc, in, out)
}

// buildFleetScaleScenario creates clusters of one control node and one
// worker, each on its own isolated network, in the admin account, then
// VMs that are no nodes (other applications, spread over the clusters'
// networks) until the account holds accountVMs VMs, and stops a worker's
// kubelet in fleetScaleDrifted clusters.
func buildFleetScaleScenario(ctx context.Context, clusters, accountVMs int) (*simEnv, FleetScaleScenario, error) {
	start := time.Now()
	const nodeVMs = 2
	if clusters < fleetScaleDrifted || accountVMs < clusters*nodeVMs {
		return nil, FleetScaleScenario{}, fmt.Errorf("%d account VMs cannot hold %d clusters of %d VMs (at least %d clusters)",
			accountVMs, clusters, nodeVMs, fleetScaleDrifted)
	}
	apps := accountVMs - clusters*nodeVMs
	perNetwork := nodeVMs + (apps+clusters-1)/clusters
	// One source NAT address per cluster, 253 to a block.
	env, err := startSimWith(0, perNetwork, func(o *simulator.Options) { o.PublicIPBlocks = clusters/250 + 1 })
	if err != nil {
		return nil, FleetScaleScenario{}, err
	}
	fail := func(err error) (*simEnv, FleetScaleScenario, error) {
		env.close()
		return nil, FleetScaleScenario{}, err
	}
	specs := make([]clusterSpec, clusters)
	for i := range specs {
		specs[i] = clusterSpec{name: fmt.Sprintf("fleet-%04d", i), size: 1}
	}
	ids, err := env.createClusters(ctx, specs)
	if err != nil {
		return fail(err)
	}
	old := time.Now().Add(-2 * clusterAge)
	others := make([]simulator.StrayVM, apps)
	for i := range others {
		others[i] = simulator.StrayVM{ClusterID: ids[i%clusters], Name: fmt.Sprintf("app-%05d", i), Created: old}
	}
	if _, err := env.Sim.CreateStrayVMs(others); err != nil {
		return fail(err)
	}
	for _, id := range ids[:fleetScaleDrifted] {
		cl, err := env.API.GetKubernetesCluster(ctx, id)
		if err != nil {
			return fail(err)
		}
		worker := ""
		for _, vm := range cl.VirtualMachines {
			if strings.Contains(vm.Name, "-node-") {
				worker = vm.ID
			}
		}
		if err := env.Sim.StopKubelet(worker, true); err != nil {
			return fail(fmt.Errorf("cluster %s: %w", cl.Name, err))
		}
	}
	knownHosts, err := fleetKnownHosts(ctx, env, ids)
	if err != nil {
		return fail(err)
	}
	return env, FleetScaleScenario{
		SimAccess: simAccess(env), KnownHosts: knownHosts,
		Clusters: clusters, AccountVMs: accountVMs, Drifted: fleetScaleDrifted, Setup: time.Since(start),
	}, nil
}
