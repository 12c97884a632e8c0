package simulator

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// aclItems lists a network ACL list's items through the API, newest first.
func (e *testEnv) aclItems(aclID string) []*cloudstack.NetworkACL {
	e.t.Helper()
	p := e.cs.NetworkACL.NewListNetworkACLsParams()
	p.SetAclid(aclID)
	r, err := e.cs.NetworkACL.ListNetworkACLs(p)
	if err != nil {
		e.t.Fatalf("listNetworkACLs: %v", err)
	}
	return r.NetworkACLs
}

// aclLayout describes the items of a list in number order: number, protocol,
// ports, action and CIDRs.
func aclLayout(items []*cloudstack.NetworkACL) []string {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b *cloudstack.NetworkACL) int { return a.Number - b.Number })
	var out []string
	for _, it := range sorted {
		out = append(out, fmt.Sprintf("%d %s %s-%s %s %s %s", it.Number, it.Protocol, it.Startport, it.Endport, it.Traffictype,
			it.Action, it.Cidrlist))
	}
	return out
}

// createACLItem creates an item through the API and waits for its job.
func (e *testEnv) createACLItem(params url.Values) string {
	e.t.Helper()
	status, body := e.adminCall("createNetworkACL", params)
	if status != 200 {
		e.t.Fatalf("createNetworkACL %v: %d %v", params, status, body)
	}
	r := inner(e.t, body, "createnetworkaclresponse")
	e.mustSucceed(asStr(e.t, r["jobid"]))
	return asStr(e.t, r["id"])
}

func TestNetworkACLCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	lp := e.cs.NetworkACL.NewListNetworkACLListsParams()
	lp.SetVpcid(e.info.VPCID)
	lists, err := e.cs.NetworkACL.ListNetworkACLLists(lp)
	if err != nil || lists.Count != 3 {
		t.Fatalf("listNetworkACLLists vpcid: %+v %v", lists, err)
	}
	// Newest first: the VPC's own list, then default_allow (2), default_deny (1).
	if got := []string{lists.NetworkACLLists[0].Name, lists.NetworkACLLists[1].Name, lists.NetworkACLLists[2].Name}; !slices.Equal(got,
		[]string{seedACLName, aclDefaultAllow, aclDefaultDeny}) || lists.NetworkACLLists[0].Vpcid != e.info.VPCID {
		t.Fatalf("lists %v", got)
	}
	lp = e.cs.NetworkACL.NewListNetworkACLListsParams()
	lp.SetNetworkid(e.info.VPCACLTierLBNetworkID)
	if lists, err := e.cs.NetworkACL.ListNetworkACLLists(lp); err != nil || lists.Count != 1 || lists.NetworkACLLists[0].Id != e.info.VPCACLID {
		t.Fatalf("the list of a tier that shares it: %+v %v", lists, err)
	}
	if got, want := aclLayout(e.aclItems(e.info.VPCACLID)), []string{"1 tcp 443-443 Ingress Allow 0.0.0.0/0,::/0"}; !slices.Equal(got, want) {
		t.Fatalf("seeded items %v, want %v", got, want)
	}

	// A new item keeps its protocol as sent, gets both default CIDRs and the
	// next number; listing is newest first.
	ssh := e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {" TCP "}, "startport": {"22"}})
	egress := e.createACLItem(url.Values{"networkid": {e.info.VPCACLTierNetworkID}, "protocol": {"all"}, "traffictype": {"egress"},
		"action": {"deny"}, "cidrlist": {"10.0.0.0/8"}, "number": {"10"}})
	items := e.aclItems(e.info.VPCACLID)
	if items[0].Id != egress || items[1].Id != ssh {
		t.Fatalf("listNetworkACLs order: %v", aclLayout(items))
	}
	if got, want := aclLayout(items), []string{"1 tcp 443-443 Ingress Allow 0.0.0.0/0,::/0", "2 TCP 22-22 Ingress Allow 0.0.0.0/0,::/0",
		"10 all - Egress Deny 10.0.0.0/8"}; !slices.Equal(got, want) {
		t.Fatalf("items %v, want %v", got, want)
	}

	for _, c := range []struct {
		params url.Values
		text   string
	}{
		{url.Values{"aclid": {e.defaultACL(aclDefaultAllow)}, "protocol": {"tcp"}}, "Default ACL cannot be modified"},
		{url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"}, "number": {"10"}}, "ACL item with number 10 already exists in ACL"},
		{url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"gre"}}, "Invalid protocol [gre]. Expected one of: [tcp,udp,icmp,all]"},
		{url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"all"}, "startport": {"1"}}, "start port and end port must be null if protocol = 'all'"},
		{url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"}, "action": {"drop"}}, "Invalid action [drop]"},
		{url.Values{"networkid": {e.info.IsolatedNetworkID}, "protocol": {"tcp"}}, "does not belong to VPC"},
	} {
		status, body := e.adminCall("createNetworkACL", c.params)
		text, _ := inner(t, body, "createnetworkaclresponse")["errortext"].(string)
		if status != 431 || !strings.Contains(text, c.text) {
			t.Errorf("createNetworkACL %v: %d %q, want 431 %q", c.params, status, text, c.text)
		}
	}

	// Move the egress item to the top, then back to the bottom, then
	// between the two others.
	move := func(params url.Values) {
		t.Helper()
		status, body := e.adminCall("moveNetworkAclItem", params)
		if status != 200 {
			t.Fatalf("moveNetworkAclItem: %d %v", status, body)
		}
		e.mustSucceed(asStr(t, inner(t, body, "movenetworkaclitemresponse")["jobid"]))
	}
	move(url.Values{"id": {egress}, "nextaclruleid": {items[2].Id}})
	if got := aclLayout(e.aclItems(e.info.VPCACLID)); !strings.HasPrefix(got[0], "1 all") || !strings.HasPrefix(got[1], "2 tcp 443") ||
		!strings.HasPrefix(got[2], "3 TCP 22") {
		t.Fatalf("after move to the top: %v", got)
	}
	move(url.Values{"id": {egress}, "previousaclruleid": {ssh}})
	if got := aclLayout(e.aclItems(e.info.VPCACLID)); !strings.HasPrefix(got[2], "4 all") {
		t.Fatalf("after move to the bottom: %v", got)
	}

	deleteItem := func(id string) string {
		t.Helper()
		r, err := e.cs.NetworkACL.DeleteNetworkACL(e.cs.NetworkACL.NewDeleteNetworkACLParams(id))
		if err != nil {
			t.Fatalf("deleteNetworkACL: %v", err)
		}
		return r.JobID
	}
	e.mustSucceed(deleteItem(egress))
	if got := e.aclItems(e.info.VPCACLID); len(got) != 2 {
		t.Fatalf("after delete: %v", aclLayout(got))
	}
	defaultItem := e.aclItems(e.defaultACL(aclDefaultDeny))[0].Id
	if code, text := e.mustFail(deleteItem(defaultItem)); code != 431 || !strings.Contains(text, "ACL Items in default ACL cannot be deleted") {
		t.Fatalf("deleting a default item: %d %q", code, text)
	}
}

// defaultACL returns the id of a default list by name.
func (e *testEnv) defaultACL(name string) string {
	e.t.Helper()
	p := e.cs.NetworkACL.NewListNetworkACLListsParams()
	p.SetName(name)
	r, err := e.cs.NetworkACL.ListNetworkACLLists(p)
	if err != nil || r.Count != 1 {
		e.t.Fatalf("list %s: %+v %v", name, r, err)
	}
	return r.NetworkACLLists[0].Id
}

