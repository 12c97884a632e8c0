package cloudstack

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

func TestRetryTransientReadsThenSucceed(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	fake.failNext("listZones", http.StatusServiceUnavailable, http.StatusTooManyRequests)
	c := newTestClient(t, fake.start().URL)

	zones, err := c.ListZones(t.Context())
	if err != nil {
		t.Fatalf("ListZones: %v", err)
	}
	if len(zones) != 1 {
		t.Fatalf("zones = %+v", zones)
	}
	if n := fake.callCount("listZones"); n != 3 {
		t.Fatalf("calls = %d, want 3 (503, 429, success)", n)
	}
}

func TestRetryGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	fake.failNext("listZones", 503, 502, 500, 504, 503, 503)
	c := newTestClient(t, fake.start().URL)

	_, err := c.ListZones(t.Context())
	if !IsTransient(err) {
		t.Fatalf("err = %v, want transient", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != 504 {
		t.Fatalf("want the last status 504, got %+v", e)
	}
	if n := fake.callCount("listZones"); n != 4 {
		t.Fatalf("calls = %d, want MaxAttempts=4", n)
	}
}

func TestRetryNeverForMutations(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("createFirewallRule", createFirewallHandler())
	fake.failNext("createFirewallRule", http.StatusServiceUnavailable)
	c := newTestClient(t, fake.start().URL)

	_, err := c.CreateFirewallRule(t.Context(), CreateFirewallRuleParams{IPAddressID: "ip", Protocol: "tcp"})
	if !IsTransient(err) {
		t.Fatalf("err = %v, want a transient 503", err)
	}
	if n := fake.callCount("createFirewallRule"); n != 1 {
		t.Fatalf("create was sent %d times, want exactly once", n)
	}
}

func TestRetryNotForBusinessErrors(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("getKubernetesClusterConfig", func(*http.Request, url.Values) (int, string) {
		return 530, envelope("getKubernetesClusterConfig", map[string]any{
			"uuidList": []string{}, "errorcode": 530, "cserrorcode": 4250,
			"errortext": "Config not found for Kubernetes cluster : c1",
		})
	})
	c := newTestClient(t, fake.start().URL)

	_, err := c.GetKubernetesClusterConfig(t.Context(), "c-1")
	var e *Error
	if !errors.As(err, &e) || e.Kind() != KindBusiness || e.CSErrorCode != 4250 || e.Text != "Config not found for Kubernetes cluster : c1" {
		t.Fatalf("err = %#v", err)
	}
	if n := fake.callCount("getKubernetesClusterConfig"); n != 1 {
		t.Fatalf("calls = %d, want 1", n)
	}
}

// pagedHandler serves total items of the named list, checking page and
// pagesize and that listall was sent.
func pagedHandler(t *testing.T, command, key string, total int, item func(i int) map[string]any) commandHandler {
	return func(_ *http.Request, p url.Values) (int, string) {
		page, _ := strconv.Atoi(p.Get("page"))
		size, _ := strconv.Atoi(p.Get("pagesize"))
		if size != 500 || page < 1 {
			t.Errorf("%s: page=%q pagesize=%q", command, p.Get("page"), p.Get("pagesize"))
			return 431, envelope(command, map[string]any{"errorcode": 431, "errortext": "bad paging"})
		}
		if p.Get("listall") != "true" {
			t.Errorf("%s: listall not sent", command)
		}
		var items []map[string]any
		for i := (page - 1) * size; i < min(page*size, total); i++ {
			items = append(items, item(i))
		}
		inner := map[string]any{"count": total}
		if len(items) > 0 {
			inner[key] = items
		}
		return http.StatusOK, envelope(command, inner)
	}
}

func TestPaginationThreePages(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listKubernetesClusters", pagedHandler(t, "listKubernetesClusters", "kubernetescluster", 1100,
		func(i int) map[string]any { return map[string]any{"id": fmt.Sprintf("c-%04d", i), "name": "n"} }))
	fake.handle("listFirewallRules", pagedHandler(t, "listFirewallRules", "firewallrule", 1100,
		func(i int) map[string]any {
			return map[string]any{"id": fmt.Sprintf("fw-%04d", i), "startport": 2222, "endport": 2222, "protocol": "tcp"}
		}))
	c := newTestClient(t, fake.start().URL)

	clusters, err := c.ListKubernetesClusters(t.Context(), ListClustersParams{ListAll: true})
	if err != nil {
		t.Fatalf("ListKubernetesClusters: %v", err)
	}
	rules, err := c.ListFirewallRules(t.Context(), ListRulesParams{ListAll: true})
	if err != nil {
		t.Fatalf("ListFirewallRules: %v", err)
	}
	if len(clusters) != 1100 || len(rules) != 1100 {
		t.Fatalf("got %d clusters and %d rules, want 1100 each", len(clusters), len(rules))
	}
	for i := range 1100 {
		if clusters[i].ID != fmt.Sprintf("c-%04d", i) || rules[i].ID != fmt.Sprintf("fw-%04d", i) {
			t.Fatalf("item %d out of order: %s %s", i, clusters[i].ID, rules[i].ID)
		}
	}
	for _, cmd := range []string{"listKubernetesClusters", "listFirewallRules"} {
		reqs := fake.recorded(cmd)
		if len(reqs) != 3 {
			t.Fatalf("%s: %d requests, want 3", cmd, len(reqs))
		}
		for i, r := range reqs {
			if r.params.Get("page") != strconv.Itoa(i+1) {
				t.Errorf("%s request %d asked page %s", cmd, i, r.params.Get("page"))
			}
		}
	}
}

