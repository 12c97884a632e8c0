package clusterview

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

func TestRuleConversionsLeaveOutRulesOnTheirWayOut(t *testing.T) {
	t.Parallel()
	fws := FirewallRules([]cloudstack.FirewallRule{
		{ID: "fw1", Protocol: "tcp", StartPort: 2222, EndPort: 2224, CIDRList: []string{"10.0.0.0/8"}, IPAddressID: "ip", NetworkID: "n", State: "Active"},
		{ID: "fw2", Protocol: "tcp", StartPort: 6443, EndPort: 6443, IPAddressID: "ip", State: "Revoke"},
	})
	want := []rules.Rule{{ID: "fw1", Kind: rules.KindFirewall, Protocol: "tcp", StartPort: 2222, EndPort: 2224,
		CIDRs: []string{"10.0.0.0/8"}, IPAddressID: "ip", NetworkID: "n"}}
	if !reflect.DeepEqual(fws, want) {
		t.Errorf("FirewallRules = %+v, want %+v", fws, want)
	}
	pfs := ForwardRules([]cloudstack.PortForwardingRule{
		{ID: "pf1", Protocol: "tcp", PublicPort: 2222, PublicEndPort: 2222, PrivatePort: 22, PrivateEndPort: 22,
			VirtualMachineID: "vm", IPAddressID: "ip", NetworkID: "n", State: "Add"},
		{ID: "pf2", Protocol: "tcp", PublicPort: 2223, State: "revoke"},
	})
	wantPF := []rules.Rule{{ID: "pf1", Kind: rules.KindPortForward, Protocol: "tcp", StartPort: 2222, EndPort: 2222,
		PrivatePort: 22, PrivateEndPort: 22, VMID: "vm", IPAddressID: "ip", NetworkID: "n"}}
	if !reflect.DeepEqual(pfs, wantPF) {
		t.Errorf("ForwardRules = %+v, want %+v", pfs, wantPF)
	}
	lbs := LoadBalancerRules([]cloudstack.LoadBalancerRule{
		{ID: "lb1", Protocol: "tcp", PublicPort: 6443, PrivatePort: 6443, PublicIPID: "ip", NetworkID: "n", State: "Active"},
		{ID: "lb2", Protocol: "tcp", PublicPort: 80, PrivatePort: 80, PublicIPID: "ip", State: "Deleting"},
	})
	wantLB := []rules.Rule{{ID: "lb1", Kind: rules.KindLoadBalancer, Protocol: "tcp", StartPort: 6443, EndPort: 6443,
		PrivatePort: 6443, PrivateEndPort: 6443, IPAddressID: "ip", NetworkID: "n"}}
	if !reflect.DeepEqual(lbs, wantLB) {
		t.Errorf("LoadBalancerRules = %+v, want %+v", lbs, wantLB)
	}
}

func TestReadRules(t *testing.T) {
	t.Parallel()
	c := &cloudstack.Cluster{ID: "c", Name: "prod", NetworkID: "n", ControlNodes: 1, EtcdNodes: 2, VirtualMachines: []cloudstack.ClusterVM{
		{ID: "e1", Name: "prod-etcd-1-1932a7a3b01", IsEtcdNode: true}, {ID: "e2", Name: "prod-etcd-2-1932a7a3b02", IsEtcdNode: true},
		{ID: "c1", Name: "prod-control-1932a7a3b03"},
	}}
	l := Layout(c, rules.NetworkIsolated, rules.DefaultEtcdStartPort)
	l.IPAddressID = "ip"
	forward := func(id, ip string, port int, vm string) cloudstack.PortForwardingRule {
		return cloudstack.PortForwardingRule{ID: id, Protocol: "tcp", PublicPort: port, PublicEndPort: port, PrivatePort: 22,
			PrivateEndPort: 22, VirtualMachineID: vm, IPAddressID: ip, NetworkID: "n"}
	}
	got := ReadRules(l, RuleRecords{
		Firewalls:     []cloudstack.FirewallRule{{ID: "fw", Protocol: "tcp", StartPort: 2222, EndPort: 2222, IPAddressID: "ip"}},
		LoadBalancers: []cloudstack.LoadBalancerRule{{ID: "lb", Protocol: "tcp", PublicPort: 6443, PrivatePort: 6443, PublicIPID: "ip"}},
		Forwards: []cloudstack.PortForwardingRule{forward("pf-node", "ip", 2222, "c1"), forward("pf-etcd1", "ip", 40000, "e1"),
			forward("pf-etcd2", "ip", 40001, "e2"), forward("pf-other-ip", "ip2", 2222, "x")},
	})
	var ids []string
	for _, r := range got.OnIP {
		ids = append(ids, r.ID)
	}
	if want := []string{"fw", "lb", "pf-node", "pf-etcd1", "pf-etcd2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("OnIP = %v, want %v: firewall rules, load balancer rules, then the forwards on the IP", ids, want)
	}
	if len(got.NetworkForwards) != 4 {
		t.Errorf("NetworkForwards has %d forwards, want the network's 4", len(got.NetworkForwards))
	}
	if got.Layout.EtcdStartPort != 40000 {
		t.Errorf("EtcdStartPort = %d, want 40000, the etcd forwards' (the setting is dynamic)", got.Layout.EtcdStartPort)
	}
	if l.EtcdStartPort != rules.DefaultEtcdStartPort {
		t.Errorf("ReadRules changed the layout it was given")
	}
	if none := ReadRules(rules.Layout{}, RuleRecords{Forwards: []cloudstack.PortForwardingRule{forward("pf", "", 2222, "c1")}}); len(none.OnIP) != 0 {
		t.Errorf("a layout without an IP has rules on it: %+v", none.OnIP)
	}
}

func TestServerFor(t *testing.T) {
	t.Parallel()
	portless := rules.Rule{Kind: rules.KindFirewall, Protocol: "TCP"}
	ranged := rules.Rule{Kind: rules.KindFirewall, Protocol: "tcp", StartPort: 2222, EndPort: 2223}
	calls := 0
	version := func(v string, err error) func() (string, error) {
		return func() (string, error) { calls++; return v, err }
	}
	if got := ServerFor([]rules.Rule{ranged}, version("4.22.0.0", nil)); got.PortlessRuleBreaksScale || calls != 0 {
		t.Errorf("without a port-less rule: %+v after %d version reads, want none", got, calls)
	}
	for _, tc := range []struct {
		v    string
		err  error
		want bool
	}{
		{"4.22.0.0", nil, true},
		{"4.22.1.0", nil, false},
		{"", errors.New("listCapabilities failed"), true}, // unknown: the worst
	} {
		if got := ServerFor([]rules.Rule{ranged, portless}, version(tc.v, tc.err)); got.PortlessRuleBreaksScale != tc.want {
			t.Errorf("version %q (%v): PortlessRuleBreaksScale = %v, want %v", tc.v, tc.err, got.PortlessRuleBreaksScale, tc.want)
		}
	}
	if calls != 3 {
		t.Errorf("the version was read %d times, want once per judgement with a port-less rule (3)", calls)
	}
}