// On a tier with a list of its own, CKS opens 6443 and 22 (and 2379 per etcd
// VM) with "TCP" items moved to the top; scaling changes no item; destroying
// revokes every Allow "TCP" 6443 and 22 item of the list, the user's own
// included, keeps the "tcp" ones and the 2379 items, and releases the IP.
func TestVPCTierACLChoreography(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id, host := e.vpcCluster("acl", e.info.VPCACLTierNetworkID, 2, 1)
	cksItems := []string{"1 TCP 2379-2379 Ingress Allow 0.0.0.0/0,::/0", "2 TCP 2379-2379 Ingress Allow 0.0.0.0/0,::/0",
		"3 TCP 22-22 Ingress Allow 0.0.0.0/0,::/0", "4 TCP 6443-6443 Ingress Allow 0.0.0.0/0,::/0", "5 tcp 443-443 Ingress Allow 0.0.0.0/0,::/0"}
	if got := aclLayout(e.aclItems(e.info.VPCACLID)); !slices.Equal(got, cksItems) {
		t.Fatalf("items after create %v, want %v", got, cksItems)
	}
	ipID := e.publicIPOf(host)
	if got, want := forwardPorts(e.portForwards(ipID)), []string{"2222->22", "2223->22", "50000->22", "50001->22", "6443->6443"}; !slices.Equal(got, want) {
		t.Fatalf("forwards %v, want %v", got, want)
	}
	e.mustSucceed(e.scale(id, 2))
	e.mustSucceed(e.scale(id, 1))
	if got := aclLayout(e.aclItems(e.info.VPCACLID)); !slices.Equal(got, cksItems) {
		t.Fatalf("items after scale 1 -> 2 -> 1 %v, want %v", got, cksItems)
	}
	if out := sshRun(t, e, id, host, 2222, "sudo /opt/bin/kubectl get nodes -o name"); len(strings.Fields(out)) != 2 {
		t.Fatalf("kubectl over SSH: %q", out)
	}

	// Items of a user: a "TCP" one CKS's destroy cannot tell from its own,
	// a "tcp" one and an Egress "TCP" one on 22.
	e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"TCP"}, "startport": {"22"}, "cidrlist": {"192.0.2.0/24"}})
	e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"}, "startport": {"22"}, "cidrlist": {"198.51.100.0/24"}})
	e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"TCP"}, "startport": {"22"}, "traffictype": {"Egress"}})
	e.mustSucceed(e.deleteCluster(id))
	want := []string{"1 TCP 2379-2379 Ingress Allow 0.0.0.0/0,::/0", "2 TCP 2379-2379 Ingress Allow 0.0.0.0/0,::/0",
		"5 tcp 443-443 Ingress Allow 0.0.0.0/0,::/0", "7 tcp 22-22 Ingress Allow 198.51.100.0/24"}
	if got := aclLayout(e.aclItems(e.info.VPCACLID)); !slices.Equal(got, want) {
		t.Fatalf("items after destroy %v, want %v", got, want)
	}
	for _, cmd := range []string{"listFirewallRules", "listPortForwardingRules"} {
		status, body := e.adminCall(cmd, url.Values{"ipaddressid": {ipID}})
		text, _ := inner(t, body, strings.ToLower(cmd)+"response")["errortext"].(string)
		if status != 431 || !strings.Contains(text, "not ready for") {
			t.Errorf("%s on the released VPC IP: %d %q", cmd, status, text)
		}
	}
}

// vpcCluster creates a cluster on a VPC tier and returns its id and the
// address of its VPC IP.
func (e *testEnv) vpcCluster(name, networkID string, etcd, size int64) (string, string) {
	e.t.Helper()
	p := e.createParams(name, size)
	p.SetNetworkid(networkID)
	if etcd > 0 {
		p.SetEtcdnodes(etcd)
	}
	id := e.createCluster(p)
	return id, strings.TrimSuffix(strings.TrimPrefix(e.cluster(id).Endpoint, "https://"), ":6443/")
}

// publicIPOf returns the id of the allocated public IP with the address.
func (e *testEnv) publicIPOf(address string) string {
	e.t.Helper()
	p := e.cs.Address.NewListPublicIpAddressesParams()
	p.SetIpaddress(address)
	r, err := e.cs.Address.ListPublicIpAddresses(p)
	if err != nil || r.Count != 1 {
		e.t.Fatalf("public IP %s: %+v %v", address, r, err)
	}
	return r.PublicIpAddresses[0].Id
}