func TestPaginationEmptyList(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listKubernetesClusters", okJSON("listKubernetesClusters", map[string]any{}))
	c := newTestClient(t, fake.start().URL)

	clusters, err := c.ListKubernetesClusters(t.Context(), ListClustersParams{})
	if err != nil || len(clusters) != 0 {
		t.Fatalf("clusters=%v err=%v", clusters, err)
	}
	if n := fake.callCount("listKubernetesClusters"); n != 1 {
		t.Fatalf("calls = %d", n)
	}
}

// clusterFixture is a listKubernetesClusters response in the shape of 4.22:
// one etcd node, one control node, one worker and one external node.
const clusterFixture = `{"listkubernetesclustersresponse":{"count":1,"kubernetescluster":[{
 "id":"c-1","name":"prod","description":"prod cluster","zoneid":"z-1","zonename":"Zone1",
 "kubernetesversionid":"v-1","kubernetesversionname":"v1.33.1","serviceofferingid":"so-1",
 "controlofferingid":"so-c","workerofferingid":"so-w","etcdofferingid":"so-e","templateid":"t-1",
 "networkid":"n-1","account":"admin","domainid":"d-1","keypair":"kp","masternodes":1,"controlnodes":1,
 "etcdnodes":"1","size":1,"state":"Running","cpunumber":"8","memory":"8192",
 "endpoint":"https://203.0.113.10:6443/","ipaddress":"203.0.113.10","ipaddressid":"ip-1",
 "etcdips":{"ip-1":"203.0.113.10"},"autoscalingenabled":false,"minsize":0,"maxsize":0,
 "clustertype":"CloudManaged","created":"2024-06-05T07:51:22+0000",
 "virtualmachines":[
  {"id":"vm-e","name":"prod-etcd-1-18fe761907b","displayname":"prod-etcd-1-18fe761907b","state":"Running",
   "created":"2024-06-05T07:51:30+0000","vmtype":"cksnode","serviceofferingid":"so-e","isetcdnode":true,
   "isexternalnode":false,"nic":[{"ipaddress":"10.1.1.9","networkid":"n-1","isdefault":true}]},
  {"id":"vm-c","name":"prod-control-18fe761907c","displayname":"prod-control-18fe761907c","state":"Running",
   "created":"2024-06-05T07:52:00+0000","isetcdnode":false,"isexternalnode":false,"kubernetesnodeversion":"1.33.1",
   "nic":[{"ipaddress":"192.168.0.5","networkid":"n-2","isdefault":false},{"ipaddress":"10.1.1.10","networkid":"n-1","isdefault":true}]},
  {"id":"vm-w","name":"prod-node-18fe761907d","displayname":"prod-node-18fe761907d","state":"Stopped",
   "created":"2024-06-05T07:53:00+0000","ipaddress":"10.1.1.11","kubernetesnodeversion":"1.33.1"},
  {"id":"vm-x","name":"external-1","displayname":"external-1","state":"Running","isexternalnode":"true"}
 ]}]}}`

