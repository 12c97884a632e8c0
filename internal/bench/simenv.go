package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// simEnv is a running simulator with a client for its admin account.
type simEnv struct{ *simtest.Env }

// clusterAge puts the simulator's clock back, so the clusters' VMs are past
// the drift grace period when the benchmarks run.
const clusterAge = time.Hour

// startSim starts an in-process simulator whose jobs finish at once, listing
// in the management server's own order. Its networks hold at least guestVMs
// VMs each (0: CloudStack's default /24).
func startSim(maxClusterSize, guestVMs int) (*simEnv, error) {
	return startSimWith(maxClusterSize, guestVMs)
}

// startSimWith is startSim with more simulator options.
func startSimWith(maxClusterSize, guestVMs int, more ...func(*simulator.Options)) (*simEnv, error) {
	prefix, err := guestCIDRPrefixFor(guestVMs)
	if err != nil {
		return nil, err
	}
	env, err := simtest.Launch(simtest.WithClusterAge(clusterAge), simtest.WithListOrder(simulator.ListOrderReal),
		simtest.WithOptions(func(o *simulator.Options) {
			o.MaxClusterSize, o.GuestCIDRPrefix = maxClusterSize, prefix
			for _, f := range more {
				f(o)
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	return &simEnv{env}, nil
}

func (e *simEnv) close() { e.Close() }

// guestCIDRPrefixFor is the longest guest CIDR prefix, at most the default
// /24, whose network has room for vms VMs (all addresses but the network,
// gateway and broadcast ones). The simulator lays out networks up to /16.
func guestCIDRPrefixFor(vms int) (int, error) {
	for bits := 24; bits >= 16; bits-- {
		if vms <= 1<<(32-bits)-3 {
			return bits, nil
		}
	}
	return 0, fmt.Errorf("%d VMs do not fit in one simulated guest network (/16 at most)", vms)
}

// clusterSpec is one cluster to create: size workers, etcd etcd nodes and
// one control node on an auto-created isolated network.
type clusterSpec struct {
	name string
	size int64
	etcd int64
}

// createClusters creates the clusters concurrently (at most 8 jobs at a
// time) and waits until they run; it returns their ids in spec order.
func (e *simEnv) createClusters(ctx context.Context, specs []clusterSpec) ([]string, error) {
	ids := make([]string, len(specs))
	errs := make([]error, len(specs))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ids[i], errs[i] = e.createCluster(ctx, spec)
		})
	}
	wg.Wait()
	return ids, errors.Join(errs...)
}

func (e *simEnv) createCluster(ctx context.Context, spec clusterSpec) (string, error) {
	id, err := e.CreateCluster(ctx, cloudstack.CreateClusterParams{Name: spec.name, EtcdNodes: spec.etcd, Size: spec.size})
	if err != nil {
		return "", fmt.Errorf("creating cluster %s: %w", spec.name, err)
	}
	return id, nil
}

// setLatencies adds api to every CloudStack call and ssh to every SSH
// command of the simulator.
func (e *simEnv) setLatencies(api, ssh time.Duration) {
	e.Sim.SetCommandLatency("", api)
	e.Sim.SetSSHLatency(ssh)
}

// fullCheckOptions are the options of the checks the benchmarks time: every
// view, nodes over SSH, the default grace period.
func fullCheckOptions(ssh sshlister.Config, nodeTimeout time.Duration) driftcheck.Options {
	return driftcheck.Options{NodeSource: driftcheck.NodeSourceSSH, SSH: ssh, NodeTimeout: nodeTimeout,
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true}
}
