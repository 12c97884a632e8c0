package clusterview

import (
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

func TestNetworkKind(t *testing.T) {
	t.Parallel()
	isolated := &cloudstack.Cluster{NetworkID: "n", IPAddressID: "ip", Endpoint: "https://10.0.0.1:6443/"}
	routed := &cloudstack.Cluster{NetworkID: "n", Endpoint: "https://10.1.0.5:6443/"}
	unstarted := &cloudstack.Cluster{NetworkID: "n"}
	for _, tc := range []struct {
		name string
		n    *cloudstack.Network
		c    *cloudstack.Cluster
		want rules.NetworkKind
	}{
		{"isolated with a source NAT IP", &cloudstack.Network{Type: "Isolated"}, isolated, rules.NetworkIsolated},
		{"VPC tier", &cloudstack.Network{Type: "Isolated", VPCID: "vpc"}, routed, rules.NetworkVPC},
		{"shared", &cloudstack.Network{Type: "Shared"}, routed, rules.NetworkDirect},
		{"routed: isolated, reached without source NAT", &cloudstack.Network{Type: "Isolated"}, routed, rules.NetworkDirect},
		{"isolated, not started yet", &cloudstack.Network{Type: "Isolated"}, unstarted, rules.NetworkIsolated},
		{"not visible, with a source NAT IP", nil, isolated, rules.NetworkIsolated},
		{"not visible, without", nil, routed, rules.NetworkDirect},
		{"no network", &cloudstack.Network{Type: "Isolated"}, &cloudstack.Cluster{IPAddressID: "ip"}, rules.NetworkDirect},
	} {
		if got := NetworkKind(tc.c, tc.n); got != tc.want {
			t.Errorf("%s: NetworkKind = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestTierOf(t *testing.T) {
	t.Parallel()
	n := &cloudstack.Network{ID: "t", Name: "tier", VPCID: "vpc", ACLID: "acl", ConserveMode: true}
	if got := TierOf(n); got != (Tier{ID: "t", Name: "tier", VPCID: "vpc", ACLID: "acl", API: rules.VPCAPILoadBalancer}) {
		t.Errorf("TierOf = %+v", got)
	}
	n.ConserveMode = false
	if got := TierOf(n).API; got != rules.VPCAPIForward {
		t.Errorf("TierOf(not conserve mode).API = %s, want %s", got, rules.VPCAPIForward)
	}
}

func TestClusterAddresses(t *testing.T) {
	t.Parallel()
	ips := []cloudstack.PublicIPAddress{{ID: "a", IPAddress: "192.0.2.1"}, {ID: "b", IPAddress: "192.0.2.2", IsSourceNat: true}}
	if id, address, ok := SourceNATAddress(ips); !ok || id != "b" || address != "192.0.2.2" {
		t.Errorf("SourceNATAddress = %s %s %v, want b 192.0.2.2", id, address, ok)
	}
	if _, _, ok := SourceNATAddress(ips[:1]); ok {
		t.Errorf("SourceNATAddress found one where none is")
	}
	if id, ok := AddressID(ips, "192.0.2.1"); !ok || id != "a" {
		t.Errorf("AddressID = %s %v, want a", id, ok)
	}
	forwards := []cloudstack.PortForwardingRule{{IPAddress: "192.0.2.9"}, {IPAddress: "192.0.2.1", IPAddressID: "a"}}
	if got := ForwardedAddressID(forwards, "192.0.2.1"); got != "a" {
		t.Errorf("ForwardedAddressID = %q, want a", got)
	}
	if got := ForwardedAddressID(forwards, "192.0.2.9"); got != "" {
		t.Errorf("ForwardedAddressID of a forward without its IP's id = %q, want none", got)
	}
}