func TestDecodeClustersWithEtcdAndExternalNodes(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listKubernetesClusters", func(*http.Request, url.Values) (int, string) { return 200, clusterFixture })
	c := newTestClient(t, fake.start().URL)

	cl, err := c.GetKubernetesCluster(t.Context(), "c-1")
	if err != nil {
		t.Fatalf("GetKubernetesCluster: %v", err)
	}
	req := fake.recorded("listKubernetesClusters")[0].params
	if req.Get("id") != "c-1" || req.Get("listall") != "true" {
		t.Errorf("request params = %v", req)
	}
	want := Cluster{
		ID: "c-1", Name: "prod", Description: "prod cluster", ZoneID: "z-1", ZoneName: "Zone1",
		KubernetesVersionID: "v-1", KubernetesVersionName: "v1.33.1", ServiceOfferingID: "so-1",
		ControlOfferingID: "so-c", WorkerOfferingID: "so-w", EtcdOfferingID: "so-e", TemplateID: "t-1",
		NetworkID: "n-1", Account: "admin", DomainID: "d-1", Keypair: "kp", ControlNodes: 1, EtcdNodes: 1, Size: 1,
		State: "Running", Endpoint: "https://203.0.113.10:6443/", IPAddress: "203.0.113.10", IPAddressID: "ip-1",
		ClusterType: "CloudManaged", Cores: 8, Memory: 8192, Created: "2024-06-05T07:51:22+0000",
	}
	gotTop := *cl
	gotTop.VirtualMachines = nil
	if !reflect.DeepEqual(gotTop, want) {
		t.Errorf("cluster =\n%+v\nwant\n%+v", gotTop, want)
	}
	// In the order CKS made them (created, then name); a VM without a
	// created time first.
	wantVMs := []ClusterVM{
		{ID: "vm-x", Name: "external-1", DisplayName: "external-1", State: "Running", IsExternalNode: true},
		{ID: "vm-e", Name: "prod-etcd-1-18fe761907b", DisplayName: "prod-etcd-1-18fe761907b", State: "Running",
			Created: "2024-06-05T07:51:30+0000", IPAddress: "10.1.1.9", ServiceOfferingID: "so-e", IsEtcdNode: true},
		{ID: "vm-c", Name: "prod-control-18fe761907c", DisplayName: "prod-control-18fe761907c", State: "Running",
			Created: "2024-06-05T07:52:00+0000", IPAddress: "10.1.1.10", KubernetesNodeVersion: "1.33.1"},
		{ID: "vm-w", Name: "prod-node-18fe761907d", DisplayName: "prod-node-18fe761907d", State: "Stopped",
			Created: "2024-06-05T07:53:00+0000", IPAddress: "10.1.1.11", KubernetesNodeVersion: "1.33.1"},
	}
	if len(cl.VirtualMachines) != len(wantVMs) {
		t.Fatalf("VMs = %+v", cl.VirtualMachines)
	}
	for i := range wantVMs {
		if cl.VirtualMachines[i] != wantVMs[i] {
			t.Errorf("VM %d =\n%+v\nwant\n%+v", i, cl.VirtualMachines[i], wantVMs[i])
		}
	}
}

func TestListKubernetesClustersFilters(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listKubernetesClusters", func(*http.Request, url.Values) (int, string) { return 200, clusterFixture })
	c := newTestClient(t, fake.start().URL)

	clusters, err := c.ListKubernetesClusters(t.Context(), ListClustersParams{
		Ownership: Ownership{Account: "acct", DomainID: "d-1", ProjectID: "p-1"}, Name: "prod", Keyword: "pro",
	})
	if err != nil || len(clusters) != 1 || clusters[0].EtcdNodes != 1 || len(clusters[0].VirtualMachines) != 4 {
		t.Fatalf("clusters = %+v, err = %v", clusters, err)
	}
	p := fake.recorded("listKubernetesClusters")[0].params
	for k, want := range map[string]string{"account": "acct", "domainid": "d-1", "projectid": "p-1", "name": "prod",
		"keyword": "pro", "page": "1", "pagesize": "500"} {
		if p.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, p.Get(k), want)
		}
	}
	if p.Has("listall") || p.Has("id") {
		t.Errorf("unset filters were sent: %v", p)
	}
}

func TestRequestTimeoutIsRetriedForReads(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", func(r *http.Request, _ url.Values) (int, string) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return 200, `{}`
	})
	// Long enough for every attempt to reach the server on a loaded
	// machine: an attempt that times out before it does is not counted.
	c := newTestClient(t, fake.start().URL, func(cfg *Config) { cfg.RequestTimeout = 250 * time.Millisecond })

	_, err := c.ListZones(t.Context())
	if !IsTransient(err) || !IsRequestTimeout(err) {
		t.Fatalf("err = %v, want a transient request timeout", err)
	}
	// The per-request timeout is not the caller's deadline.
	if errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "per-request timeout of 250ms") {
		t.Fatalf("err = %v, want it told apart from the caller's deadline", err)
	}
	if d := DeliveryOf(err); d != DeliverySentUnanswered {
		t.Fatalf("delivery = %v, want sent_unanswered", d)
	}
	if n := fake.callCount("listZones"); n != 4 {
		t.Fatalf("calls = %d, want 4 attempts", n)
	}
}

