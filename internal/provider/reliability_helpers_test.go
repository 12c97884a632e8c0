package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Helpers of the reliability suites (reliability_*_test.go): a proxy that
// makes calls time out, and a check of the simulator's dump for leaked or
// duplicated objects.

// relReadCommands are the API reads the provider may make. Transient
// faults are armed on all of them; a step then proves which ones it made.
var relReadCommands = []string{
	"listKubernetesClusters", "listKubernetesSupportedVersions", "queryAsyncJobResult", "listVirtualMachines",
	"listNetworks", "listFirewallRules", "listPortForwardingRules", "listLoadBalancerRules", "listPublicIpAddresses",
	"getKubernetesClusterConfig", "listZones", "listServiceOfferings", "listCapabilities", "listProjects",
	"listAccounts", "listDomains", "listSSHKeyPairs",
}

// relFaultProxy sits between the provider and the simulator. Armed for
// a command, it holds the next call of that command until the client gives
// up (request_timeout): without forwarding it (the call never reached
// CloudStack) or after forwarding it (CloudStack ran it; the answer is lost).
// It can also answer calls itself with HTTP 200 and CloudStack's error
// object, as some gateways do.
type relFaultProxy struct {
	server  *httptest.Server
	forward *httputil.ReverseProxy

	mu      sync.Mutex
	hold    map[string]int // command -> calls to hold before CloudStack sees them
	lose    map[string]int // command -> calls to run, then hold the answer
	fail200 map[string]int // command -> calls to answer 200 with an error object
	held    map[string]int // command -> calls held so far (either kind)
	calls   map[string]int // command -> calls seen since the last arm
}

// relHoldLimit bounds a held call in case the client never gives up, so
// that closing the proxy never hangs a test.
const relHoldLimit = 30 * time.Second

func newRelFaultProxy(t *testing.T, target string) *relFaultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &relFaultProxy{
		forward: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}),
		hold:    map[string]int{}, lose: map[string]int{}, fail200: map[string]int{}, held: map[string]int{}, calls: map[string]int{},
	}
	p.server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.server.Close)
	return p
}

// URL is the API URL to give the provider.
func (p *relFaultProxy) URL() string { return p.server.URL + "/client/api" }

// holdNext makes the next call of each command time out before it reaches
// CloudStack.
func (p *relFaultProxy) holdNext(commands ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
	for _, c := range commands {
		p.hold[strings.ToLower(c)] = 1
	}
}

// loseNext makes CloudStack run the next call of the command, and the
// client time out waiting for the answer.
func (p *relFaultProxy) loseNext(command string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
	p.lose[strings.ToLower(command)] = 1
}

// errorWith200 answers the next n calls of the command with HTTP 200 and
// CloudStack's error object instead of a result.
func (p *relFaultProxy) errorWith200(command string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
	p.fail200[strings.ToLower(command)] = n
}

// disarm drops pending faults and counts.
func (p *relFaultProxy) disarm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
}

func (p *relFaultProxy) resetLocked() {
	clear(p.hold)
	clear(p.lose)
	clear(p.fail200)
	clear(p.held)
	clear(p.calls)
}

// heldAndRetried returns the commands whose call was held and that were
// then sent again, and the commands held but never sent again.
func (p *relFaultProxy) heldAndRetried() (retried, abandoned []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, n := range p.held {
		if p.calls[c] > n {
			retried = append(retried, c)
		} else {
			abandoned = append(abandoned, c)
		}
	}
	sort.Strings(retried)
	sort.Strings(abandoned)
	return retried, abandoned
}

