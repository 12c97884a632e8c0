package simulator

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/profiles"
)

// ruleSummary renders dumped rules in id order as "purpose proto start-end[->private] target".
func ruleSummary(d DumpState, vmNames map[string]string) []string {
	var out []string
	for _, r := range d.Rules {
		s := fmt.Sprintf("%s %d-%d", r.Purpose, r.StartPort, r.EndPort)
		if r.Purpose == model.PurposePF {
			s += fmt.Sprintf("->%d %s", r.PrivatePort, vmNames[r.VMID])
		}
		if r.Purpose == model.PurposeLB {
			var members []string
			for _, m := range r.LBMembers {
				members = append(members, vmNames[m])
			}
			s += fmt.Sprintf(" %s [%s]", r.LBName, strings.Join(members, ","))
		}
		out = append(out, s)
	}
	return out
}

// roleNames maps VM ids to short role names: control, worker1, etcd2...
func roleNames(d DumpState) map[string]string {
	names := map[string]string{}
	counts := map[string]int{}
	for _, v := range d.VMs {
		counts[v.Role]++
		names[v.ID] = fmt.Sprintf("%s%d", v.Role, counts[v.Role])
	}
	return names
}

func TestCreateRuleChoreographyAndNaming(t *testing.T) {
	t.Parallel()
	frozen := time.Date(2026, 9, 12, 3, 27, 59, 0, time.UTC)
	e := newEnv(t, Options{Clock: func() time.Time { return frozen }})
	p := e.createParams("MyCluster", 2)
	p.SetEtcdnodes(2)
	id := e.createCluster(p)

	d := e.sim.DumpState()
	want := []string{
		"Firewall 2222-2224",
		"Firewall 6443-6443",
		"PortForwarding 2222-2222->22 control1",
		"PortForwarding 2223-2223->22 worker1",
		"PortForwarding 2224-2224->22 worker2",
		"LoadBalancing 6443-6443 api-lb [control1]",
		"Firewall 50000-50000",
		"PortForwarding 50000-50000->22 etcd1",
		"Firewall 50001-50001",
		"PortForwarding 50001-50001->22 etcd2",
	}
	if got := ruleSummary(d, roleNames(d)); !slices.Equal(got, want) {
		t.Fatalf("rules in id order:\n got %q\nwant %q", got, want)
	}
	for i := 1; i < len(d.Rules); i++ {
		if d.Rules[i].InternalID != d.Rules[i-1].InternalID+1 {
			t.Fatalf("rule ids not consecutive: %d then %d", d.Rules[i-1].InternalID, d.Rules[i].InternalID)
		}
	}

	hex := model.HexMillis(frozen.UnixMilli())
	next := func(n int64) string { return model.HexMillis(frozen.UnixMilli() + n) }
	wantNames := []string{
		"MyCluster-etcd-1-" + hex, "MyCluster-etcd-2-" + hex, // built in one loop: shared suffix
		"mycluster-control-" + hex, "mycluster-node-" + next(1), "mycluster-node-" + next(2),
	}
	cl := e.cluster(id)
	var gotNames []string
	for _, v := range cl.Virtualmachines {
		gotNames = append(gotNames, v.Name)
	}
	if !slices.Equal(gotNames, wantNames) {
		t.Fatalf("VM names in map order:\n got %v\nwant %v", gotNames, wantNames)
	}
	if len(hex) != 11 || !regexp.MustCompile(`^mycluster-control-[0-9a-f]{11}$`).MatchString(wantNames[2]) {
		t.Fatalf("suffix %q is not 11 hex digits", hex)
	}
	var nodes []string
	for _, n := range d.Nodes {
		nodes = append(nodes, n.Name)
	}
	if !slices.Equal(nodes, []string{wantNames[2], wantNames[3], wantNames[4]}) {
		t.Fatalf("Kubernetes nodes %v: want the lowercased control and worker names only", nodes)
	}

	// Raw response: CKS fields of virtualmachines[] and etcdips.
	_, body := e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	raw := asObj(t, asList(t, inner(t, body, "listkubernetesclustersresponse")["kubernetescluster"])[0])
	vms := asList(t, raw["virtualmachines"])
	first := asObj(t, vms[0])
	if _, hasVersion := first["kubernetesnodeversion"]; first["isetcdnode"] != true || first["isexternalnode"] != false || hasVersion {
		t.Fatalf("etcd VM entry: %v", first)
	}
	if c := asObj(t, vms[2]); c["isetcdnode"] != false || c["kubernetesnodeversion"] != "1.33.13" {
		t.Fatalf("control VM entry: %v", c)
	}
	etcdIPs := asObj(t, raw["etcdips"])
	if len(etcdIPs) != 1 || etcdIPs[cl.Ipaddressid] != cl.Ipaddress {
		t.Fatalf("etcdips %v: want only etcd node 1's PF IP", etcdIPs)
	}
}