func TestDecodePortForwardingStringPorts(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listPortForwardingRules", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("ipaddressid") != "ip-1" || p.Get("networkid") != "n-1" {
			t.Errorf("filters = %v", p)
		}
		return 200, `{"listportforwardingrulesresponse":{"count":2,"portforwardingrule":[
 {"id":"pf-1","privateport":"22","privateendport":"22","publicport":"2222","publicendport":"2222","protocol":"tcp",
  "virtualmachineid":"vm-c","virtualmachinename":"prod-control-18fe761907c","ipaddressid":"ip-1",
  "ipaddress":"203.0.113.10","networkid":"n-1","vmguestip":"10.1.1.10","state":"Active","cidrlist":""},
 {"id":"pf-2","privateport":"22","privateendport":"","publicport":"50000","publicendport":"50000","protocol":"tcp",
  "virtualmachineid":"vm-e","ipaddressid":"ip-1","networkid":"n-1","state":"Active","cidrlist":"10.0.0.0/8, 192.168.0.0/16"}]}}`
	})
	c := newTestClient(t, fake.start().URL)

	rules, err := c.ListPortForwardingRules(t.Context(), ListRulesParams{IPAddressID: "ip-1", NetworkID: "n-1"})
	if err != nil {
		t.Fatalf("ListPortForwardingRules: %v", err)
	}
	want0 := PortForwardingRule{ID: "pf-1", Protocol: "tcp", PublicPort: 2222, PublicEndPort: 2222, PrivatePort: 22,
		PrivateEndPort: 22, VirtualMachineID: "vm-c", VirtualMachineName: "prod-control-18fe761907c", VMGuestIP: "10.1.1.10",
		IPAddressID: "ip-1", IPAddress: "203.0.113.10", NetworkID: "n-1", State: "Active"}
	if len(rules) != 2 {
		t.Fatalf("rules = %+v", rules)
	}
	got0 := rules[0]
	if got0.CIDRList != nil {
		t.Errorf("empty cidrlist decoded as %v", got0.CIDRList)
	}
	got0.CIDRList = nil
	if !reflect.DeepEqual(got0, want0) {
		t.Errorf("rule 0 = %+v\nwant %+v", got0, want0)
	}
	if r := rules[1]; r.PublicPort != 50000 || r.PrivatePort != 22 || r.PrivateEndPort != 0 ||
		strings.Join(r.CIDRList, "|") != "10.0.0.0/8|192.168.0.0/16" {
		t.Errorf("rule 1 = %+v", r)
	}
}

func TestGetKubernetesClusterNotFound(t *testing.T) {
	t.Parallel()
	const gone = "0b6a5e2c-1b1e-4f1c-9d55-2f0a3f1d1c11"
	fake := newFakeCloudStack(t)
	fake.handle("listKubernetesClusters", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("id") == gone { // removed: the id resolves and the list is empty
			return 200, `{"listkubernetesclustersresponse":{}}`
		}
		return 431, envelope("listKubernetesClusters", map[string]any{
			"uuidList": []string{}, "errorcode": 431, "cserrorcode": 4350,
			"errortext": "Invalid parameter id value=" + p.Get("id") + " due to incorrect long value format, " +
				"or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.",
		})
	})
	c := newTestClient(t, fake.start().URL)

	for _, id := range []string{gone, "11111111-2222-3333-4444-555555555555"} {
		cl, err := c.GetKubernetesCluster(t.Context(), id)
		if cl != nil || !IsNotFound(err) {
			t.Fatalf("id %s: cluster=%v err=%v, want not found", id, cl, err)
		}
		if !strings.Contains(err.Error(), id) {
			t.Errorf("message does not name the id: %s", err)
		}
	}
	// The removed id is asked once per scope (accounts, then projects); the
	// 431 ends the read at once. Nothing is retried.
	if n := fake.callCount("listKubernetesClusters"); n != 3 {
		t.Errorf("not-found reads made %d calls, want 3", n)
	}
}

