package simulator

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// internalIDs maps rule, cluster and VM uuids to their internal ids.
func internalIDs(e *testEnv) map[string]int64 {
	d := e.sim.DumpState()
	out := map[string]int64{}
	for _, r := range d.Rules {
		out[r.ID] = r.InternalID
	}
	for _, c := range d.Clusters {
		out[c.ID] = c.InternalID
	}
	for _, v := range d.VMs {
		out[v.ID] = v.InternalID
	}
	return out
}

// listIDs calls a list command with the admin credentials and returns the
// ids of the objects, in the order the response has them.
func listIDs(e *testEnv, command, object string, params url.Values) []string {
	e.t.Helper()
	status, body := e.adminCall(command, params)
	if status != 200 {
		e.t.Fatalf("%s: HTTP %d %v", command, status, body)
	}
	resp := inner(e.t, body, strings.ToLower(command)+"response")
	var ids []string
	if resp[object] == nil {
		return nil
	}
	for _, o := range asList(e.t, resp[object]) {
		ids = append(ids, asStr(e.t, asObj(e.t, o)["id"]))
	}
	return ids
}

func internalOrder(ids []string, byID map[string]int64) []int64 {
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

func isSortedDesc(xs []int64) bool {
	return slices.IsSortedFunc(xs, func(a, b int64) int { return int(b - a) })
}

func TestListFirewallAndForwardingRulesNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	p := e.createParams("order", 1)
	p.SetEtcdnodes(1)
	id := e.createCluster(p)
	e.createCluster(e.createParams("second", 1))
	cl := e.cluster(id)
	byID := internalIDs(e)

	fw := internalOrder(listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}}), byID)
	pf := internalOrder(listIDs(e, "listPortForwardingRules", "portforwardingrule", url.Values{"ipaddressid": {cl.Ipaddressid}}), byID)
	if len(fw) != 3 || !isSortedDesc(fw) {
		t.Fatalf("listFirewallRules ids %v: want 3 rules, newest first (ORDER BY id DESC)", fw)
	}
	if len(pf) != 3 || !isSortedDesc(pf) {
		t.Fatalf("listPortForwardingRules ids %v: want 3 rules, newest first", pf)
	}
	lb := internalOrder(listIDs(e, "listLoadBalancerRules", "loadbalancerrule", url.Values{}), byID)
	if len(lb) != 2 || !slices.IsSorted(lb) {
		t.Fatalf("listLoadBalancerRules ids %v: want 2 rules, oldest first", lb)
	}
	clusters := internalOrder(listIDs(e, "listKubernetesClusters", "kubernetescluster", url.Values{}), byID)
	if len(clusters) != 2 || !slices.IsSorted(clusters) {
		t.Fatalf("listKubernetesClusters ids %v: want oldest first", clusters)
	}
	vms := internalOrder(listIDs(e, "listVirtualMachines", "virtualmachine", url.Values{}), byID)
	if len(vms) != 5 || !slices.IsSorted(vms) {
		t.Fatalf("listVirtualMachines ids %v: want oldest first", vms)
	}

	// Paging applies after the order: page 1 of size 2 holds the two newest
	// rules, page 2 the oldest.
	page1 := internalOrder(listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}, "page": {"1"}, "pagesize": {"2"}}), byID)
	page2 := internalOrder(listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}, "page": {"2"}, "pagesize": {"2"}}), byID)
	if !slices.Equal(append(page1, page2...), fw) {
		t.Fatalf("pages %v + %v, want %v", page1, page2, fw)
	}

	// Networks newest first; public IPs by address descending.
	nets := listIDs(e, "listNetworks", "network", url.Values{"listall": {"true"}})
	d := e.sim.DumpState()
	netIDs := map[string]int64{}
	for _, n := range d.Networks {
		netIDs[n.ID] = n.InternalID
	}
	if got := internalOrder(nets, netIDs); !isSortedDesc(got) || len(got) < 3 {
		t.Fatalf("listNetworks ids %v: want newest first", got)
	}
	status, body := e.adminCall("listPublicIpAddresses", url.Values{"listall": {"true"}})
	if status != 200 {
		t.Fatal(body)
	}
	var addrs []string
	for _, o := range asList(t, inner(t, body, "listpublicipaddressesresponse")["publicipaddress"]) {
		addrs = append(addrs, asStr(t, asObj(t, o)["ipaddress"]))
	}
	if len(addrs) < 2 || !slices.IsSortedFunc(addrs, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Fatalf("listPublicIpAddresses %v: want the address column descending", addrs)
	}
}