func TestVPCTierCluster(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	p := e.createParams("vpc", 1)
	p.SetNetworkid(e.info.VPCTierNetworkID)
	p.SetEtcdnodes(1)
	id := e.createCluster(p)
	cl := e.cluster(id)
	if cl.Ipaddress != "" || cl.Ipaddressid != "" {
		t.Fatalf("VPC cluster must have no ipaddress (not source NAT): %q %q", cl.Ipaddress, cl.Ipaddressid)
	}
	m := regexp.MustCompile(`^https://(127\.\d+\.\d+\.\d+):6443/$`).FindStringSubmatch(cl.Endpoint)
	if m == nil {
		t.Fatalf("endpoint %q", cl.Endpoint)
	}
	ipp := e.cs.Address.NewListPublicIpAddressesParams()
	ipp.SetIpaddress(m[1])
	ips, err := e.cs.Address.ListPublicIpAddresses(ipp)
	if err != nil || ips.Count != 1 || ips.PublicIpAddresses[0].Issourcenat || ips.PublicIpAddresses[0].Vpcid != e.info.VPCID {
		t.Fatalf("cluster VPC IP: %+v %v", ips, err)
	}
	ipID := ips.PublicIpAddresses[0].Id
	if fws := e.firewallRules(ipID); len(fws) != 0 {
		t.Fatalf("VPC IPs have no ingress firewall rules, got %d", len(fws))
	}
	if got, want := forwardPorts(e.portForwards(ipID)), []string{"2222->22", "2223->22", "50000->22", "6443->6443"}; !slices.Equal(got, want) {
		t.Fatalf("VPC PFs %v, want %v", got, want)
	}
	e.mustSucceed(e.scale(id, 2))
	if got, want := forwardPorts(e.portForwards(ipID)), []string{"2222->22", "2223->22", "2224->22", "50000->22", "6443->6443"}; !slices.Equal(got, want) {
		t.Fatalf("VPC PFs after scale-up %v, want %v", got, want)
	}
	e.mustSucceed(e.scale(id, 1))
	if got, want := forwardPorts(e.portForwards(ipID)), []string{"2222->22", "2223->22", "50000->22", "6443->6443"}; !slices.Equal(got, want) {
		t.Fatalf("VPC PFs after scale-down %v, want %v", got, want)
	}
	if st := e.cluster(id).State; st != model.ClusterRunning {
		t.Fatalf("state %s", st)
	}
	out := sshRun(t, e, id, m[1], 2222, "sudo /opt/bin/kubectl get nodes -o name")
	if len(strings.Fields(out)) != 2 {
		t.Fatalf("kubectl over SSH on the VPC IP: %q", out)
	}
	del, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(del.JobID)
	ips, err = e.cs.Address.ListPublicIpAddresses(ipp)
	if err != nil || ips.Count != 0 {
		t.Fatalf("cluster VPC IP not released: %+v %v", ips, err)
	}
	np := e.cs.Network.NewListNetworksParams()
	np.SetId(e.info.VPCTierNetworkID)
	if nets, err := e.cs.Network.ListNetworks(np); err != nil || nets.Count != 1 {
		t.Fatalf("the user's tier must survive: %+v %v", nets, err)
	}

	// The tier with a default_deny ACL is refused.
	p = e.createParams("denied", 1)
	p.SetNetworkid(e.info.VPCDenyTierNetworkID)
	_, err = e.cs.Kubernetes.CreateKubernetesCluster(p)
	if err == nil || !strings.Contains(err.Error(), "CloudStack API error 530") || !strings.Contains(err.Error(), "can not be used for Kubernetes cluster as it uses default deny ACL") {
		t.Fatalf("default deny tier: %v", err)
	}
}