func TestClientReadCalls(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listCapabilities", okJSON("listCapabilities", map[string]any{
		"capability": map[string]any{"cloudstackversion": "4.22.1.1", "kubernetesserviceenabled": true},
	}))
	fake.handle("getKubernetesClusterConfig", okJSON("getKubernetesClusterConfig", map[string]any{
		"clusterconfig": map[string]any{"id": "c-1", "name": "prod", "configdata": "apiVersion: v1\nkind: Config\n"},
	}))
	fake.handle("listVirtualMachines", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("ids") != "vm-1,vm-2" || p.Get("projectid") != "p-1" {
			t.Errorf("listVirtualMachines params = %v", p)
		}
		return 200, envelope("listVirtualMachines", map[string]any{"count": 1, "virtualmachine": []map[string]any{{
			"id": "vm-1", "name": "prod-node-1", "displayname": "prod-node-1", "state": "Running", "vmtype": "cksnode",
			"zoneid": "z-1", "account": "admin", "domainid": "d-1", "projectid": "p-1",
			"nic": []map[string]any{{"ipaddress": "10.0.0.5", "networkid": "n-1", "isdefault": true}, {"networkid": "n-2"}},
		}}})
	})
	fake.handle("listPublicIpAddresses", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("issourcenat") != "true" || p.Get("associatednetworkid") != "n-1" {
			t.Errorf("listPublicIpAddresses params = %v", p)
		}
		return 200, envelope("listPublicIpAddresses", map[string]any{"count": 1, "publicipaddress": []map[string]any{{
			"id": "ip-1", "ipaddress": "203.0.113.10", "issourcenat": true, "associatednetworkid": "n-1", "zoneid": "z-1", "state": "Allocated",
		}}})
	})
	fake.handle("listNetworks", okJSON("listNetworks", map[string]any{"count": 1, "network": []map[string]any{{
		"id": "n-1", "name": "net", "type": "Isolated", "state": "Implemented", "zoneid": "z-1",
	}}}))
	fake.handle("listLoadBalancerRules", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("publicipid") != "ip-1" {
			t.Errorf("listLoadBalancerRules params = %v", p)
		}
		return 200, envelope("listLoadBalancerRules", map[string]any{"count": 1, "loadbalancerrule": []map[string]any{{
			"id": "lb-1", "name": "api-lb", "protocol": "tcp", "publicport": "6443", "privateport": "6443",
			"algorithm": "roundrobin", "publicipid": "ip-1", "publicip": "203.0.113.10", "networkid": "n-1", "state": "Active",
		}}})
	})
	fake.handle("listServiceOfferings", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("name") != "Medium" || p.Get("zoneid") != "z-1" {
			t.Errorf("listServiceOfferings params = %v", p)
		}
		return 200, envelope("listServiceOfferings", map[string]any{"count": 1,
			"serviceoffering": []map[string]any{{"id": "so-1", "name": "Medium", "cpunumber": 2, "memory": 4096}}})
	})
	fake.handle("listProjects", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("name") != "team" || p.Get("listall") != "true" {
			t.Errorf("listProjects params = %v", p)
		}
		return 200, envelope("listProjects", map[string]any{"count": 1,
			"project": []map[string]any{{"id": "p-1", "name": "team", "displaytext": "Team", "state": "Active"}}})
	})
	fake.handle("listKubernetesSupportedVersions", func(_ *http.Request, p url.Values) (int, string) {
		if p.Get("zoneid") != "z-1" {
			t.Errorf("zoneid = %q", p.Get("zoneid"))
		}
		return 200, envelope("listKubernetesSupportedVersions", map[string]any{"count": 1, "kubernetessupportedversion": []map[string]any{{
			"id": "v-1", "name": "v1.33.1", "semanticversion": "1.33.1", "zoneid": "z-1", "state": "Enabled",
			"isostate": "Ready", "mincpunumber": 2, "minmemory": 2048, "supportsha": true, "supportsautoscaling": true,
		}}})
	})
	c := newTestClient(t, fake.start().URL)
	ctx := t.Context()

	if v, err := c.CloudStackVersion(ctx); err != nil || v != "4.22.1.1" {
		t.Errorf("CloudStackVersion = %q, %v", v, err)
	}
	if cfg, err := c.GetKubernetesClusterConfig(ctx, "c-1"); err != nil || cfg != "apiVersion: v1\nkind: Config\n" {
		t.Errorf("GetKubernetesClusterConfig = %q, %v", cfg, err)
	}
	vms, err := c.ListVirtualMachines(ctx, ListVMsParams{IDs: []string{"vm-1", "vm-2"}, Ownership: Ownership{ProjectID: "p-1"}})
	wantVM := VirtualMachine{ID: "vm-1", Name: "prod-node-1", DisplayName: "prod-node-1", State: "Running", VMType: "cksnode",
		Account: "admin", DomainID: "d-1", ProjectID: "p-1", ZoneID: "z-1", IPAddress: "10.0.0.5", DefaultNetworkID: "n-1"}
	if err != nil || len(vms) != 1 || strings.Join(vms[0].NetworkIDs, ",") != "n-1,n-2" {
		t.Fatalf("ListVirtualMachines = %+v, %v", vms, err)
	}
	vms[0].NetworkIDs = nil
	if !reflect.DeepEqual(vms[0], wantVM) {
		t.Errorf("VM = %+v", vms[0])
	}
	srcNat := true
	ips, err := c.ListPublicIPAddresses(ctx, ListPublicIPParams{AssociatedNetworkID: "n-1", IsSourceNat: &srcNat})
	if err != nil || len(ips) != 1 || ips[0] != (PublicIPAddress{ID: "ip-1", IPAddress: "203.0.113.10", IsSourceNat: true,
		AssociatedNetworkID: "n-1", ZoneID: "z-1", State: "Allocated"}) {
		t.Errorf("ListPublicIPAddresses = %+v, %v", ips, err)
	}
	nets, err := c.ListNetworks(ctx, ListNetworksParams{ID: "n-1"})
	if err != nil || len(nets) != 1 || nets[0] != (Network{ID: "n-1", Name: "net", Type: "Isolated", State: "Implemented", ZoneID: "z-1"}) {
		t.Errorf("ListNetworks = %+v, %v", nets, err)
	}
	lbs, err := c.ListLoadBalancerRules(ctx, ListRulesParams{IPAddressID: "ip-1"})
	if err != nil || len(lbs) != 1 || lbs[0] != (LoadBalancerRule{ID: "lb-1", Name: "api-lb", Protocol: "tcp", PublicPort: 6443,
		PrivatePort: 6443, Algorithm: "roundrobin", PublicIPID: "ip-1", PublicIP: "203.0.113.10", NetworkID: "n-1", State: "Active"}) {
		t.Errorf("ListLoadBalancerRules = %+v, %v", lbs, err)
	}
	offs, err := c.ListServiceOfferings(ctx, ListServiceOfferingsParams{Name: "Medium", ZoneID: "z-1"})
	if err != nil || len(offs) != 1 || offs[0] != (ServiceOffering{ID: "so-1", Name: "Medium", CPUNumber: 2, Memory: 4096}) {
		t.Errorf("ListServiceOfferings = %+v, %v", offs, err)
	}
	versions, err := c.ListKubernetesSupportedVersions(ctx, "z-1")
	if err != nil || len(versions) != 1 || versions[0] != (KubernetesVersion{ID: "v-1", Name: "v1.33.1", SemanticVersion: "1.33.1",
		ZoneID: "z-1", State: "Enabled", ISOState: "Ready", MinCPUNumber: 2, MinMemory: 2048, SupportsHA: true, SupportsAutoscaling: true}) {
		t.Errorf("ListKubernetesSupportedVersions = %+v, %v", versions, err)
	}
	if n := fake.recorded("listNetworks")[0].params.Get("listall"); n != "true" {
		t.Errorf("listNetworks listall = %q", n)
	}
	prjs, err := c.ListProjects(ctx, ListProjectsParams{Name: "team"})
	if err != nil || len(prjs) != 1 || prjs[0] != (Project{ID: "p-1", Name: "team", DisplayText: "Team", State: "Active"}) {
		t.Errorf("ListProjects = %+v, %v", prjs, err)
	}
	if _, err := c.ListNetworks(ctx, ListNetworksParams{Keyword: "net", ZoneID: "z-1", ProjectID: "p-1"}); err != nil {
		t.Fatal(err)
	}
	if p := fake.recorded("listNetworks")[1].params; p.Get("keyword") != "net" || p.Get("zoneid") != "z-1" || p.Get("projectid") != "p-1" {
		t.Errorf("listNetworks params = %v", p)
	}
}