// The list's items decide what reaches the tier: without CKS's 22 item the
// node SSH endpoints close and a scale-down cannot drain; without the 6443
// item the start's API check fails. On default_allow CKS adds no item.
func TestVPCTierACLGatesSSHAndAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id, host := e.vpcCluster("gate", e.info.VPCACLTierNetworkID, 0, 2)
	item := func(port string) string {
		for _, it := range e.aclItems(e.info.VPCACLID) {
			if it.Protocol == cksACLProtocol && it.Startport == port {
				return it.Id
			}
		}
		t.Fatalf("no CKS item for %s", port)
		return ""
	}
	if !testutil.CanDial(host, 2222) {
		t.Fatal("node SSH endpoint closed with CKS's items in place")
	}
	if err := e.sim.DeleteACLItem(item("22")); err != nil {
		t.Fatal(err)
	}
	if testutil.CanDial(host, 2222) || testutil.CanDial(host, 2223) {
		t.Fatal("node SSH endpoints stay open without an item for 22")
	}
	if code, text := e.mustFail(e.scale(id, 1)); code != 530 || !strings.Contains(text, "failed to remove Kubernetes node") {
		t.Fatalf("scale-down without SSH: %d %q", code, text)
	}
	e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"}, "startport": {"22"}, "cidrlist": {"127.0.0.0/8"}})
	if !testutil.CanDial(host, 2222) {
		t.Fatal("a narrowed item that admits the management server does not reopen SSH")
	}

	id2 := func() string {
		p := e.createParams("gate-api", 1)
		p.SetNetworkid(e.info.VPCACLTierLBNetworkID)
		return e.createCluster(p)
	}()
	e.stopCluster(id2)
	if err := e.sim.DeleteACLItem(item("6443")); err != nil {
		t.Fatal(err)
	}
	for _, it := range e.aclItems(e.info.VPCACLID) {
		if it.Startport == "6443" {
			if err := e.sim.DeleteACLItem(it.Id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if code, text := e.mustFail(e.startCluster(id2)); code != 530 || !strings.Contains(text, "gate-api") {
		t.Fatalf("start without an item for 6443: %d %q", code, text)
	}

	allow := e.createParams("allow", 1)
	allow.SetNetworkid(e.info.VPCTierNetworkID)
	before := len(e.sim.DumpState().ACLItems)
	e.createCluster(allow)
	if after := len(e.sim.DumpState().ACLItems); after != before {
		t.Fatalf("a cluster on default_allow added %d items", after-before)
	}
}

// moveNetworkAclItem changes the numbers only: the tier keeps the order it
// last got until the list is applied again, which updateNetworkACLItem does.
func TestNetworkACLMoveTakesEffectWhenApplied(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	_, host := e.vpcCluster("move", e.info.VPCACLTierNetworkID, 0, 1)
	deny := e.createACLItem(url.Values{"aclid": {e.info.VPCACLID}, "protocol": {"tcp"}, "startport": {"22"},
		"action": {"Deny"}, "cidrlist": {"0.0.0.0/0"}})
	if !testutil.CanDial(host, 2222) {
		t.Fatal("a Deny after CKS's item keeps SSH out")
	}
	status, body := e.adminCall("moveNetworkAclItem", url.Values{"id": {deny}, "nextaclruleid": {e.aclItemNumbered(1)}})
	if status != 200 {
		t.Fatalf("moveNetworkAclItem: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "movenetworkaclitemresponse")["jobid"]))
	if !testutil.CanDial(host, 2222) {
		t.Fatal("the move took effect before the list was applied")
	}
	status, body = e.adminCall("updateNetworkACLItem", url.Values{"id": {deny}})
	if status != 200 {
		t.Fatalf("updateNetworkACLItem: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "updatenetworkaclitemresponse")["jobid"]))
	if testutil.CanDial(host, 2222) {
		t.Fatal("the Deny, now first and applied, lets SSH in")
	}
	// A partial update changes only what it is given.
	status, body = e.adminCall("updateNetworkACLItem", url.Values{"id": {deny}, "cidrlist": {"192.0.2.0/24"}})
	if status != 200 {
		t.Fatalf("updateNetworkACLItem: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "updatenetworkaclitemresponse")["jobid"]))
	if got := aclLayout(e.aclItems(e.info.VPCACLID))[0]; got != "1 tcp 22-22 Ingress Deny 192.0.2.0/24" {
		t.Fatalf("after the partial update: %s", got)
	}
	if !testutil.CanDial(host, 2222) {
		t.Fatal("a Deny from other CIDRs keeps the management server out")
	}
}
