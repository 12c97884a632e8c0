package simulator

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

// sharedSpareIP is an address of the Shared network outside its guest IP
// range, free for an external load balancer.
func sharedSpareIP(t *testing.T, info Info, host byte) string {
	t.Helper()
	p := netip.MustParsePrefix(info.SharedNetworkCIDR)
	a := p.Addr().As4()
	a[3] = host
	return netip.AddrFrom4(a).String()
}

// TestSharedNetworkIsListedToEveryAccount: the seeded Shared network is
// domain-wide, in the loopback /24 Info names, with no source NAT IP.
func TestSharedNetworkIsListedToEveryAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	for _, cs := range []struct {
		name string
		list func() (int, string, string)
	}{
		{"admin", func() (int, string, string) { return listNetworkType(t, e.cs.Network, e.info.SharedNetworkID) }},
		{"tenant", func() (int, string, string) {
			return listNetworkType(t, e.tenantClient().Network, e.info.SharedNetworkID)
		}},
	} {
		count, typ, cidr := cs.list()
		if count != 1 || typ != "Shared" || cidr != e.info.SharedNetworkCIDR {
			t.Errorf("%s: count %d type %q cidr %q, want 1 Shared %s", cs.name, count, typ, cidr, e.info.SharedNetworkCIDR)
		}
	}
	if e.info.SharedNetworkCIDR == e.info.PublicIPBlock {
		t.Fatalf("shared network and public IPs share %s", e.info.PublicIPBlock)
	}
}

// TestCreateOnSharedNetworkReachesNodesDirectly: no public IP, no rules,
// VMs in the shared range, endpoint on the first control VM, SSH on every
// node's own address port 22, and delete leaves nothing behind.
func TestCreateOnSharedNetworkReachesNodesDirectly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	p := e.createParams("shared", 1)
	p.SetNetworkid(e.info.SharedNetworkID)
	before := e.sim.DumpState()
	id := e.createCluster(p)

	cl := e.cluster(id)
	if cl.Ipaddress != "" || cl.Ipaddressid != "" {
		t.Errorf("ipaddress %q ipaddressid %q on a Shared network", cl.Ipaddress, cl.Ipaddressid)
	}
	shared := netip.MustParsePrefix(e.info.SharedNetworkCIDR)
	var controlIP string
	for _, v := range cl.Virtualmachines {
		if len(v.Nic) != 1 || !shared.Contains(netip.MustParseAddr(v.Nic[0].Ipaddress)) {
			t.Fatalf("VM %s NICs %+v, want one address in %s", v.Name, v.Nic, shared)
		}
		ip := v.Nic[0].Ipaddress
		if strings.Contains(v.Name, "-control-") {
			controlIP = ip
		}
		// Every node answers on its own address; only control nodes run kubectl.
		out, err := sshTry(e, id, ip, 22, "kubectl get nodes --no-headers")
		if strings.Contains(v.Name, "-control-") && (err != nil || strings.Count(out, "Ready") != 2) {
			t.Errorf("kubectl over ssh %s:22: %q %v", ip, out, err)
		}
		if err != nil && !strings.Contains(err.Error(), "status") {
			t.Errorf("ssh %s:22: %v", ip, err)
		}
	}
	if want := "https://" + controlIP + ":6443/"; cl.Endpoint != want {
		t.Errorf("endpoint %q, want %q", cl.Endpoint, want)
	}
	after := e.sim.DumpState()
	if len(after.Rules) != len(before.Rules) || len(after.PublicIPs) != len(before.PublicIPs) {
		t.Errorf("rules %d -> %d, public IPs %d -> %d: a Shared network has none", len(before.Rules), len(after.Rules),
			len(before.PublicIPs), len(after.PublicIPs))
	}

	e.mustSucceed(e.scale(id, 2))
	if got := len(e.cluster(id).Virtualmachines); got != 3 {
		t.Fatalf("after scale to 2: %d VMs", got)
	}
	e.mustSucceed(e.scale(id, 1))
	if d := e.sim.DumpState(); len(d.Rules) != len(before.Rules) {
		t.Errorf("scaling changed the rules: %d -> %d", len(before.Rules), len(d.Rules))
	}

	r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	d := e.sim.DumpState()
	for _, v := range d.VMs {
		if v.ClusterID == id && v.State != "Expunging" && v.State != "Destroyed" {
			t.Errorf("VM %s left in %s", v.Name, v.State)
		}
	}
	if len(d.Rules) != len(before.Rules) || len(d.PublicIPs) != len(before.PublicIPs) || len(d.Networks) != len(before.Networks) {
		t.Errorf("delete left rules/IPs/networks: %d/%d/%d, want %d/%d/%d", len(d.Rules), len(d.PublicIPs), len(d.Networks),
			len(before.Rules), len(before.PublicIPs), len(before.Networks))
	}
	if _, err := sshTry(e, id, controlIP, 22, "kubectl get nodes"); err == nil {
		t.Error("the control VM still answers SSH after delete")
	}
}