func TestClientAsyncCalls(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	for _, cmd := range []string{"scaleKubernetesCluster", "upgradeKubernetesCluster", "startKubernetesCluster",
		"stopKubernetesCluster", "deleteKubernetesCluster", "deleteFirewallRule", "deletePortForwardingRule"} {
		fake.handle(cmd, okJSON(cmd, map[string]any{"jobid": "job-" + cmd}))
	}
	fake.handle("createPortForwardingRule", okJSON("createPortForwardingRule", map[string]any{"id": "pf-9", "jobid": "job-pf"}))
	c := newTestClient(t, fake.start().URL)
	ctx := t.Context()

	size, auto := int64(3), false
	checks := []struct {
		command string
		run     func() (AsyncRef, error)
		want    AsyncRef
	}{
		{"scaleKubernetesCluster", func() (AsyncRef, error) {
			return c.ScaleKubernetesCluster(ctx, ScaleClusterParams{ID: "c-1", Size: &size, AutoscalingEnabled: &auto})
		}, AsyncRef{JobID: "job-scaleKubernetesCluster"}},
		{"upgradeKubernetesCluster", func() (AsyncRef, error) { return c.UpgradeKubernetesCluster(ctx, "c-1", "v-2") },
			AsyncRef{JobID: "job-upgradeKubernetesCluster"}},
		{"startKubernetesCluster", func() (AsyncRef, error) { return c.StartKubernetesCluster(ctx, "c-1") },
			AsyncRef{JobID: "job-startKubernetesCluster"}},
		{"stopKubernetesCluster", func() (AsyncRef, error) { return c.StopKubernetesCluster(ctx, "c-1") },
			AsyncRef{JobID: "job-stopKubernetesCluster"}},
		{"deleteKubernetesCluster", func() (AsyncRef, error) { return c.DeleteKubernetesCluster(ctx, "c-1") },
			AsyncRef{JobID: "job-deleteKubernetesCluster"}},
		{"deleteFirewallRule", func() (AsyncRef, error) { return c.DeleteFirewallRule(ctx, "fw-1") },
			AsyncRef{JobID: "job-deleteFirewallRule"}},
		{"deletePortForwardingRule", func() (AsyncRef, error) { return c.DeletePortForwardingRule(ctx, "pf-1") },
			AsyncRef{JobID: "job-deletePortForwardingRule"}},
		{"createPortForwardingRule", func() (AsyncRef, error) {
			return c.CreatePortForwardingRule(ctx, CreatePortForwardingRuleParams{IPAddressID: "ip-1", Protocol: "tcp",
				PublicPort: 2222, PrivatePort: 22, VirtualMachineID: "vm-1", NetworkID: "n-1"})
		}, AsyncRef{ID: "pf-9", JobID: "job-pf"}},
	}
	for _, ch := range checks {
		got, err := ch.run()
		if err != nil || got != ch.want {
			t.Errorf("%s = %+v, %v; want %+v", ch.command, got, err, ch.want)
		}
		if m := fake.recorded(ch.command)[0].method; m != http.MethodPost {
			t.Errorf("%s sent as %s", ch.command, m)
		}
	}
	scale := fake.recorded("scaleKubernetesCluster")[0].params
	if scale.Get("size") != "3" || scale.Get("autoscalingenabled") != "false" || scale.Has("minsize") || scale.Has("nodeids") {
		t.Errorf("scale params = %v", scale)
	}
	pf := fake.recorded("createPortForwardingRule")[0].params
	if pf.Get("openfirewall") != "false" || pf.Get("publicport") != "2222" || pf.Get("privateport") != "22" || pf.Has("publicendport") {
		t.Errorf("createPortForwardingRule params = %v", pf)
	}
	if up := fake.recorded("upgradeKubernetesCluster")[0].params; up.Get("kubernetesversionid") != "v-2" {
		t.Errorf("upgrade params = %v", up)
	}
}

