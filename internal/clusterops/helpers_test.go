package clusterops

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// testEnv is a started simulator with a client for its admin account.
type testEnv struct{ *simtest.Env }

var fastWait = simtest.FastWait

func newEnv(t *testing.T, profile string) *testEnv {
	t.Helper()
	return newEnvWithJobs(t, profile, 3*time.Millisecond)
}

// newEnvWithJobs starts a simulator whose jobs each take jobDuration.
func newEnvWithJobs(t *testing.T, profile string, jobDuration time.Duration) *testEnv {
	t.Helper()
	return &testEnv{Env: simtest.Start(t, simtest.WithProfile(profile), simtest.WithJobDuration(jobDuration))}
}

func (e *testEnv) engine() *Engine {
	return New(e.API, Options{Wait: fastWait, UnknownOutcomeWait: time.Second})
}

func (e *testEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(e.T().Context(), 60*time.Second)
	e.T().Cleanup(cancel)
	return ctx
}

// createCluster creates 1 control + etcd etcd VMs + size workers through the
// API (not the engine) and waits for it: CKS's own rule layout.
func (e *testEnv) createCluster(name string, etcd, size int64) string {
	e.T().Helper()
	return e.createClusterIn(name, "", etcd, size)
}

// createClusterIn is createCluster on a given network ("" lets CKS create one).
func (e *testEnv) createClusterIn(name, networkID string, etcd, size int64) string {
	e.T().Helper()
	return e.createClusterWith(cloudstack.CreateClusterParams{Name: name, NetworkID: networkID, EtcdNodes: etcd, Size: size})
}

// createClusterWith creates a cluster from p, with the seeded zone,
// offering, version and key pair, and one control node unless p says
// otherwise, as the engine's createRequest does.
func (e *testEnv) createClusterWith(p cloudstack.CreateClusterParams) string {
	e.T().Helper()
	p.Description = p.Name
	p.NodeRootDiskSize, p.Hypervisor = 80, "kvm"
	return e.NewCluster(p).ID
}

// firewallShape is the sorted "start-end cidrs" of the rules.
func firewallShape(fws []cloudstack.FirewallRule) []string {
	out := make([]string, 0, len(fws))
	for _, fw := range fws {
		out = append(out, fmt.Sprintf("%s %s %v", fw.Protocol, rules.PortRange(fw.StartPort, fw.EndPort), fw.CIDRList))
	}
	sort.Strings(out)
	return out
}

// forwardTargets maps each forward's public port to its VM.
func forwardTargets(t testing.TB, pfs []cloudstack.PortForwardingRule) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, pf := range pfs {
		if pf.PrivatePort != 22 {
			t.Errorf("forward %d goes to private port %d, want 22", pf.PublicPort, pf.PrivatePort)
		}
		if _, dup := out[pf.PublicPort]; dup {
			t.Errorf("two forwards on public port %d", pf.PublicPort)
		}
		out[pf.PublicPort] = pf.VirtualMachineID
	}
	return out
}

// checkTargets checks the forwards of a 1-control cluster against its VM
// map, whatever order the API lists the map in: 2222 reaches the control
// node, every other node has one port of 2223.., every etcd VM one port of
// 50000... It returns the ports.
func checkTargets(t testing.TB, c *cloudstack.Cluster, got map[int]string) []int {
	t.Helper()
	var nodes, etcd []string
	control := ""
	for _, vm := range c.VirtualMachines {
		switch {
		case vm.IsEtcdNode:
			etcd = append(etcd, vm.ID)
		case strings.Contains(vm.Name, "-control-"):
			control = vm.ID
		default:
			nodes = append(nodes, vm.ID)
		}
	}
	if got[2222] != control {
		t.Errorf("forward 2222 → VM %q, want the control node %q", got[2222], control)
	}
	check := func(from int, vms []string) {
		want := slices.Sorted(slices.Values(vms))
		var have []string
		for port := from; port < from+len(vms); port++ {
			have = append(have, got[port])
		}
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Errorf("forwards %d..%d reach %v, want each of %v once", from, from+len(vms)-1, have, want)
		}
	}
	check(2223, nodes)
	check(50000, etcd)
	if want := 1 + len(nodes) + len(etcd); len(got) != want {
		t.Errorf("forwards %v, want exactly %d", got, want)
	}
	return slices.Sorted(maps.Keys(got))
}

