package rules

import (
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

func TestExpectedIsolatedEtcdClusterHasOneEtcdRange(t *testing.T) {
	t.Parallel()
	got := Expected(etcdLayout("w1"))
	want := []string{
		"NodeSSHRange/0", "APIFirewall/0", "NodeSSHForward/0", "NodeSSHForward/1", "APILoadBalancer/0",
		"EtcdForward/0", "EtcdForward/1", "EtcdForward/2", "EtcdSSHRange/0",
	}
	if p := purposes(got); !slices.Equal(p, want) {
		t.Fatalf("purposes = %v, want %v", p, want)
	}
	r := got[0]
	if r.Kind != KindFirewall || r.StartPort != 2222 || r.EndPort != 2223 || r.Protocol != "tcp" || !slices.Equal(r.CIDRs, []string{"0.0.0.0/0"}) {
		t.Errorf("node range = %+v", r)
	}
	if f := got[3]; f.StartPort != 2223 || f.PrivatePort != 22 || f.VMID != "w1" || len(f.CIDRs) != 0 {
		t.Errorf("forward 1 = %+v", f)
	}
	if e := got[7]; e.StartPort != 50002 || e.PrivatePort != 22 || e.VMID != "etcd3" {
		t.Errorf("etcd forward 2 = %+v", e)
	}
	if e := got[8]; e.Kind != KindFirewall || e.StartPort != 50000 || e.EndPort != 50002 || !slices.Equal(e.CIDRs, []string{AnyCIDR}) {
		t.Errorf("etcd range = %+v, want firewall 50000-50002 from 0.0.0.0/0", e)
	}
	for _, e := range got {
		if e.Optional {
			t.Errorf("%s is optional on an isolated network, where CKS always creates it", e)
		}
	}
}

func TestExpectedEtcdRangeOfOneEtcdNodeHasTwoPorts(t *testing.T) {
	t.Parallel()
	l := Layout{Network: NetworkIsolated, EtcdStartPort: 41000, Nodes: []Node{
		node("etcd1", naming.RoleEtcd), node("control", naming.RoleControl), node("w1", naming.RoleWorker),
	}}
	var etcdRange Expectation
	for _, e := range Expected(l) {
		if e.Purpose == PurposeEtcdSSHRange {
			etcdRange = e
		}
	}
	// 41000-41000 would have the exact ports of the forward 41000 -> 22,
	// which is what CloudStack's selector looks for.
	if etcdRange.StartPort != 41000 || etcdRange.EndPort != 41001 {
		t.Fatalf("etcd range = %+v, want 41000-41001", etcdRange)
	}
}

func TestExpectedSSHCIDRsApplyToBothSSHRanges(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.SSHCIDRs = []string{"192.0.2.0/24", " 10.0.0.0/8", "10.0.0.0/8"}
	for _, e := range Expected(l) {
		want := []string{AnyCIDR}
		if e.Purpose == PurposeNodeSSHRange || e.Purpose == PurposeEtcdSSHRange {
			want = []string{"10.0.0.0/8", "192.0.2.0/24"}
		}
		if e.Kind == KindFirewall && !slices.Equal(e.CIDRs, want) {
			t.Errorf("%s CIDRs = %v, want %v", e, e.CIDRs, want)
		}
	}
}

func TestExpectedCustomEtcdStartPort(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.EtcdStartPort = 40000
	for _, e := range Expected(l) {
		if e.Purpose == PurposeEtcdForward && e.Index == 1 && e.StartPort != 40001 {
			t.Fatalf("etcd forward 1 port = %d, want 40001", e.StartPort)
		}
		if e.Purpose == PurposeEtcdSSHRange && (e.StartPort != 40000 || e.EndPort != 40002) {
			t.Fatalf("etcd range = %d-%d, want 40000-40002", e.StartPort, e.EndPort)
		}
	}
}

func TestExpectedExternalNodes(t *testing.T) {
	t.Parallel()
	l := Layout{Network: NetworkIsolated, Nodes: []Node{
		node("control", naming.RoleControl),
		node("w1", naming.RoleWorker),
		{ID: "ext1", Name: "ext1", Role: naming.RoleWorker, External: true},
		node("w2", naming.RoleWorker),
	}}
	got := Expected(l)
	want := []string{
		"NodeSSHRange/0", "APIFirewall/0",
		"NodeSSHForward/0", "NodeSSHForward/1", "NodeSSHForward/2", "NodeSSHForward/3", "APILoadBalancer/0",
	}
	if p := purposes(got); !slices.Equal(p, want) {
		t.Fatalf("purposes = %v, want %v", p, want)
	}
	if got[0].EndPort != 2225 {
		t.Errorf("range end = %d, want 2225: the range covers the external node's forward", got[0].EndPort)
	}
	// Externals come after the map's other nodes, whatever their map position.
	if got[4].VMID != "w2" || got[5].VMID != "ext1" || got[5].StartPort != 2225 {
		t.Errorf("forwards 2, 3 = %+v, %+v", got[4], got[5])
	}
}

func TestExpectedVPC(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.Network = NetworkVPC
	got := Expected(l)
	want := []string{
		"APIForward/0", "APILoadBalancer/0", "NodeSSHForward/0", "NodeSSHForward/1",
		"EtcdForward/0", "EtcdForward/1", "EtcdForward/2",
	}
	if p := purposes(got); !slices.Equal(p, want) {
		t.Fatalf("purposes = %v, want %v", p, want)
	}
	for _, e := range got {
		if e.Kind == KindFirewall {
			t.Errorf("VPC expects no firewall rule, got %s", e)
		}
	}
	if !got[0].Optional || !got[1].Optional || got[0].VMID != "control" {
		t.Errorf("API access = %+v / %+v", got[0], got[1])
	}
}

func TestExpectedDirectAndEmpty(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1")
	l.Network = NetworkDirect
	if got := Expected(l); len(got) != 0 {
		t.Errorf("direct network expects %v", purposes(got))
	}
	if got := Expected(Layout{Network: NetworkIsolated}); len(got) != 0 {
		t.Errorf("empty map expects %v", purposes(got))
	}
}
