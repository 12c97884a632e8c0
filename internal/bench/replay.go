package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// replayAPI records the answers of the read calls a drift check makes and,
// once replaying, serves them from memory. A check on it then measures the
// comparison (conversion, indexing, drift.Compare) without any I/O or
// decoding. It overrides every call of driftcheck.API.
type replayAPI struct {
	driftcheck.API

	mu        sync.Mutex
	replaying bool
	answers   map[string]any
}

func newReplayAPI(live driftcheck.API) *replayAPI {
	return &replayAPI{API: live, answers: map[string]any{}}
}

// replay switches to serving the recorded answers.
func (r *replayAPI) replay() {
	r.mu.Lock()
	r.replaying = true
	r.mu.Unlock()
}

// memo returns the recorded answer for key, or fetches and records it. The
// recorded slices are shared, not copied: the checker only reads them.
func memo[T any](r *replayAPI, key string, fetch func() (T, error)) (T, error) {
	r.mu.Lock()
	replaying := r.replaying
	v, ok := r.answers[key]
	r.mu.Unlock()
	if replaying {
		if !ok {
			var zero T
			return zero, fmt.Errorf("replay: no recorded answer for %s", key)
		}
		t, _ := v.(T) // recorded under the same key, so of type T
		return t, nil
	}
	t, err := fetch()
	if err == nil {
		r.mu.Lock()
		r.answers[key] = t
		r.mu.Unlock()
	}
	return t, err
}

// ListKubernetesClusters implements driftcheck.API.
func (r *replayAPI) ListKubernetesClusters(ctx context.Context, p cloudstack.ListClustersParams) ([]cloudstack.Cluster, error) {
	return memo(r, fmt.Sprintf("clusters %+v", p), func() ([]cloudstack.Cluster, error) { return r.API.ListKubernetesClusters(ctx, p) })
}

// ListVirtualMachines implements driftcheck.API.
func (r *replayAPI) ListVirtualMachines(ctx context.Context, p cloudstack.ListVMsParams) ([]cloudstack.VirtualMachine, error) {
	return memo(r, fmt.Sprintf("vms %+v", p), func() ([]cloudstack.VirtualMachine, error) { return r.API.ListVirtualMachines(ctx, p) })
}

// ListFirewallRules implements driftcheck.API.
func (r *replayAPI) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	return memo(r, fmt.Sprintf("firewall %+v", p), func() ([]cloudstack.FirewallRule, error) { return r.API.ListFirewallRules(ctx, p) })
}

// ListPortForwardingRules implements driftcheck.API.
func (r *replayAPI) ListPortForwardingRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.PortForwardingRule, error) {
	return memo(r, fmt.Sprintf("forwards %+v", p), func() ([]cloudstack.PortForwardingRule, error) {
		return r.API.ListPortForwardingRules(ctx, p)
	})
}

// ListNetworks implements driftcheck.API.
func (r *replayAPI) ListNetworks(ctx context.Context, p cloudstack.ListNetworksParams) ([]cloudstack.Network, error) {
	return memo(r, fmt.Sprintf("networks %+v", p), func() ([]cloudstack.Network, error) { return r.API.ListNetworks(ctx, p) })
}

// GetKubernetesClusterConfig implements driftcheck.API.
func (r *replayAPI) GetKubernetesClusterConfig(ctx context.Context, id string) (string, error) {
	return memo(r, "kubeconfig "+id, func() (string, error) { return r.API.GetKubernetesClusterConfig(ctx, id) })
}

// replayListers records the nodes the SSH lister returns and, once
// replaying, returns them without connecting.
type replayListers struct {
	live driftcheck.ListerFactory

	mu        sync.Mutex
	replaying bool
	nodes     []nodes.Node
}

var _ driftcheck.ListerFactory = (*replayListers)(nil)

func (r *replayListers) replay() {
	r.mu.Lock()
	r.replaying = true
	r.mu.Unlock()
}

// SSH implements driftcheck.ListerFactory.
func (r *replayListers) SSH(cfg sshlister.Config) (nodes.Lister, error) {
	r.mu.Lock()
	replaying := r.replaying
	r.mu.Unlock()
	if replaying {
		return staticLister{r}, nil
	}
	l, err := r.live.SSH(cfg)
	if err != nil {
		return nil, err
	}
	return recordingLister{live: l, into: r}, nil
}

// Kubeconfig implements driftcheck.ListerFactory; the scale benchmark
// lists nodes over SSH only.
func (r *replayListers) Kubeconfig(kubeconfig []byte, timeout time.Duration) (nodes.Lister, error) {
	return r.live.Kubeconfig(kubeconfig, timeout)
}

type recordingLister struct {
	live nodes.Lister
	into *replayListers
}

// ListNodes implements nodes.Lister.
func (l recordingLister) ListNodes(ctx context.Context) ([]nodes.Node, error) {
	list, err := l.live.ListNodes(ctx)
	if err == nil {
		l.into.mu.Lock()
		l.into.nodes = list
		l.into.mu.Unlock()
	}
	return list, err
}

type staticLister struct{ from *replayListers }

// ListNodes implements nodes.Lister.
func (l staticLister) ListNodes(context.Context) ([]nodes.Node, error) {
	l.from.mu.Lock()
	defer l.from.mu.Unlock()
	return l.from.nodes, nil
}

// ListLoadBalancerRules implements driftcheck.API.
func (r *replayAPI) ListLoadBalancerRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.LoadBalancerRule, error) {
	return memo(r, fmt.Sprintf("load balancers %+v", p), func() ([]cloudstack.LoadBalancerRule, error) {
		return r.API.ListLoadBalancerRules(ctx, p)
	})
}

// CloudStackVersion implements driftcheck.API.
func (r *replayAPI) CloudStackVersion(ctx context.Context) (string, error) {
	return memo(r, "version", func() (string, error) { return r.API.CloudStackVersion(ctx) })
}

// ListNetworkACLs implements driftcheck.API.
func (r *replayAPI) ListNetworkACLs(ctx context.Context, p cloudstack.ListNetworkACLsParams) ([]cloudstack.NetworkACLItem, error) {
	return memo(r, fmt.Sprintf("acl items %+v", p), func() ([]cloudstack.NetworkACLItem, error) {
		return r.API.ListNetworkACLs(ctx, p)
	})
}

// ListNetworkACLLists implements driftcheck.API.
func (r *replayAPI) ListNetworkACLLists(ctx context.Context, p cloudstack.ListNetworkACLListsParams) ([]cloudstack.NetworkACLList, error) {
	return memo(r, fmt.Sprintf("acl lists %+v", p), func() ([]cloudstack.NetworkACLList, error) {
		return r.API.ListNetworkACLLists(ctx, p)
	})
}