// TestCreateOnSharedNetworkWithExternalLB: the address is stored (never
// returned), becomes the endpoint, and HA needs it.
func TestCreateOnSharedNetworkWithExternalLB(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	lb := sharedSpareIP(t, e.info, 200)

	v := url.Values{"name": {"ha"}, "zoneid": {e.info.ZoneID}, "kubernetesversionid": {e.info.KubernetesVersions["1.33.13"]},
		"serviceofferingid": {e.info.ServiceOfferingID}, "size": {"1"}, "controlnodes": {"2"},
		"networkid": {e.info.SharedNetworkID}}
	status, body := e.adminCall("createKubernetesCluster", v)
	text := asStr(t, asObj(t, body["createkubernetesclusterresponse"])["errortext"])
	if status == 200 || !strings.Contains(text, "Multi-control nodes, HA Kubernetes cluster with Shared network ID: "+e.info.SharedNetworkID+
		" needs an external load balancer IP address") {
		t.Fatalf("HA without external LB: %d %q", status, text)
	}

	p := e.createParams("ha", 1)
	p.SetControlnodes(2)
	p.SetNetworkid(e.info.SharedNetworkID)
	p.SetExternalloadbalanceripaddress(lb)
	id := e.createCluster(p)
	cl := e.cluster(id)
	if want := "https://" + lb + ":6443/"; cl.Endpoint != want || cl.Ipaddress != "" {
		t.Errorf("endpoint %q ipaddress %q, want %q and none", cl.Endpoint, cl.Ipaddress, want)
	}
	for _, dc := range e.sim.DumpState().Clusters {
		if dc.ID == id && dc.ExternalLoadBalancerIP != lb {
			t.Errorf("stored external LB %q, want %q", dc.ExternalLoadBalancerIP, lb)
		}
	}
	_, body = e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	raw := asObj(t, asList(t, asObj(t, body["listkubernetesclustersresponse"])["kubernetescluster"])[0])
	if _, ok := raw["externalloadbalanceripaddress"]; ok {
		t.Error("response carries externalloadbalanceripaddress")
	}
	if out, err := sshTry(e, id, lb, 2222, "kubectl get nodes --no-headers"); err != nil || strings.Count(out, " Ready") != 3 {
		t.Errorf("ssh through the external LB: %q %v", out, err)
	}
	e.mustSucceed(e.scale(id, 2))
	if got := len(e.cluster(id).Virtualmachines); got != 4 {
		t.Errorf("after scale: %d VMs", got)
	}
}

func listNetworkType(t *testing.T, svc cloudstack.NetworkServiceIface, id string) (count int, typ, cidr string) {
	t.Helper()
	p := svc.NewListNetworksParams()
	p.SetId(id)
	r, err := svc.ListNetworks(p)
	if err != nil {
		t.Fatalf("listNetworks: %v", err)
	}
	if r.Count == 0 {
		return 0, "", ""
	}
	return r.Count, r.Networks[0].Type, r.Networks[0].Cidr
}