func (p *relFaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	command := r.URL.Query().Get("command")
	if form, err := url.ParseQuery(string(body)); err == nil && form.Get("command") != "" {
		command = form.Get("command")
	}
	key := strings.ToLower(command)

	p.mu.Lock()
	p.calls[key]++
	if p.fail200[key] > 0 {
		p.fail200[key]--
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = fmt.Fprintf(w, `{"%sresponse":{"uuidList":[],"errorcode":530,"cserrorcode":9999,"errortext":"Injected error object in an HTTP 200 answer"}}`, key)
		return
	}
	hold, lose := p.hold[key] > 0, p.lose[key] > 0
	switch {
	case hold:
		p.hold[key]--
	case lose:
		p.lose[key]--
	}
	if hold || lose {
		p.held[key]++
	}
	p.mu.Unlock()

	if !hold && !lose {
		p.forward.ServeHTTP(w, r)
		return
	}
	if lose {
		// CloudStack runs the command even though the client goes away.
		p.forward.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithoutCancel(r.Context())))
	}
	select {
	case <-r.Context().Done():
	case <-time.After(relHoldLimit):
	}
}

// relProviderConfig is a provider block for api_url with the simulator's
// keys and, unless zero, a request timeout in seconds.
func (e *simEnv) relProviderConfig(apiURL string, requestTimeout int) string {
	timeout := ""
	if requestTimeout > 0 {
		timeout = fmt.Sprintf("  request_timeout = %d\n", requestTimeout)
	}
	return fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
%s}
`, apiURL, e.Info.APIKey, e.Info.SecretKey, timeout)
}

// relDumpProblems lists what the simulator's dump shows leaked or
// duplicated: the live clusters must be exactly wantClusters (by name, so a
// duplicate shows), every VM must be in the VM map of a live cluster, every
// map row must point to a VM that exists, a cluster not in the middle of an
// operation must have exactly control + size + etcd map rows, no rule may be
// duplicated or left on a removed cluster or VM, and no network may outlive
// its cluster.
func relDumpProblems(info simulator.Info, d simulator.DumpState, wantClusters ...string) []string {
	return relDumpCheck(info, d, true, wantClusters)
}

// relMidwayProblems is relDumpProblems right after a failed or interrupted
// apply, before the next one converges: no cluster name may appear twice,
// and nothing may be leaked or duplicated, but a cluster may hold map rows
// that its stale size does not count yet.
func relMidwayProblems(info simulator.Info, d simulator.DumpState) []string {
	return relDumpCheck(info, d, false, nil)
}

func relDumpCheck(info simulator.Info, d simulator.DumpState, settled bool, wantClusters []string) []string {
	var problems []string
	live := map[string]simulator.DumpCluster{}
	var names []string
	for _, c := range d.Clusters {
		if !c.Removed {
			live[c.ID] = c
			names = append(names, c.Name)
		}
	}
	sort.Strings(names)
	if settled {
		if want := slices.Sorted(slices.Values(wantClusters)); !slices.Equal(names, want) {
			problems = append(problems, fmt.Sprintf("live clusters are %q, want %q", names, want))
		}
	} else if len(slices.Compact(slices.Clone(names))) != len(names) {
		problems = append(problems, fmt.Sprintf("a cluster name appears twice among the live clusters %q", names))
	}

	vms := map[string]simulator.DumpVM{}
	for _, v := range d.VMs {
		if !v.Expunged {
			vms[v.ID] = v
		}
	}
	mapped := map[string]string{} // VM id -> cluster id
	rows := map[string]int{}
	for _, r := range d.VMMap {
		if _, ok := live[r.ClusterID]; !ok {
			continue
		}
		rows[r.ClusterID]++
		if other, dup := mapped[strings.ToLower(r.VMID)]; dup {
			problems = append(problems, fmt.Sprintf("VM %s is mapped twice (clusters %s and %s)", r.VMID, other, r.ClusterID))
		}
		mapped[strings.ToLower(r.VMID)] = r.ClusterID
		if _, ok := vms[r.VMID]; !ok {
			problems = append(problems, fmt.Sprintf("the map of cluster %s points to VM %s, which does not exist", live[r.ClusterID].Name, r.VMID))
		}
	}
	for _, v := range d.VMs {
		if v.Expunged {
			continue
		}
		owner, ok := mapped[strings.ToLower(v.ID)]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("VM %s (%s) is in no live cluster's VM map: leaked", v.Name, v.State))
		case owner != v.ClusterID:
			problems = append(problems, fmt.Sprintf("VM %s belongs to cluster %s but is mapped in %s", v.Name, v.ClusterID, owner))
		}
	}
	for id, c := range live {
		if !settled || !clusterstate.Settled(c.State) {
			continue
		}
		if want := int(c.ControlNodes + c.Size + c.EtcdNodes); rows[id] != want {
			problems = append(problems, fmt.Sprintf("cluster %s (%s) has %d map rows, want control %d + size %d + etcd %d",
				c.Name, c.State, rows[id], c.ControlNodes, c.Size, c.EtcdNodes))
		}
	}

	liveIPs := map[string]string{}
	liveNetworks := map[string]bool{info.IsolatedNetworkID: true, info.VPCTierNetworkID: true, info.VPCDenyTierNetworkID: true,
		info.SharedNetworkID: true, info.VPCACLTierNetworkID: true, info.VPCACLTierLBNetworkID: true}
	for _, c := range live {
		liveIPs[c.PublicIPID] = c.Name
		liveNetworks[c.NetworkID] = true
	}
	seen := map[string]bool{}
	for _, r := range d.Rules {
		key := fmt.Sprintf("%s %s %s %d-%d -> %s:%d", r.Purpose, r.IPAddressID, r.Protocol, r.StartPort, r.EndPort, r.VMID, r.PrivatePort)
		if seen[key] {
			problems = append(problems, "duplicated rule: "+key)
		}
		seen[key] = true
		if _, ok := liveIPs[r.IPAddressID]; !ok && !liveNetworks[r.NetworkID] {
			problems = append(problems, fmt.Sprintf("%s rule %d-%d is left on %s, which belongs to no live cluster", r.Purpose, r.StartPort, r.EndPort, r.IPAddress))
		}
		if r.VMID != "" {
			if _, ok := vms[r.VMID]; !ok {
				problems = append(problems, fmt.Sprintf("%s rule %d-%d points to VM %s, which does not exist", r.Purpose, r.StartPort, r.EndPort, r.VMID))
			}
		}
	}
	for _, n := range d.Networks {
		if !n.Removed && !liveNetworks[n.ID] {
			problems = append(problems, fmt.Sprintf("network %s (%s) outlived its cluster", n.Name, n.State))
		}
	}
	return problems
}

// relExpectClean fails unless the simulator shows exactly the clusters named
// and nothing leaked or duplicated (see relDumpProblems).
func (e *simEnv) relExpectClean(wantClusters ...string) error {
	if problems := relDumpProblems(e.Info, e.Sim.DumpState(), wantClusters...); len(problems) > 0 {
		return fmt.Errorf("the simulator shows leaks or duplicates:\n- %s", strings.Join(problems, "\n- "))
	}
	return nil
}

// relCheckClean is relExpectClean as a TestCheckFunc.
func (e *simEnv) relCheckClean(wantClusters ...string) func(*terraform.State) error {
	return func(*terraform.State) error { return e.relExpectClean(wantClusters...) }
}

// relNoRefreshDrift is a plan check: the refresh made before the plan did
// not change the resource, so the state the last (failed) apply saved is
// what CloudStack reports.
type relNoRefreshDrift struct{ addr string }

func (c relNoRefreshDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address == c.addr {
			resp.Error = fmt.Errorf("the refresh changed %s: the state saved by the failed apply did not match CloudStack:\nsaved:     %v\nrefreshed: %v",
				c.addr, rc.Change.Before, rc.Change.After)
			return
		}
	}
	if req.Plan.PriorState == nil || req.Plan.PriorState.Values == nil {
		resp.Error = fmt.Errorf("the plan has no prior state for %s", c.addr)
	}
}
