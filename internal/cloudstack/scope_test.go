package cloudstack

import (
	"net/http"
	"net/url"
	"testing"
)

// A project's rules, addresses and networks are listed only with projectid;
// the filters send it when set and leave it out otherwise.
func TestListCallsSendProjectScope(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listFirewallRules", okJSON("listFirewallRules", map[string]any{"count": 0}))
	fake.handle("listPortForwardingRules", okJSON("listPortForwardingRules", map[string]any{"count": 0}))
	fake.handle("listLoadBalancerRules", okJSON("listLoadBalancerRules", map[string]any{"count": 0}))
	fake.handle("listPublicIpAddresses", okJSON("listPublicIpAddresses", map[string]any{"count": 0}))
	fake.handle("listNetworks", okJSON("listNetworks", map[string]any{"count": 1, "network": []map[string]any{{
		"id": "n-1", "name": "prj-net", "type": "Isolated", "state": "Implemented", "zoneid": "z-1",
	}}}))
	c := newTestClient(t, fake.start().URL)
	ctx := t.Context()

	for _, projectID := range []string{"p-1", ""} {
		rules := ListRulesParams{IPAddressID: "ip-1", ProjectID: projectID, ListAll: true}
		if _, err := c.ListFirewallRules(ctx, rules); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPortForwardingRules(ctx, rules); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListLoadBalancerRules(ctx, rules); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPublicIPAddresses(ctx, ListPublicIPParams{AssociatedNetworkID: "n-1", ProjectID: projectID}); err != nil {
			t.Fatal(err)
		}
		nets, err := c.ListNetworks(ctx, ListNetworksParams{ID: "n-1", ProjectID: projectID})
		if err != nil || len(nets) != 1 || nets[0].ID != "n-1" {
			t.Fatalf("ListNetworks = %+v, %v", nets, err)
		}
	}
	for _, command := range []string{"listFirewallRules", "listPortForwardingRules", "listLoadBalancerRules",
		"listPublicIpAddresses", "listNetworks"} {
		calls := fake.recorded(command)
		if len(calls) != 2 {
			t.Fatalf("%s called %d times", command, len(calls))
		}
		if got := calls[0].params.Get("projectid"); got != "p-1" {
			t.Errorf("%s projectid = %q, want p-1", command, got)
		}
		if calls[1].params.Has("projectid") {
			t.Errorf("%s sent projectid %q without a project", command, calls[1].params.Get("projectid"))
		}
	}
	if p := fake.recorded("listNetworks")[0].params; p.Get("id") != "n-1" || p.Get("listall") != "true" {
		t.Errorf("listNetworks params = %v", p)
	}
}

// A forward limited to source CIDRs is created with them; CKS-style
// forwards send none.
func TestCreatePortForwardingRuleSendsCIDRs(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("createPortForwardingRule", okJSON("createPortForwardingRule", map[string]any{"id": "pf-9", "jobid": "job-pf"}))
	c := newTestClient(t, fake.start().URL)
	ctx := t.Context()

	base := CreatePortForwardingRuleParams{IPAddressID: "ip-1", Protocol: "tcp", PublicPort: 2224, PrivatePort: 8080,
		VirtualMachineID: "vm-1", NetworkID: "n-1"}
	limited := base
	limited.CIDRList = []string{"10.20.0.0/16", "192.0.2.0/24"}
	for _, p := range []CreatePortForwardingRuleParams{limited, base} {
		if _, err := c.CreatePortForwardingRule(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	calls := fake.recorded("createPortForwardingRule")
	if got := calls[0].params.Get("cidrlist"); got != "10.20.0.0/16,192.0.2.0/24" {
		t.Errorf("cidrlist = %q", got)
	}
	if calls[1].params.Has("cidrlist") {
		t.Errorf("a forward without CIDRs sent cidrlist %q", calls[1].params.Get("cidrlist"))
	}
}

// A user's list by id leaves project clusters out; the read asks again
// across every visible project (projectid=-1) before calling it gone.
func TestGetKubernetesClusterFindsProjectClusters(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	empty := okJSON("listKubernetesClusters", map[string]any{})
	fake.handle("listKubernetesClusters", func(r *http.Request, q url.Values) (int, string) {
		if q.Get("projectid") == "-1" {
			return 200, clusterFixture
		}
		return empty(r, q)
	})
	c := newTestClient(t, fake.start().URL)

	cl, err := c.GetKubernetesCluster(t.Context(), "c-1")
	if err != nil || cl.ID != "c-1" {
		t.Fatalf("GetKubernetesCluster = %+v, %v", cl, err)
	}
	calls := fake.recorded("listKubernetesClusters")
	if len(calls) != 2 || calls[0].params.Has("projectid") || calls[1].params.Get("id") != "c-1" {
		t.Fatalf("calls: %+v", calls)
	}

	fake.handle("listKubernetesClusters", empty)
	_, err = c.GetKubernetesCluster(t.Context(), "gone")
	if !IsNotFound(err) {
		t.Fatalf("a cluster in no scope: %v", err)
	}
}
