package simulator

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// TestConformanceCatalog calls the read-only catalogue commands through
// cloudstack-go.
func TestConformanceCatalog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cs := e.cs

	caps, err := cs.Configuration.ListCapabilities(cs.Configuration.NewListCapabilitiesParams())
	if err != nil || caps.Capabilities.Cloudstackversion != "4.22.1.1" || !caps.Capabilities.Kubernetesserviceenabled {
		t.Fatalf("listCapabilities: %+v %v", caps, err)
	}
	zones, err := cs.Zone.ListZones(cs.Zone.NewListZonesParams())
	if err != nil || zones.Count != 1 || zones.Zones[0].Id != e.info.ZoneID || zones.Zones[0].Networktype != "Advanced" {
		t.Fatalf("listZones: %+v %v", zones, err)
	}
	offs, err := cs.ServiceOffering.ListServiceOfferings(cs.ServiceOffering.NewListServiceOfferingsParams())
	if err != nil || offs.Count != 3 {
		t.Fatalf("listServiceOfferings: %+v %v", offs, err)
	}
	eligible := 0
	for _, o := range offs.ServiceOfferings {
		if o.Cpunumber >= 2 && o.Memory >= 2048 {
			eligible++
		}
	}
	if eligible < 2 {
		t.Fatalf("want at least two eligible offerings, got %d", eligible)
	}
	kps, err := cs.SSH.ListSSHKeyPairs(cs.SSH.NewListSSHKeyPairsParams())
	if err != nil || kps.Count != 1 || kps.SSHKeyPairs[0].Name != "cks-key" ||
		kps.SSHKeyPairs[0].Fingerprint != ssh.FingerprintLegacyMD5(e.sim.PublicKey()) {
		t.Fatalf("listSSHKeyPairs: %+v %v", kps, err)
	}
	pp := cs.Project.NewListProjectsParams()
	pp.SetListall(true)
	prjs, err := cs.Project.ListProjects(pp)
	if err != nil || prjs.Count != 1 || prjs.Projects[0].Id != e.info.ProjectID {
		t.Fatalf("listProjects: %+v %v", prjs, err)
	}
	doms, err := cs.Domain.ListDomains(cs.Domain.NewListDomainsParams())
	if err != nil || doms.Count != 1 || doms.Domains[0].Name != "ROOT" {
		t.Fatalf("listDomains: %+v %v", doms, err)
	}
	ap := cs.Account.NewListAccountsParams()
	ap.SetListall(true)
	accts, err := cs.Account.ListAccounts(ap)
	if err != nil || accts.Count != 2 {
		t.Fatalf("listAccounts: %+v %v", accts, err)
	}
	vers, err := cs.Kubernetes.ListKubernetesSupportedVersions(cs.Kubernetes.NewListKubernetesSupportedVersionsParams())
	if err != nil || vers.Count != 5 {
		t.Fatalf("listKubernetesSupportedVersions: %+v %v", vers, err)
	}
	states := map[string]int{}
	for _, v := range vers.KubernetesSupportedVersions {
		states[v.State]++
		if v.Isostate != "Ready" || v.Semanticversion == "" || "v"+v.Semanticversion != v.Name {
			t.Errorf("version %+v", v)
		}
	}
	if states["Enabled"] != 4 || states["Disabled"] != 1 {
		t.Fatalf("version states %v", states)
	}
	tenantVers, err := e.tenantClient().Kubernetes.ListKubernetesSupportedVersions(cs.Kubernetes.NewListKubernetesSupportedVersionsParams())
	if err != nil || tenantVers.Count != 4 {
		t.Fatalf("tenant listKubernetesSupportedVersions: %+v %v", tenantVers, err)
	}
	nets, err := cs.Network.ListNetworks(cs.Network.NewListNetworksParams())
	if err != nil || nets.Count != 6 { // isolated, four VPC tiers, shared
		t.Fatalf("listNetworks: %+v %v", nets, err)
	}
	ips, err := cs.Address.ListPublicIpAddresses(cs.Address.NewListPublicIpAddressesParams())
	if err != nil || ips.Count != 2 {
		t.Fatalf("listPublicIpAddresses: %+v %v", ips, err)
	}
	for _, ip := range ips.PublicIpAddresses {
		if !strings.HasPrefix(ip.Ipaddress, "127.") || !ip.Issourcenat {
			t.Errorf("seeded IP %+v", ip)
		}
	}
}

