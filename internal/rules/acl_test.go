package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// vpcLayout is a cluster on a VPC tier whose offering is not in conserve
// mode: one control node, one worker and, with etcd, one etcd node.
func vpcLayout(etcd bool) Layout {
	l := Layout{Network: NetworkVPC, IPAddressID: "ip-vpc", NetworkID: "tier-1", VPCAPI: VPCAPIForward,
		Nodes: []Node{node("control", naming.RoleControl), node("w1", naming.RoleWorker)}}
	if etcd {
		l.Nodes = append([]Node{node("etcd1", naming.RoleEtcd)}, l.Nodes...)
	}
	return l
}

// cksItem is an item as CKS creates it for a port.
func cksItem(id string, number, port int) ACLItem {
	return ACLItem{ID: id, Number: number, Protocol: ACLProtocolCKS, StartPort: port, EndPort: port,
		CIDRs: []string{AnyCIDR, AnyIPv6CIDR}, TrafficType: ACLIngress, Action: ACLAllow}
}

func TestExpectedACL(t *testing.T) {
	t.Parallel()
	acl := TierACL{ID: "acl-1", Name: "web"}
	for _, tc := range []struct {
		name string
		l    Layout
		acl  TierACL
		want []int
	}{
		{"without etcd", vpcLayout(false), acl, []int{APIPort, SSHPort}},
		{"with etcd", vpcLayout(true), acl, []int{APIPort, SSHPort, EtcdClientPort}},
		{"default_allow", vpcLayout(true), TierACL{ID: "acl-2", Name: "default_allow", DefaultAllow: true}, nil},
		{"no list", vpcLayout(true), TierACL{}, nil},
		{"isolated network", etcdLayout("w1"), acl, nil},
	} {
		var got []int
		for _, e := range ExpectedACL(tc.l, tc.acl) {
			got = append(got, e.Port)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: ports %v, want %v", tc.name, got, tc.want)
		}
	}
	if it := (ACLExpectation{Purpose: PurposeSSHACL, Port: SSHPort}).Item(); it.Protocol != "TCP" || it.StartPort != 22 ||
		it.EndPort != 22 || it.Action != ACLAllow || it.TrafficType != ACLIngress || len(it.CIDRs) != 0 {
		t.Errorf("Item() = %+v: CKS's own form, without CIDRs", it)
	}
}

func TestIsCKSACLItem(t *testing.T) {
	t.Parallel()
	base := cksItem("a", 1, SSHPort)
	with := func(change func(*ACLItem)) ACLItem {
		it := base
		it.CIDRs = slices.Clone(base.CIDRs)
		change(&it)
		return it
	}
	for _, tc := range []struct {
		name string
		it   ACLItem
		want bool
	}{
		{"as CKS makes it", base, true},
		{"lowercase protocol", with(func(it *ACLItem) { it.Protocol = "tcp" }), true},
		{"IPv4 only", with(func(it *ACLItem) { it.CIDRs = []string{AnyCIDR} }), true},
		{"end port unset", with(func(it *ACLItem) { it.EndPort = 0 }), true},
		{"narrowed", with(func(it *ACLItem) { it.CIDRs = []string{"10.0.0.0/8"} }), false},
		{"IPv6 only", with(func(it *ACLItem) { it.CIDRs = []string{AnyIPv6CIDR} }), false},
		{"deny", with(func(it *ACLItem) { it.Action = ACLDeny }), false},
		{"egress", with(func(it *ACLItem) { it.TrafficType = ACLEgress }), false},
		{"a range", with(func(it *ACLItem) { it.EndPort = 23 }), false},
		{"all protocols", with(func(it *ACLItem) { it.Protocol = "all"; it.StartPort, it.EndPort = 0, 0 }), false},
		{"udp", with(func(it *ACLItem) { it.Protocol = "udp" }), false},
	} {
		if got := IsCKSACLItem(tc.it, SSHPort); got != tc.want {
			t.Errorf("%s: %t, want %t", tc.name, got, tc.want)
		}
	}
}