func TestTLSVerification(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	srv := httptest.NewUnstartedServer(fake)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)

	// Self-signed: refused by default, and not retried (not transient).
	strict := newTestClient(t, srv.URL)
	_, err := strict.ListZones(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("expected a certificate error, got %v", err)
	}
	if IsTransient(err) {
		t.Errorf("a certificate error must not be transient")
	}
	if fake.callCount("listZones") != 0 {
		t.Errorf("the request reached the server despite the bad certificate")
	}

	insecure := newTestClient(t, srv.URL, func(c *Config) { c.Insecure = true })
	if _, err := insecure.ListZones(t.Context()); err != nil {
		t.Fatalf("Insecure: %v", err)
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	withCA := newTestClient(t, srv.URL, func(c *Config) { c.CAFile = caFile })
	if _, err := withCA.ListZones(t.Context()); err != nil {
		t.Fatalf("CAFile: %v", err)
	}
}

func TestNewConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := Config{APIURL: "https://cloud.example.com/client/api", APIKey: "k", SecretKey: "s3cr3t-value"}
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"missing CA file", func(c *Config) { c.CAFile = filepath.Join(dir, "absent.pem") }, "reading CA file"},
		{"invalid CA file", func(c *Config) { c.CAFile = garbage }, "contains no valid PEM certificate"},
		{"empty URL", func(c *Config) { c.APIURL = "" }, "API URL is empty"},
		{"relative URL", func(c *Config) { c.APIURL = "cloud.example.com/client/api" }, "not an absolute http(s) URL"},
		{"no keys", func(c *Config) { c.APIKey, c.SecretKey = "", "" }, "API key is empty; the secret key is empty"},
	}
	for _, tc := range cases {
		cfg := base
		tc.mutate(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t-value") {
			t.Errorf("%s: the secret leaked: %v", tc.name, err)
		}
	}
	if _, err := New(base); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestTransportErrorIsTransientAndRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there any more

	c := newTestClient(t, addr+"/client/api")
	_, err := c.ListZones(t.Context())
	if !IsTransient(err) {
		t.Fatalf("connection refused should be transient: %v", err)
	}
	msg := err.Error()
	for _, s := range []string{testAPIKey, testSecretKey, "signature", "apiKey"} {
		if strings.Contains(msg, s) {
			t.Errorf("message contains %q: %s", s, msg)
		}
	}
	var e *Error
	if errors.As(err, &e) && e.Err != nil && strings.Contains(e.Err.Error(), testAPIKey) {
		t.Errorf("wrapped error contains the API key: %v", e.Err)
	}
}