// assertHardened checks the provider's layout on a cluster with one control
// node: the node range over the map's control and workers, the API rule,
// one etcd SSH range (when it has etcd nodes), every forward to its VM, no
// hazard and nothing left to sync.
func (e *testEnv) assertHardened(id string, cidrs ...string) *cloudstack.Cluster {
	e.T().Helper()
	c := e.Cluster(id)
	if len(cidrs) == 0 {
		cidrs = []string{"0.0.0.0/0"}
	}
	nodes := int(clusterview.MapWorkers(c) + c.ControlNodes + c.ExternalNodes())
	wantFW := []string{fmt.Sprintf("tcp %s %v", rules.PortRange(2222, 2222+nodes-1), cidrs), "tcp 6443 [0.0.0.0/0]"}
	if c.EtcdNodes > 0 {
		wantFW = append(wantFW, fmt.Sprintf("tcp 50000-%d %v", 50000+max(int(c.EtcdNodes)-1, 1), cidrs))
	}
	slices.Sort(wantFW)
	if got := firewallShape(e.FirewallRulesOn(c.IPAddressID)); !slices.Equal(got, wantFW) {
		e.T().Errorf("firewall rules = %v, want %v", got, wantFW)
	}
	checkTargets(e.T(), c, forwardTargets(e.T(), e.ForwardsOn(c.IPAddressID)))
	e.assertSafe(id, cidrs...)
	return c
}

// assertSafe checks that the next scale by any client would revoke the
// node range and nothing else, and that the rules need no change.
func (e *testEnv) assertSafe(id string, cidrs ...string) {
	e.T().Helper()
	eng := New(e.API, Options{Wait: fastWait})
	s, err := eng.Snapshot(e.ctx(), id, Intent{SourceCIDRs: rules.SourceCIDRs{SSHCIDRs: cidrs}})
	if err != nil {
		e.T().Fatalf("Snapshot: %v", err)
	}
	for _, h := range rules.Preflight(s.Layout, s.Rules, s.NetworkForwards, rules.Server{PortlessRuleBreaksScale: true}) {
		e.T().Errorf("hazard left: %s", h.Explanation)
	}
	if !s.InSync() {
		e.T().Errorf("rules not in the provider's layout: %+v", s.Sync.Actions())
	}
}

// assertSSH checks that SSH as cloud works on every node and etcd port of
// the cluster and that the control node at 2222 lists the Kubernetes nodes.
// The simulated nodes cannot tell who they are, so the target of each port
// is checked through the API instead (assertHardened).
func (e *testEnv) assertSSH(id string, c *cloudstack.Cluster) {
	e.T().Helper()
	hostKey := e.HostKey(id)
	out, status, err := e.RunSSH(net.JoinHostPort(c.IPAddress, "2222"), hostKey, "sudo /opt/bin/kubectl get nodes -o name")
	if wantNodes := int(c.ControlNodes + clusterview.MapWorkers(c) + c.ExternalNodes()); err != nil || status != 0 || len(strings.Fields(out)) != wantNodes {
		e.T().Errorf("kubectl get nodes over SSH to %s:2222 = %q, status %d, %v; want %d nodes", c.IPAddress, out, status, err, wantNodes)
	}
	for _, port := range checkTargets(e.T(), c, forwardTargets(e.T(), e.ForwardsOn(c.IPAddressID))) {
		if _, _, err := e.RunSSH(net.JoinHostPort(c.IPAddress, strconv.Itoa(port)), hostKey, "true"); err != nil {
			e.T().Errorf("SSH to %s:%d: %v", c.IPAddress, port, err)
		}
	}
}

// countingAPI counts the calls an engine makes, by command.
type countingAPI struct {
	API
	mu     sync.Mutex
	calls  map[string]int
	scales []cloudstack.ScaleClusterParams
}

func (c *countingAPI) count(command string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[command]++
}

func (c *countingAPI) n(commands ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, cmd := range commands {
		total += c.calls[cmd]
	}
	return total
}

func (c *countingAPI) ruleChanges() int {
	return c.n("createFirewallRule", "deleteFirewallRule", "createPortForwardingRule", "deletePortForwardingRule")
}