// ClassifyACL pairs each expectation with the lowest numbered CKS item,
// whatever order the items were listed in, counts the others as spare, and
// names what is missing.
func TestClassifyACL(t *testing.T) {
	t.Parallel()
	l := vpcLayout(true)
	items := []ACLItem{
		cksItem("etcd-a", 1, EtcdClientPort), cksItem("etcd-b", 2, EtcdClientPort), cksItem("ssh-b", 3, SSHPort),
		cksItem("api", 4, APIPort), cksItem("ssh-a", 5, SSHPort),
		{ID: "web", Number: 6, Protocol: "tcp", StartPort: 443, EndPort: 443, CIDRs: []string{AnyCIDR}, TrafficType: ACLIngress, Action: ACLAllow},
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 5 {
		shuffled := slices.Clone(items)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		c := ClassifyACL(l, TierACL{ID: "acl", Items: shuffled})
		var matched []string
		for _, m := range c.Matched {
			matched = append(matched, m.Item.ID)
		}
		if !slices.Equal(matched, []string{"api", "ssh-b", "etcd-a"}) || !c.InSync() {
			t.Fatalf("matched %v, missing %v", matched, c.Missing)
		}
	}
	// An item of the user's that narrows a port stands for CKS's: the
	// provider does not open it again.
	narrowed := cksItem("ssh-narrow", 1, SSHPort)
	narrowed.CIDRs = []string{"192.0.2.0/24"}
	narrowed.Protocol = "tcp"
	c := ClassifyACL(l, TierACL{ID: "acl", Items: []ACLItem{narrowed, cksItem("api", 2, APIPort)}})
	if len(c.Missing) != 1 || c.Missing[0].Purpose != PurposeEtcdACL || c.Matched[1].Item.ID != "ssh-narrow" {
		t.Fatalf("missing %v, matched %v", c.Missing, c.Matched)
	}
}

// LetsIn reads the list as the router does: the first Ingress item that
// covers the port decides, a Deny from some CIDRs keeps out only those.
func TestLetsIn(t *testing.T) {
	t.Parallel()
	item := func(id string, number int, protocol string, start, end int, action string, cidrs ...string) ACLItem {
		return ACLItem{ID: id, Number: number, Protocol: protocol, StartPort: start, EndPort: end, CIDRs: cidrs,
			TrafficType: ACLIngress, Action: action}
	}
	egress := item("egress", 1, "all", 0, 0, ACLAllow, AnyCIDR)
	egress.TrafficType = ACLEgress
	for _, tc := range []struct {
		name  string
		items []ACLItem
		want  string
	}{
		{"CKS's item", []ACLItem{cksItem("cks", 1, SSHPort)}, "cks"},
		{"a deny from everyone first", []ACLItem{item("deny", 1, "tcp", 22, 22, ACLDeny, AnyCIDR), cksItem("cks", 2, SSHPort)}, ""},
		{"a deny from some CIDRs first", []ACLItem{item("deny", 1, "tcp", 22, 22, ACLDeny, "10.0.0.0/8"), cksItem("cks", 2, SSHPort)}, "cks"},
		{"all protocols", []ACLItem{item("all", 1, "all", 0, 0, ACLAllow, AnyCIDR)}, "all"},
		{"a range", []ACLItem{item("range", 1, "TCP", 20, 30, ACLAllow, "192.0.2.0/24")}, "range"},
		{"protocol number 6", []ACLItem{item("six", 1, "6", 22, 22, ACLAllow, AnyCIDR)}, "six"},
		{"udp and egress only", []ACLItem{item("udp", 1, "udp", 22, 22, ACLAllow, AnyCIDR), egress}, ""},
		{"another port", []ACLItem{cksItem("api", 1, APIPort)}, ""},
		{"numbers, not the list order", []ACLItem{cksItem("cks", 5, SSHPort), item("deny", 2, "all", 0, 0, ACLDeny, AnyCIDR, AnyIPv6CIDR)}, ""},
	} {
		it, ok := LetsIn(tc.items, SSHPort)
		if ok != (tc.want != "") || it.ID != tc.want {
			t.Errorf("%s: %q, %t; want %q", tc.name, it.ID, ok, tc.want)
		}
	}
}

// The destroy revokes every Allow item "TCP" on exactly 6443 or 22, whoever
// made it, whatever its CIDRs or traffic type, and nothing else.
func TestDestroyRevokes(t *testing.T) {
	t.Parallel()
	egress := cksItem("egress", 7, SSHPort)
	egress.TrafficType = ACLEgress
	narrow := cksItem("narrow", 8, SSHPort)
	narrow.CIDRs = []string{"192.0.2.0/24"}
	lower := cksItem("lower", 9, SSHPort)
	lower.Protocol = "tcp"
	deny := cksItem("deny", 10, APIPort)
	deny.Action = ACLDeny
	rangeItem := cksItem("range", 11, SSHPort)
	rangeItem.EndPort = 23
	acl := TierACL{ID: "acl", Items: []ACLItem{cksItem("api", 1, APIPort), cksItem("ssh", 2, SSHPort), cksItem("etcd", 3, EtcdClientPort),
		egress, narrow, lower, deny, rangeItem}}
	var got []string
	for _, it := range DestroyRevokes(acl) {
		got = append(got, it.ID)
	}
	if want := []string{"api", "ssh", "egress", "narrow"}; !slices.Equal(got, want) {
		t.Fatalf("revoked %v, want %v", got, want)
	}
	acl.DefaultAllow = true
	if got := DestroyRevokes(acl); got != nil {
		t.Fatalf("default_allow: %v", got)
	}
	if d := DescribeACLItem(narrow); !strings.Contains(d, "narrow") || !strings.Contains(d, "192.0.2.0/24") || !strings.Contains(d, `"TCP"`) {
		t.Errorf("DescribeACLItem = %q", d)
	}
}

// On a VPC tier the API path is required in the form the tier's offering
// decides, optional only while that is not known; the forward may lead to
// any control node, and one to a worker is stale.
func TestExpectedVPCAPIPath(t *testing.T) {
	t.Parallel()
	nodes := []Node{node("c1", naming.RoleControl), node("c2", naming.RoleControl), node("w1", naming.RoleWorker)}
	fwd := func(id, vm string) Rule {
		r := forward(id, APIPort, APIPort, vm)
		r.IPAddressID = "ip-vpc"
		return r
	}
	for _, tc := range []struct {
		name    string
		api     VPCAPIPath
		rules   []Rule
		missing []Purpose
		stale   int
	}{
		{"forward path, none", VPCAPIForward, nil, []Purpose{PurposeAPIForward}, 0},
		{"forward path, to the second control node", VPCAPIForward, []Rule{fwd("f", "c2")}, nil, 0},
		{"forward path, to a worker", VPCAPIForward, []Rule{fwd("f", "w1")}, []Purpose{PurposeAPIForward}, 1},
		{"load balancer path, none", VPCAPILoadBalancer, nil, []Purpose{PurposeAPILoadBalancer}, 0},
		{"load balancer path, there", VPCAPILoadBalancer, []Rule{apiLB("lb")}, nil, 0},
		{"unknown path, none", "", nil, nil, 0},
	} {
		l := Layout{Network: NetworkVPC, VPCAPI: tc.api, Nodes: nodes}
		c := Classify(l, tc.rules)
		var missing []Purpose
		for _, e := range c.Missing {
			if e.Purpose == PurposeAPIForward || e.Purpose == PurposeAPILoadBalancer {
				missing = append(missing, e.Purpose)
			}
		}
		if !slices.Equal(missing, tc.missing) || len(c.Stale) != tc.stale {
			t.Errorf("%s: missing %v, stale %v; want %v and %d stale", tc.name, missing, c.Stale, tc.missing, tc.stale)
		}
	}
}

// A scale of a VPC tier cluster deletes every forward of the tier starting in
// 2222 .. 2222 + N - 1 after the scale: the user's forwards there, on any of
// the tier's IPs, are hazards; CKS's own are not.
func TestPreflightVPC(t *testing.T) {
	t.Parallel()
	l := vpcLayout(true)
	l.IPAddressID = snatIP
	onIP := []Rule{forward("n0", 2222, 22, "control"), forward("n1", 2223, 22, "w1"), forward("e0", 50000, 22, "etcd1"),
		forward("api", APIPort, APIPort, "control"), forward("user-2224", 2224, 8080, "w1")}
	other := forward("user-other-ip", 2222, 80, "w1")
	other.IPAddressID = otherIP
	beyond := forward("user-3000", 3000, 22, "w1")
	network := append(slices.Clone(onIP), other, beyond)
	for _, tc := range []struct {
		nodesAfter int
		want       []string
	}{
		{3, []string{"user-2224", "user-other-ip"}},
		{2, []string{"user-other-ip"}},
		{1, []string{"user-other-ip"}},
		{0, nil},
	} {
		var got []string
		for _, h := range PreflightVPC(l, onIP, network, tc.nodesAfter) {
			if h.Kind != HazardCollateral || h.Owner != OwnerUser || h.Remedy != RemedyAroundScale {
				t.Errorf("hazard %+v", h)
			}
			got = append(got, h.Rule.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d nodes after: %v, want %v", tc.nodesAfter, got, tc.want)
		}
	}
	if got := PreflightVPC(etcdLayout("w1"), onIP, network, 3); got != nil {
		t.Errorf("an isolated layout: %v", got)
	}
}