func TestUserIsolatedNetworkCluster(t *testing.T) {
	t.Parallel()
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{Profile: profile})
			p := e.createParams("usernet", 1)
			p.SetNetworkid(e.info.IsolatedNetworkID)
			p.SetEtcdnodes(1)
			id := e.createCluster(p)
			cl := e.cluster(id)

			second := e.createParams("second", 1)
			second.SetNetworkid(e.info.IsolatedNetworkID)
			_, err := e.cs.Kubernetes.CreateKubernetesCluster(second)
			if err == nil || !strings.Contains(err.Error(), "CloudStack API error 530 (CSExceptionErrorCode: 4250): Network ID: "+e.info.IsolatedNetworkID+" is already under use by another Kubernetes cluster") {
				t.Fatalf("second cluster on the network: %v", err)
			}

			e.mustSucceed(e.scale(id, 2)) // the node range now has a higher id than the etcd rule
			del, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
			if err != nil {
				t.Fatal(err)
			}
			e.mustSucceed(del.JobID)
			// The user's network keeps its IP; the partial cleanup leaks the etcd firewall rule.
			if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); !slices.Equal(got, []string{"50000-50000"}) {
				t.Fatalf("rules left on the user network: %v, want only the leaked etcd rule", got)
			}
			if pfs := e.portForwards(cl.Ipaddressid); len(pfs) != 0 {
				t.Fatalf("PFs left: %v", forwardPorts(pfs))
			}
			// The network can host a new cluster again.
			again := e.createParams("again", 1)
			again.SetNetworkid(e.info.IsolatedNetworkID)
			e.createCluster(again)
		})
	}
}

func TestPreexistingRulesBlockCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	n := e.sim.DumpState().PublicIPs[0] // the seeded isolated network's source NAT IP
	if n.NetworkID != e.info.IsolatedNetworkID {
		t.Fatalf("unexpected seed order: %+v", n)
	}
	status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {n.ID}, "protocol": {"tcp"}, "startport": {"2223"}})
	if status != 200 {
		t.Fatalf("createFirewallRule: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))
	p := e.createParams("blocked", 1)
	p.SetNetworkid(e.info.IsolatedNetworkID)
	_, err := e.cs.Kubernetes.CreateKubernetesCluster(p)
	if err == nil || !strings.Contains(err.Error(), "Network: sim-isolated-network has conflicting firewall rules to provision Kubernetes cluster for node VM SSH access") {
		t.Fatalf("create over a conflicting user rule: %v", err)
	}
}

func TestDirectRuleConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("conflicts", 1))
	cl := e.cluster(id)
	before := e.sim.DumpState()
	rangeRule := before.Rules[0]
	var netInternal int64
	for _, n := range before.Networks {
		if n.ID == cl.Networkid {
			netInternal = n.InternalID
		}
	}

	status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"TCP"},
		"startport": {"2223"}, "endport": {"2230"}})
	want := fmt.Sprintf(`The range specified, 2223-2230, conflicts with rule FirewallRule {"id":%d,"networkId":%d,"purpose":"Firewall","state":"Active","uuid":"%s"} which has 2222-2223`,
		rangeRule.InternalID, netInternal, rangeRule.ID)
	assertError(t, status, inner(t, body, "createfirewallruleresponse"), 537, 4360, want)
	if got := len(e.sim.DumpState().Rules); got != len(before.Rules) {
		t.Fatalf("the conflicting rule persisted: %d rules, had %d", got, len(before.Rules))
	}

	// Another CIDR or protocol does not conflict; the failed attempt used an id.
	status, body = e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"startport": {"2223"}, "cidrlist": {"10.0.0.0/8"}})
	if status != 200 {
		t.Fatalf("other CIDR: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))
	after := e.sim.DumpState().Rules
	if last := after[len(after)-1]; last.InternalID != before.Rules[len(before.Rules)-1].InternalID+2 {
		t.Fatalf("rule id %d: the rolled-back rule must have used an id", last.InternalID)
	}
	status, body = e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"udp"}, "startport": {"2222"}})
	if status != 200 {
		t.Fatalf("UDP over the TCP range: %d %v", status, body)
	}

	// A PF on a public port CKS forwards conflicts with CKS's PF.
	worker := cl.Virtualmachines[1].Id
	status, body = e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"2223"}, "privateport": {"8080"}, "virtualmachineid": {worker}, "openfirewall": {"false"}})
	errBody := inner(t, body, "createportforwardingruleresponse")
	if status != 537 || !strings.Contains(asStr(t, errBody["errortext"]), `"purpose":"PortForwarding"`) {
		t.Fatalf("PF conflict: %d %v", status, errBody)
	}
	// openfirewall adds a related firewall rule; it conflicts with the node range.
	status, body = e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"2222"}, "privateport": {"8080"}, "virtualmachineid": {worker}})
	if status != 537 {
		t.Fatalf("PF with openfirewall over CKS rules: %d %v", status, body)
	}
	status, body = e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"3000"}, "privateport": {"8080"}, "virtualmachineid": {worker}})
	if status != 200 {
		t.Fatalf("PF with openfirewall: %d %v", status, body)
	}
	pfID := asStr(t, inner(t, body, "createportforwardingruleresponse")["id"])
	e.mustSucceed(asStr(t, inner(t, body, "createportforwardingruleresponse")["jobid"]))
	if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); !slices.Contains(got, "3000-3000") {
		t.Fatalf("openfirewall did not add a firewall rule: %v", got)
	}
	_, body = e.adminCall("deletePortForwardingRule", url.Values{"id": {pfID}})
	e.mustSucceed(asStr(t, inner(t, body, "deleteportforwardingruleresponse")["jobid"]))
	if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); slices.Contains(got, "3000-3000") {
		t.Fatalf("the related firewall rule survived the PF: %v", got)
	}
}

func TestConflictInsideScaleJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.createCluster(e.createParams("scaleconflict", 1))
	cl := e.cluster(id)
	status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"}, "startport": {"2224"}})
	if status != 200 {
		t.Fatalf("user rule 2224: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))

	code, text := e.mustFail(e.scale(id, 2))
	if code != 530 || text != "Scaling failed for Kubernetes cluster : scaleconflict, unable to update network rules" {
		t.Fatalf("scale over a user rule: %d %q", code, text)
	}
	after := e.cluster(id)
	if after.State != model.ClusterAlert || after.Size != 1 || len(workerVMs(e, id)) != 2 {
		t.Fatalf("after failed scale-up: state %s size %d workers %v (no rollback, node_count stale)", after.State, after.Size, workerVMs(e, id))
	}
	if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); !slices.Equal(got, []string{"2224-2224", "6443-6443"}) {
		t.Fatalf("firewall rules %v: the old range was revoked, the new one rejected", got)
	}
	if pfs := e.portForwards(cl.Ipaddressid); len(pfs) != 0 {
		t.Fatalf("PFs %v: the node PFs were removed before the failure", forwardPorts(pfs))
	}
}

// TestForwardCleanupRemovesUserForwardUpToPickedEtcdRule: once
// removeSshFirewallRule picks the etcd rule (4.22.1.1, 4.22.0.0), the
// network-wide forward cleanup [2222, 50000] deletes a user's port forward
// inside it; pr14165 picks the node range and the user's forward stays.
func TestForwardCleanupRemovesUserForwardUpToPickedEtcdRule(t *testing.T) {
	t.Parallel()
	for _, profile := range Profiles() {
		behaviour, err := profiles.ByName(profile)
		if err != nil {
			t.Fatal(err)
		}
		// A selector that picks the node range stops the cleanup at its end.
		survives := behaviour.PreferNodeSSHRule
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{Profile: profile})
			p := e.createParams("collateral", 1)
			p.SetEtcdnodes(1)
			id := e.createCluster(p)
			e.mustSucceed(e.scale(id, 2))
			cl := e.cluster(id)
			status, body := e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
				"publicport": {"3000"}, "privateport": {"80"}, "virtualmachineid": {vmIDByRole(e, id, "-node-")}, "openfirewall": {"false"}})
			if status != 200 {
				t.Fatalf("user PF: %d %v", status, body)
			}
			e.mustSucceed(asStr(t, inner(t, body, "createportforwardingruleresponse")["jobid"]))
			r := e.waitJob(e.scale(id, 1))
			if got := slices.Contains(forwardPorts(e.portForwards(cl.Ipaddressid)), "3000->80"); got != survives {
				t.Fatalf("user PF 3000 survives: %v, want %v (job status %d)", got, survives, r.Jobstatus)
			}
			if wantStatus := map[bool]int{true: model.JobSucceeded, false: model.JobFailed}[survives]; r.Jobstatus != wantStatus {
				t.Fatalf("scale-down job status %d, want %d: %s", r.Jobstatus, wantStatus, r.Jobresult)
			}
		})
	}
}

