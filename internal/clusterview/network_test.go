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