func TestNonCloudStackResponses(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>login</html>"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	_, err := newTestClient(t, srv.URL+"/html").ListZones(t.Context())
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != 200 || !strings.Contains(e.Text, "cannot decode") || e.Kind() != KindOther {
		t.Errorf("HTML 200: %#v", err)
	}
	_, err = newTestClient(t, srv.URL+"/missing").ListZones(t.Context())
	if !errors.As(err, &e) || e.HTTPStatus != 404 || !strings.Contains(e.Text, "API URL") || e.Kind() != KindOther {
		t.Errorf("404: %#v", err)
	}
}

func TestCancelledCallReturnsPromptly(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("queryAsyncJobResult", func(r *http.Request, _ url.Values) (int, string) {
		select { // hang until the client goes away
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return 200, `{}`
	})
	c := newTestClient(t, fake.start().URL)

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := WaitForJob(ctx, c, "job-1", WaitOptions{Unit: time.Millisecond})
		errc <- err
	}()
	for fake.callCount("queryAsyncJobResult") == 0 {
		time.Sleep(time.Millisecond)
	}
	cancelled := time.Now()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("WaitForJob did not return within 30 s of the cancel at %s", cancelled.Format(time.TimeOnly))
	}
}

func TestLogsNeverContainSecrets(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	fake.handle("getKubernetesClusterConfig", okJSON("getKubernetesClusterConfig", map[string]any{
		"clusterconfig": map[string]any{"configdata": "KUBECONFIG-SECRET-DATA"},
	}))
	fake.failNext("listZones", 503)
	srv := fake.start()

	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(t.Context(), &buf)
	c := newTestClient(t, srv.URL)
	if _, err := c.ListZones(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetKubernetesClusterConfig(ctx, "c-1"); err != nil {
		t.Fatal(err)
	}
	bad := newTestClient(t, srv.URL, func(cfg *Config) { cfg.SecretKey = "another-secret-1234" })
	_, _ = bad.ListZones(ctx)

	logs := buf.String()
	for _, s := range []string{testAPIKey, testSecretKey, "another-secret-1234", "signature=", "KUBECONFIG-SECRET-DATA"} {
		if strings.Contains(logs, s) {
			t.Errorf("logs contain %q", s)
		}
	}
	entries, err := tflogtest.MultilineJSONDecode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var sawRetry, sawSuccess, sawPage bool
	for _, e := range entries {
		switch e["@message"] {
		case "CloudStack API call failed":
			sawRetry = sawRetry || (e["cloudstack_command"] == "listZones" && e["http_status"] == float64(503))
		case "CloudStack API call succeeded":
			sawSuccess = sawSuccess || (e["cloudstack_command"] == "listZones" && e["attempt"] == float64(2) && e["duration_ms"] != nil)
		case "CloudStack list page":
			sawPage = sawPage || e["count"] == float64(1)
		}
	}
	if !sawRetry || !sawSuccess || !sawPage {
		t.Errorf("missing debug lines (failed=%v succeeded=%v page=%v) in:\n%s", sawRetry, sawSuccess, sawPage, logs)
	}
}
