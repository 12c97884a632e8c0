package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Helpers of the reliability suites (reliability_*_test.go): the reads the
// provider makes, and a check of the simulator's dump for leaked or
// duplicated objects. Faults go through the harness's fault proxy
// (acctest_fault_proxy_test.go).

// relReadCommands are the API reads the provider may make. Transient
// faults are armed on all of them; a step then proves which ones it made.
var relReadCommands = []string{
	"listKubernetesClusters", "listKubernetesSupportedVersions", "queryAsyncJobResult", "listVirtualMachines",
	"listNetworks", "listFirewallRules", "listPortForwardingRules", "listLoadBalancerRules", "listPublicIpAddresses",
	"getKubernetesClusterConfig", "listZones", "listServiceOfferings", "listCapabilities", "listProjects",
	"listAccounts", "listDomains", "listSSHKeyPairs",
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
