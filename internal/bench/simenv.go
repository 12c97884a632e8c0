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
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// simEnv is a running simulator with a client for its admin account.
type simEnv struct {
	sim  *simulator.Simulator
	info simulator.Info
	api  *cloudstack.Client
}

// clusterAge puts the simulator's clock back, so the clusters' VMs are past
// the drift grace period when the benchmarks run.
const clusterAge = time.Hour

// startSim starts an in-process simulator whose jobs finish at once. Its
// networks hold at least guestVMs VMs each (0: CloudStack's default /24).
func startSim(maxClusterSize, guestVMs int) (*simEnv, error) {
	prefix, err := guestCIDRPrefixFor(guestVMs)
	if err != nil {
		return nil, err
	}
	sim, err := simulator.New(simulator.Options{
		MaxClusterSize:  maxClusterSize,
		GuestCIDRPrefix: prefix,
		Clock:           func() time.Time { return time.Now().Add(-clusterAge) },
	})
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		_ = sim.Close()
		return nil, fmt.Errorf("simulator: %w", err)
	}
	info := sim.Info()
	api, err := cloudstack.New(cloudstack.Config{APIURL: info.APIURL, APIKey: info.APIKey, SecretKey: info.SecretKey})
	if err != nil {
		_ = sim.Close()
		return nil, err
	}
	return &simEnv{sim: sim, info: info, api: api}, nil
}

func (e *simEnv) close() { _ = e.sim.Close() }

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
	ref, err := e.api.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{
		Name:                spec.name,
		ZoneID:              e.info.ZoneID,
		KubernetesVersionID: e.info.KubernetesVersions["1.33.13"],
		ServiceOfferingID:   e.info.ServiceOfferingID,
		ControlNodes:        1,
		EtcdNodes:           spec.etcd,
		Size:                spec.size,
		Keypair:             e.info.Keypair,
	})
	if err != nil {
		return "", fmt.Errorf("creating cluster %s: %w", spec.name, err)
	}
	if _, err := cloudstack.WaitForJob(ctx, e.api, ref.JobID, cloudstack.WaitOptions{
		Command: "createKubernetesCluster", InitialInterval: 5 * time.Millisecond, MaxInterval: 100 * time.Millisecond,
	}); err != nil {
		return "", fmt.Errorf("creating cluster %s: %w", spec.name, err)
	}
	return ref.ID, nil
}

// setLatencies adds api to every CloudStack call and ssh to every SSH
// command of the simulator.
func (e *simEnv) setLatencies(api, ssh time.Duration) {
	e.sim.SetCommandLatency("", api)
	e.sim.SetSSHLatency(ssh)
}

// fullCheckOptions are the options of the checks the benchmarks time: every
// view, nodes over SSH, the default grace period.
func fullCheckOptions(ssh driftcheck.SSHOptions, nodeTimeout time.Duration) driftcheck.Options {
	return driftcheck.Options{NodeSource: driftcheck.NodeSourceSSH, SSH: ssh, NodeTimeout: nodeTimeout,
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true}
}