func (c *countingAPI) lifecycleCalls() int {
	return c.n("scaleKubernetesCluster", "startKubernetesCluster", "stopKubernetesCluster")
}

func (c *countingAPI) GetKubernetesCluster(ctx context.Context, id string) (*cloudstack.Cluster, error) {
	c.count("listKubernetesClusters")
	return c.API.GetKubernetesCluster(ctx, id)
}

func (c *countingAPI) ScaleKubernetesCluster(ctx context.Context, p cloudstack.ScaleClusterParams) (cloudstack.AsyncRef, error) {
	c.count("scaleKubernetesCluster")
	c.mu.Lock()
	c.scales = append(c.scales, p)
	c.mu.Unlock()
	return c.API.ScaleKubernetesCluster(ctx, p)
}

func (c *countingAPI) StartKubernetesCluster(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	c.count("startKubernetesCluster")
	return c.API.StartKubernetesCluster(ctx, id)
}

func (c *countingAPI) StopKubernetesCluster(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	c.count("stopKubernetesCluster")
	return c.API.StopKubernetesCluster(ctx, id)
}

func (c *countingAPI) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	c.count("listFirewallRules")
	return c.API.ListFirewallRules(ctx, p)
}

func (c *countingAPI) ListPortForwardingRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.PortForwardingRule, error) {
	c.count("listPortForwardingRules")
	return c.API.ListPortForwardingRules(ctx, p)
}

func (c *countingAPI) ListNetworks(ctx context.Context, p cloudstack.ListNetworksParams) ([]cloudstack.Network, error) {
	c.count("listNetworks")
	return c.API.ListNetworks(ctx, p)
}

func (c *countingAPI) CreateFirewallRule(ctx context.Context, p cloudstack.CreateFirewallRuleParams) (cloudstack.AsyncRef, error) {
	c.count("createFirewallRule")
	return c.API.CreateFirewallRule(ctx, p)
}

func (c *countingAPI) DeleteFirewallRule(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	c.count("deleteFirewallRule")
	return c.API.DeleteFirewallRule(ctx, id)
}

func (c *countingAPI) CreatePortForwardingRule(ctx context.Context, p cloudstack.CreatePortForwardingRuleParams) (cloudstack.AsyncRef, error) {
	c.count("createPortForwardingRule")
	return c.API.CreatePortForwardingRule(ctx, p)
}

func (c *countingAPI) DeletePortForwardingRule(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	c.count("deletePortForwardingRule")
	return c.API.DeletePortForwardingRule(ctx, id)
}

func (c *countingAPI) QueryAsyncJob(ctx context.Context, id string) (cloudstack.JobStatus, error) {
	c.count("queryAsyncJobResult")
	return c.API.QueryAsyncJob(ctx, id)
}

func (e *testEnv) countingEngine() (*Engine, *countingAPI) {
	api := &countingAPI{API: e.API}
	return New(api, Options{Wait: fastWait}), api
}

// collateralCluster is a 2-worker cluster without etcd on which the user
// took port 2224 for a forward to the control VM, which a scale to 1
// deletes. It returns the cluster and the forward's id.
func (e *testEnv) collateralCluster(name string, cidrs ...string) (*cloudstack.Cluster, string) {
	e.T().Helper()
	ctx := e.ctx()
	id := e.createCluster(name, 0, 2)
	c := e.Cluster(id)
	for _, pf := range e.ForwardsOn(c.IPAddressID) {
		if pf.PublicPort == 2224 {
			if err := e.Sim.DeleteRule(pf.ID); err != nil {
				e.T().Fatal(err)
			}
		}
	}
	ref, err := e.API.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 2224, PrivatePort: 8080, VirtualMachineID: vmNamed(c, "-control-"), NetworkID: c.NetworkID,
		CIDRList: cidrs})
	if err != nil {
		e.T().Fatalf("createPortForwardingRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, e.API, ref.JobID, fastWait); err != nil {
		e.T().Fatal(err)
	}
	return c, ref.ID
}

// vmNamed returns the id of the cluster's first VM whose name contains part
// ("-control-", "-node-"): the API does not promise the map's order.
func vmNamed(c *cloudstack.Cluster, part string) string {
	for _, vm := range c.VirtualMachines {
		if strings.Contains(vm.Name, part) {
			return vm.ID
		}
	}
	return ""
}