func TestListOrderReversed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{ListOrder: ListOrderReversed})
	p := e.createParams("reversed", 2)
	p.SetEtcdnodes(1)
	id := e.createCluster(p)
	e.createCluster(e.createParams("other", 1))
	cl := e.cluster(id)
	byID := internalIDs(e)

	if fw := internalOrder(listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}}), byID); !slices.IsSorted(fw) {
		t.Fatalf("reversed listFirewallRules %v: want oldest first", fw)
	}
	if pf := internalOrder(listIDs(e, "listPortForwardingRules", "portforwardingrule", url.Values{"ipaddressid": {cl.Ipaddressid}}), byID); !slices.IsSorted(pf) {
		t.Fatalf("reversed listPortForwardingRules %v: want oldest first", pf)
	}
	if cs := internalOrder(listIDs(e, "listKubernetesClusters", "kubernetescluster", url.Values{}), byID); len(cs) != 2 || !isSortedDesc(cs) {
		t.Fatalf("reversed listKubernetesClusters %v: want newest first", cs)
	}
	if vms := internalOrder(listIDs(e, "listVirtualMachines", "virtualmachine", url.Values{}), byID); !isSortedDesc(vms) {
		t.Fatalf("reversed listVirtualMachines %v", vms)
	}
	var members []string
	for _, v := range cl.Virtualmachines {
		members = append(members, v.Id)
	}
	if got := internalOrder(members, byID); len(got) != 4 || !isSortedDesc(got) {
		t.Fatalf("reversed virtualmachines[] of the cluster %v: want the map order reversed", got)
	}
	zones := listIDs(e, "listZones", "zone", url.Values{})
	versions := listIDs(e, "listKubernetesSupportedVersions", "kubernetessupportedversion", url.Values{})
	if len(zones) != 1 || len(versions) != 5 || versions[0] != e.info.DisabledKubernetesVersions["1.35.0"] ||
		versions[4] != e.info.KubernetesVersions["1.32.9"] {
		t.Fatalf("reversed versions %v (want the newest, 1.35.0, first), zones %v", versions, zones)
	}
}

func TestListOrderShuffled(t *testing.T) {
	t.Parallel()
	orders := func() []string {
		e := newEnv(t, Options{ListOrder: ListOrderShuffled, Seed: 42})
		e.createCluster(e.createParams("shuffle", 4))
		byID := internalIDs(e)
		var seen []string
		want := listIDs(e, "listVirtualMachines", "virtualmachine", url.Values{})
		slices.Sort(want)
		for range 8 {
			got := listIDs(e, "listVirtualMachines", "virtualmachine", url.Values{})
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, want) {
				t.Fatalf("shuffled list %v is not a permutation of %v", got, want)
			}
			// Internal ids, not UUIDs: a second simulator may draw other
			// UUIDs when its first loopback block is taken.
			seen = append(seen, fmt.Sprint(internalOrder(got, byID)))
		}
		return seen
	}
	first := orders()
	distinct := slices.Compact(slices.Sorted(slices.Values(first)))
	if len(distinct) < 2 {
		t.Fatalf("8 shuffled calls gave %d distinct orders, want a new permutation per call", len(distinct))
	}
	// Same seed, same calls: the same permutations.
	if second := orders(); !slices.Equal(first, second) {
		t.Fatal("the shuffled order is not reproducible from Options.Seed")
	}
}

func TestListOrderUnknownRejected(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{ListOrder: "sorted"}); err == nil || !strings.Contains(err.Error(), "unknown list order") {
		t.Fatalf("New with an unknown list order: %v", err)
	}
	e := newEnv(t, Options{})
	if err := e.sim.SetListOrder("sorted"); err == nil || !strings.Contains(err.Error(), "unknown list order") {
		t.Fatalf("SetListOrder with an unknown list order: %v", err)
	}
}

