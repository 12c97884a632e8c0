package rules

import (
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

func TestArmedEtcdRulesFollowsTheListOrder(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	fresh := newServer(1)
	fresh.provisionCKS(t, l)
	scaled := afterScaleUp(t)
	scaledLayout := etcdLayout("w1", "w2")

	newestFirst := func(rs []Rule) []Rule {
		out := slices.Clone(rs)
		slices.Reverse(out)
		return out
	}
	cases := []struct {
		name      string
		l         Layout
		list      []Rule
		armed     bool
		knowsWhen bool
	}{
		{"untouched, newest first as the server lists", l, newestFirst(fresh.onIP(snatIP)), false, true},
		{"untouched, oldest first", l, fresh.onIP(snatIP), false, true},
		{"scaled, newest first", scaledLayout, newestFirst(scaled.onIP(snatIP)), true, true},
		{"scaled, oldest first", scaledLayout, scaled.onIP(snatIP), true, true},
	}
	for _, tc := range cases {
		armed, known := ArmedEtcdRules(tc.l, tc.list)
		if armed != tc.armed || known != tc.knowsWhen {
			t.Errorf("%s: armed %v known %v, want %v %v", tc.name, armed, known, tc.armed, tc.knowsWhen)
		}
	}
	// A list that contradicts both directions (the API rule between etcd
	// rules) is taken as armed.
	mixed := []Rule{firewall("e0", 50000, 50000), firewall("api", 6443, 6443), firewall("e1", 50001, 50001), firewall("r", 2222, 2223)}
	if armed, known := ArmedEtcdRules(l, mixed); !armed || known {
		t.Errorf("contradictory list: armed %v known %v, want true false", armed, known)
	}
	// The hardened layout has no single etcd rules: nothing to arm.
	if armed, known := ArmedEtcdRules(l, hardened(t, l).onIP(snatIP)); armed || !known {
		t.Errorf("hardened: armed %v known %v", armed, known)
	}
}

func TestDetectEtcdStartPortReadsTheForwards(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	forwards := []Rule{
		forward("n0", 2222, 22, "control"),
		forward("e1", 41001, 22, "etcd2"),
		forward("e2", 41002, 22, "etcd3"),
		forward("other", 41010, 80, "etcd1"),
	}
	if got, ok := DetectEtcdStartPort(l, forwards); !ok || got != 41000 {
		t.Fatalf("start = %d, %v; want 41000 from etcd 2 and 3 (etcd 1's forward is gone)", got, ok)
	}
	// The map order does not matter; the configured start decides between
	// the candidates the ports leave.
	reversed := l
	reversed.Nodes = slices.Clone(l.Nodes)
	slices.Reverse(reversed.Nodes)
	reversed.EtcdStartPort = 41001
	if got, _ := DetectEtcdStartPort(reversed, forwards); got != 41001 {
		t.Fatalf("start with the setting at 41001 = %d, want 41001", got)
	}
	all := append(slices.Clone(forwards), forward("e0", 41000, 22, "etcd1"))
	if got, _ := DetectEtcdStartPort(reversed, all); got != 41000 {
		t.Fatalf("start with every forward = %d, want 41000", got)
	}
	if _, ok := DetectEtcdStartPort(l, forwards[:1]); ok {
		t.Fatal("detected a start port without etcd forwards")
	}
	noEtcd := Layout{Network: NetworkIsolated, Nodes: []Node{node("control", naming.RoleControl)}}
	if _, ok := DetectEtcdStartPort(noEtcd, forwards); ok {
		t.Fatal("detected a start port for a cluster without etcd nodes")
	}
}

// The user rules the destroy worker may take: TCP rules of exactly
// 6443-6443, and those the SSH selector accepts; never CKS's own, never a
// rule of another protocol, wider ports or no ports.
func TestDestroyCandidates(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.APICIDRs = []string{"127.0.0.1/32"}
	udp := firewall("udp-6443", 6443, 6443, "10.0.0.0/8")
	udp.Protocol = "udp"
	rules := []Rule{
		firewall("range", 2222, 2223),
		firewall("api", 6443, 6443, "127.0.0.1/32"),
		firewall("user-api", 6443, 6443, "10.0.0.0/8"),
		firewall("user-wide", 6000, 7000, "10.0.0.0/8"),
		firewall("user-2222", 2222, 2222, "192.0.2.0/24"),
		firewall("user-twin", 22, 22, "192.0.2.0/24"),
		firewall("user-portless", 0, 0, "192.0.2.0/24"),
		firewall("user-other", 8080, 8080),
		udp,
	}
	forwards := []Rule{forward("pf-22", 22, 22, "w1")}
	var got []string
	for _, r := range DestroyCandidates(Classify(l, append(rules, forwards...)), forwards) {
		got = append(got, r.ID)
	}
	if want := []string{"user-api", "user-2222", "user-twin"}; !slices.Equal(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
}