// TestConformanceClusterLifecycle drives every cluster, rule and job
// command through cloudstack-go.
func TestConformanceClusterLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cs := e.cs
	p := e.createParams("conformance", 1)
	p.SetNoderootdisksize(20)
	id := e.createCluster(p)

	cl := e.cluster(id)
	if cl.State != model.ClusterRunning || cl.Size != 1 || cl.Controlnodes != 1 || cl.Masternodes != 1 || cl.Etcdnodes != 0 {
		t.Fatalf("cluster after create: %+v", cl)
	}
	if cl.Endpoint != "https://"+cl.Ipaddress+":6443/" || cl.Associatednetworkname != "conformance-network" || cl.Keypair != "cks-key" {
		t.Fatalf("cluster endpoint/network/keypair: %q %q %q", cl.Endpoint, cl.Associatednetworkname, cl.Keypair)
	}
	if cl.Cpunumber != "4" || cl.Memory != "8192" {
		t.Fatalf("cpunumber/memory %q/%q, want 4/8192", cl.Cpunumber, cl.Memory)
	}
	if len(cl.Virtualmachines) != 2 || !strings.HasPrefix(cl.Virtualmachines[0].Name, "conformance-control-") ||
		!strings.HasPrefix(cl.Virtualmachines[1].Name, "conformance-node-") {
		t.Fatalf("cluster VMs: %+v", cl.Virtualmachines)
	}

	byName := cs.Kubernetes.NewListKubernetesClustersParams()
	byName.SetName("conformance")
	if r, err := cs.Kubernetes.ListKubernetesClusters(byName); err != nil || r.Count != 1 {
		t.Fatalf("list by name: %+v %v", r, err)
	}
	byName.SetName("conform")
	if r, err := cs.Kubernetes.ListKubernetesClusters(byName); err != nil || r.Count != 0 {
		t.Fatalf("name must be an exact match: %+v %v", r, err)
	}
	byKeyword := cs.Kubernetes.NewListKubernetesClustersParams()
	byKeyword.SetKeyword("conform")
	if r, err := cs.Kubernetes.ListKubernetesClusters(byKeyword); err != nil || r.Count != 1 {
		t.Fatalf("list by keyword: %+v %v", r, err)
	}

	cfgp := cs.Kubernetes.NewGetKubernetesClusterConfigParams()
	cfgp.SetId(id)
	cfg, err := cs.Kubernetes.GetKubernetesClusterConfig(cfgp)
	if err != nil || cfg.Id != id || cfg.Name != "conformance" || !strings.Contains(cfg.Configdata, "https://"+cl.Ipaddress+":6443") {
		t.Fatalf("getKubernetesClusterConfig: %v (config has server: %v)", err, cfg != nil && strings.Contains(cfg.Configdata, cl.Ipaddress))
	}

	vmp := cs.VirtualMachine.NewListVirtualMachinesParams()
	vmp.SetNetworkid(cl.Networkid)
	vms, err := cs.VirtualMachine.ListVirtualMachines(vmp)
	if err != nil || vms.Count != 2 {
		t.Fatalf("listVirtualMachines: %+v %v", vms, err)
	}
	for _, v := range vms.VirtualMachines {
		if v.Vmtype != "cksnode" || v.State != model.VMRunning || v.Name != v.Displayname || v.Keypairs != "cks-key" ||
			v.Instancename == "" || v.Hostname == "" || len(v.Nic) != 1 || v.Nic[0].Networkid != cl.Networkid {
			t.Errorf("VM %+v", v)
		}
	}

	lbp := cs.LoadBalancer.NewListLoadBalancerRulesParams()
	lbp.SetPublicipid(cl.Ipaddressid)
	lbs, err := cs.LoadBalancer.ListLoadBalancerRules(lbp)
	if err != nil || lbs.Count != 1 || lbs.LoadBalancerRules[0].Name != "api-lb" || lbs.LoadBalancerRules[0].Publicport != "6443" ||
		lbs.LoadBalancerRules[0].Algorithm != "roundrobin" {
		t.Fatalf("listLoadBalancerRules: %+v %v", lbs, err)
	}
	ipp := cs.Address.NewListPublicIpAddressesParams()
	ipp.SetAssociatednetworkid(cl.Networkid)
	ips, err := cs.Address.ListPublicIpAddresses(ipp)
	if err != nil || ips.Count != 1 || ips.PublicIpAddresses[0].Id != cl.Ipaddressid || !ips.PublicIpAddresses[0].Issourcenat {
		t.Fatalf("listPublicIpAddresses: %+v %v", ips, err)
	}
	np := cs.Network.NewListNetworksParams()
	np.SetId(cl.Networkid)
	nets, err := cs.Network.ListNetworks(np)
	if err != nil || nets.Count != 1 || nets.Networks[0].Name != "conformance-network" || nets.Networks[0].State != model.NetworkImplemented {
		t.Fatalf("listNetworks: %+v %v", nets, err)
	}

	// User rules through the firewall commands.
	fwp := cs.Firewall.NewCreateFirewallRuleParams(cl.Ipaddressid, "TCP")
	fwp.SetStartport(8080)
	fwp.SetEndport(8090)
	fwp.SetCidrlist([]string{"10.0.0.0/8"})
	fwr, err := cs.Firewall.CreateFirewallRule(fwp)
	if err != nil || fwr.Id == "" || fwr.JobID == "" {
		t.Fatalf("createFirewallRule: %+v %v", fwr, err)
	}
	var fwResult struct {
		FirewallRule cloudstack.FirewallRule `json:"firewallrule"`
	}
	if err := json.Unmarshal(e.mustSucceed(fwr.JobID), &fwResult); err != nil || fwResult.FirewallRule.Id != fwr.Id ||
		fwResult.FirewallRule.Protocol != "tcp" || fwResult.FirewallRule.State != model.RuleActive || fwResult.FirewallRule.Cidrlist != "10.0.0.0/8" {
		t.Fatalf("createFirewallRule job result: %+v %v", fwResult, err)
	}
	worker := cl.Virtualmachines[1].Id
	pfp := cs.Firewall.NewCreatePortForwardingRuleParams(cl.Ipaddressid, 80, "tcp", 30080, worker)
	pfp.SetOpenfirewall(false)
	pfr, err := cs.Firewall.CreatePortForwardingRule(pfp)
	if err != nil || pfr.Id == "" {
		t.Fatalf("createPortForwardingRule: %+v %v", pfr, err)
	}
	var pfResult struct {
		PortForwardingRule cloudstack.PortForwardingRule `json:"portforwardingrule"`
	}
	if err := json.Unmarshal(e.mustSucceed(pfr.JobID), &pfResult); err != nil || pfResult.PortForwardingRule.Publicport != "30080" ||
		pfResult.PortForwardingRule.Virtualmachineid != worker {
		t.Fatalf("createPortForwardingRule job result: %+v %v", pfResult, err)
	}
	if got := forwardPorts(e.portForwards(cl.Ipaddressid)); !slices.Equal(got, []string{"2222->22", "2223->22", "30080->80"}) {
		t.Fatalf("PFs %v", got)
	}
	dpf, err := cs.Firewall.DeletePortForwardingRule(cs.Firewall.NewDeletePortForwardingRuleParams(pfr.Id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(dpf.JobID)
	dfw, err := cs.Firewall.DeleteFirewallRule(cs.Firewall.NewDeleteFirewallRuleParams(fwr.Id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(dfw.JobID)
	if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); !slices.Equal(got, []string{"2222-2223", "6443-6443"}) {
		t.Fatalf("firewall rules after deletes %v", got)
	}

	// Scale, upgrade, stop, start through the async client (it polls on its own).
	async := cloudstack.NewAsyncClient(e.info.APIURL, e.info.APIKey, e.info.SecretKey, false)
	sp := async.Kubernetes.NewScaleKubernetesClusterParams(id)
	sp.SetSize(2)
	scaled, err := async.Kubernetes.ScaleKubernetesCluster(sp)
	if err != nil || scaled.Size != 2 || scaled.State != model.ClusterRunning || len(scaled.Virtualmachines) != 3 {
		t.Fatalf("scale to 2 (async client): %+v %v", scaled, err)
	}
	up, err := async.Kubernetes.UpgradeKubernetesCluster(async.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.34.4"]))
	if err != nil || up.Kubernetesversionname != "v1.34.4" || up.State != model.ClusterRunning {
		t.Fatalf("upgrade: %+v %v", up, err)
	}
	stop, err := async.Kubernetes.StopKubernetesCluster(async.Kubernetes.NewStopKubernetesClusterParams(id))
	if err != nil || !stop.Success {
		t.Fatalf("stop: %+v %v", stop, err)
	}
	if st := e.cluster(id).State; st != model.ClusterStopped {
		t.Fatalf("state after stop %s", st)
	}
	start, err := async.Kubernetes.StartKubernetesCluster(async.Kubernetes.NewStartKubernetesClusterParams(id))
	if err != nil || start.State != model.ClusterRunning {
		t.Fatalf("start: %+v %v", start, err)
	}
	del, err := async.Kubernetes.DeleteKubernetesCluster(async.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil || !del.Success {
		t.Fatalf("delete: %+v %v", del, err)
	}
	if r, n, err := cs.Kubernetes.GetKubernetesClusterByID(id); err == nil || n != 0 || r != nil {
		t.Fatalf("deleted cluster still found: %+v %d %v", r, n, err)
	}
	nets, err = cs.Network.ListNetworks(np)
	if err != nil || nets.Count != 0 {
		t.Fatalf("auto-created network survived delete: %+v %v", nets, err)
	}
	// The network's source NAT IP went with it: listing its rules is a 431
	// (IPAddressVO.readyToUse), not an empty list.
	for _, cmd := range []string{"listFirewallRules", "listPortForwardingRules"} {
		status, body := e.adminCall(cmd, url.Values{"ipaddressid": {cl.Ipaddressid}})
		text, _ := inner(t, body, strings.ToLower(cmd)+"response")["errortext"].(string)
		if status != 431 || !strings.Contains(text, "not ready for") {
			t.Fatalf("%s of the destroyed network's IP: %d %v", cmd, status, body)
		}
	}
}

// TestConformanceJobResult checks queryAsyncJobResult's fields on success
// and failure.
func TestConformanceJobResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("jobs", 1))
	r, err := e.cs.Kubernetes.ScaleKubernetesCluster(func() *cloudstack.ScaleKubernetesClusterParams {
		p := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
		p.SetSize(2)
		return p
	}())
	if err != nil {
		t.Fatal(err)
	}
	done := e.waitJob(r.JobID)
	if done.Jobstatus != model.JobSucceeded || done.Jobresultcode != 0 || done.Jobresulttype != "object" ||
		done.Cmd != "org.apache.cloudstack.api.command.user.kubernetes.cluster.ScaleKubernetesClusterCmd" ||
		done.Jobinstancetype != "KubernetesCluster" || done.Jobinstanceid != id || done.Created == "" || done.Completed == "" ||
		done.Userid == "" || done.Accountid == "" || done.Jobprocstatus != 0 {
		t.Fatalf("job result fields: %+v", done)
	}
	var ok struct {
		Cluster cloudstack.KubernetesCluster `json:"kubernetescluster"`
	}
	if err := json.Unmarshal(done.Jobresult, &ok); err != nil || ok.Cluster.Size != 2 {
		t.Fatalf("job result: %s %v", done.Jobresult, err)
	}
	if _, err := timeParse(done.Created); err != nil {
		t.Fatalf("created %q: %v", done.Created, err)
	}

	// A failing job: upgrade to a downgrade target.
	up, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.32.9"]))
	if err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(up.JobID)
	if code != 530 || text != "Kubernetes clusters can not be downgraded, current version: 1.33.13, upgrade version: 1.32.9" {
		t.Fatalf("failed job: %d %q", code, text)
	}
	// The async client surfaces the failure as cloudstack-go does.
	async := cloudstack.NewAsyncClient(e.info.APIURL, e.info.APIKey, e.info.SecretKey, false)
	_, err = async.Kubernetes.UpgradeKubernetesCluster(async.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.32.9"]))
	if err == nil || !strings.HasPrefix(err.Error(), `Undefined error: {"errorcode":530,"errortext":"Kubernetes clusters can not be downgraded`) {
		t.Fatalf("async client error: %v", err)
	}
}

// TestNodeOfferings checks the nodeofferings map as cloudstack-go encodes it.
func TestNodeOfferings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	p := e.createParams("offerings", 1)
	p.SetEtcdnodes(1)
	p.SetNodeofferings(map[string]string{"control": e.info.LargeServiceOfferingID, "etcd": e.info.ServiceOfferingID})
	cl := e.cluster(e.createCluster(p))
	// createManagedKubernetesCluster writes a node type's offering column
	// only for its nodeofferings entry; the workers run the service
	// offering and their column stays empty (not returned).
	if cl.Controlofferingname != "cks-large" || cl.Workerofferingid != "" || cl.Etcdofferingname != "cks-medium" {
		t.Fatalf("offerings: control %s worker %q etcd %s", cl.Controlofferingname, cl.Workerofferingid, cl.Etcdofferingname)
	}
	if cl.Cpunumber != "8" || cl.Memory != "16384" {
		t.Fatalf("capacity %s/%s, want 8/16384", cl.Cpunumber, cl.Memory)
	}
	for _, v := range cl.Virtualmachines {
		want := map[bool]string{true: "cks-large", false: "cks-medium"}[strings.Contains(v.Name, "-control-")]
		if v.Serviceofferingname != want {
			t.Fatalf("VM %s offering %s, want %s", v.Name, v.Serviceofferingname, want)
		}
	}
	small := e.createParams("smallcontrol", 1)
	small.SetNodeofferings(map[string]string{"control": e.info.SmallServiceOfferingID})
	if _, err := e.cs.Kubernetes.CreateKubernetesCluster(small); err == nil || !strings.Contains(err.Error(), "needs minimum 2 vCPUs") {
		t.Fatalf("too small control offering: %v", err)
	}
}