// SetListOrder changes the order of the next list, and back.
func TestSetListOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createCluster(e.createParams("first", 1))
	e.createCluster(e.createParams("second", 1))
	asListed := listIDs(e, "listKubernetesClusters", "kubernetescluster", url.Values{})
	if err := e.sim.SetListOrder(ListOrderReversed); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(e, "listKubernetesClusters", "kubernetescluster", url.Values{}); len(asListed) != 2 || !slices.Equal(got, []string{asListed[1], asListed[0]}) {
		t.Fatalf("after SetListOrder(reversed): %v, want the reverse of %v", got, asListed)
	}
	if err := e.sim.SetListOrder(ListOrderReal); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(e, "listKubernetesClusters", "kubernetescluster", url.Values{}); !slices.Equal(got, asListed) {
		t.Fatalf("after SetListOrder(real): %v, want %v", got, asListed)
	}
}

// TestHiddenRulesListedOnlyToAdminsButEvaluated: a rule created with
// fordisplay=false does not show in a tenant's list calls, yet
// removeSshFirewallRule evaluates it. Here the tenant replaced the node SSH
// range by a hidden one, which the scale worker picks and revokes.
func TestHiddenRulesListedOnlyToAdminsButEvaluated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	tc := e.tenantClient()
	p := tc.Kubernetes.NewCreateKubernetesClusterParams("hidden", e.info.KubernetesVersions["1.33.13"], "hidden",
		e.info.ServiceOfferingID, 1, e.info.ZoneID)
	p.SetKeypair(e.info.Keypair)
	r, err := tc.Kubernetes.CreateKubernetesCluster(p)
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	cl := e.cluster(r.Id)
	for _, fw := range e.sim.DumpState().Rules {
		if fw.Purpose == model.PurposeFirewall && fw.StartPort == nodesStartSSHPort {
			if err := e.sim.DeleteRule(fw.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	status, body := e.rawCall(e.info.TenantAPIKey, e.info.TenantSecretKey, "createFirewallRule", url.Values{
		"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"}, "startport": {"2222"}, "endport": {"2223"}, "fordisplay": {"false"}})
	if status != 200 {
		t.Fatalf("hidden rule: %d %v", status, body)
	}
	hidden := asStr(t, inner(t, body, "createfirewallruleresponse")["id"])
	e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))

	tenantList := func(extra url.Values) []string {
		params := url.Values{"ipaddressid": {cl.Ipaddressid}}
		for k, v := range extra {
			params[k] = v
		}
		status, body := e.rawCall(e.info.TenantAPIKey, e.info.TenantSecretKey, "listFirewallRules", params)
		if status != 200 {
			t.Fatalf("tenant list: %d %v", status, body)
		}
		var ids []string
		if l, ok := inner(t, body, "listfirewallrulesresponse")["firewallrule"]; ok {
			for _, o := range asList(t, l) {
				ids = append(ids, asStr(t, asObj(t, o)["id"]))
			}
		}
		return ids
	}
	if slices.Contains(tenantList(nil), hidden) {
		t.Fatal("a fordisplay=false rule is listed to its non-admin owner")
	}
	if slices.Contains(tenantList(url.Values{"fordisplay": {"false"}}), hidden) {
		t.Fatal("fordisplay is for root admins only; a tenant's fordisplay=false listed the hidden rule")
	}
	adminList := func() []string {
		return listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}, "listall": {"true"}})
	}
	if !slices.Contains(adminList(), hidden) {
		t.Fatal("the root admin does not see the hidden rule")
	}
	if got := listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}, "listall": {"true"}, "fordisplay": {"false"}}); !slices.Equal(got, []string{hidden}) {
		t.Fatalf("root admin with fordisplay=false: %v, want only the hidden rule", got)
	}

	e.mustSucceed(e.scale(r.Id, 2))
	if slices.Contains(adminList(), hidden) {
		t.Fatal("the scale worker did not pick and revoke the hidden node SSH rule")
	}
	var ranges []string
	for _, fw := range e.sim.DumpState().Rules {
		if fw.Purpose == model.PurposeFirewall {
			ranges = append(ranges, fmt.Sprintf("%d-%d", fw.StartPort, fw.EndPort))
		}
	}
	if slices.Sort(ranges); !slices.Equal(ranges, []string{"2222-2224", "6443-6443"}) {
		t.Fatalf("firewall rules after the scale %v", ranges)
	}
}