// TestScaleWithoutNodeSSHRule: with the node range deleted by a user and no
// etcd rule to pick instead, scaling fails on 4.22.0 (#11779) and the
// cluster is Alert; from 4.22.1 (#12806) the scale logs a warning, removes
// the forwards of the range it would have had and re-creates the range.
func TestScaleWithoutNodeSSHRule(t *testing.T) {
	t.Parallel()
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{Profile: profile})
			id := e.createCluster(e.createParams("norange", 1))
			cl := e.cluster(id)
			for _, r := range e.firewallRules(cl.Ipaddressid) {
				if r.Startport == 2222 {
					if err := e.sim.DeleteRule(r.Id); err != nil {
						t.Fatal(err)
					}
				}
			}
			if profile == Profile42200 {
				code, text := e.mustFail(e.scale(id, 2))
				if code != 530 || !strings.HasSuffix(text, "unable to update network rules") {
					t.Fatalf("scale without the node SSH rule: %d %q", code, text)
				}
				if st := e.cluster(id).State; st != model.ClusterAlert {
					t.Fatalf("state %s, want Alert", st)
				}
				return
			}
			e.mustSucceed(e.scale(id, 2))
			if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 2 {
				t.Fatalf("after the scale: %s size %d, want Running with 2 workers", cl.State, cl.Size)
			}
			var ranges []string
			for _, r := range e.firewallRules(cl.Ipaddressid) {
				ranges = append(ranges, fmt.Sprintf("%d-%d", r.Startport, r.Endport))
			}
			if !slices.Contains(ranges, "2222-2224") {
				t.Fatalf("firewall rules %v: want the node range 2222-2224 back", ranges)
			}
		})
	}
}

// TestDestroyRevokesTheFirstTCPRuleOn6443: on a network the user gave, the
// destroy worker revokes ONE TCP firewall rule whose ports are exactly
// 6443-6443, the first the DAO returns, whoever made it
// (removeApiFirewallRule); rules of other protocols or wider ports are not
// candidates. Which one goes depends on the order the database reads them
// in, which nothing promises.
func TestDestroyRevokesTheFirstTCPRuleOn6443(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		order string
		gone  string // the CIDRs of the 6443 rule the destroy takes
	}{{WorkerRuleOrderAscending, "0.0.0.0/0"}, {WorkerRuleOrderDescending, "10.0.0.0/8"}} {
		t.Run("order "+cmp.Or(tc.order, "ascending"), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{WorkerRuleOrder: tc.order})
			p := e.createParams("apipick", 1)
			p.SetNetworkid(e.info.IsolatedNetworkID)
			id := e.createCluster(p)
			ipID := e.cluster(id).Ipaddressid
			for _, r := range []url.Values{
				{"protocol": {"tcp"}, "startport": {"6443"}, "endport": {"6443"}, "cidrlist": {"10.0.0.0/8"}},
				{"protocol": {"tcp"}, "startport": {"6000"}, "endport": {"7000"}, "cidrlist": {"198.51.100.0/24"}},
				{"protocol": {"udp"}, "startport": {"6443"}, "endport": {"6443"}, "cidrlist": {"192.0.2.0/24"}},
			} {
				r.Set("ipaddressid", ipID)
				status, body := e.adminCall("createFirewallRule", r)
				if status != 200 {
					t.Fatalf("createFirewallRule %v: %d %v", r, status, body)
				}
				e.mustSucceed(asStr(t, inner(t, body, "createfirewallruleresponse")["jobid"]))
			}
			r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
			if err != nil {
				t.Fatal(err)
			}
			e.mustSucceed(r.JobID)
			var on6443 []string
			for _, fw := range e.firewallRules(ipID) {
				if fw.Startport == 6443 || fw.Endport >= 6443 && fw.Startport <= 6443 {
					on6443 = append(on6443, fmt.Sprintf("%s %d-%d %s", fw.Protocol, fw.Startport, fw.Endport, fw.Cidrlist))
				}
			}
			slices.Sort(on6443)
			want := []string{"tcp 6000-7000 198.51.100.0/24", "udp 6443-6443 192.0.2.0/24"}
			if tc.gone == "0.0.0.0/0" {
				want = append(want, "tcp 6443-6443 10.0.0.0/8")
			} else {
				want = append(want, "tcp 6443-6443 0.0.0.0/0")
			}
			slices.Sort(want)
			if !slices.Equal(on6443, want) {
				t.Fatalf("rules on 6443 after the destroy: %v, want %v", on6443, want)
			}
		})
	}
}
