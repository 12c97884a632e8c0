package clusterops

import (
	"maps"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// The types whose VMs run a template other than the cluster's are the node
// templates; a type on the cluster's template, a type whose VMs disagree
// and the user's external nodes name none.
func TestNodeTemplatesFromTheVMMap(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	c.TemplateID = "cks-system"
	set := func(template string, ids ...string) {
		for i := range c.VirtualMachines {
			for _, id := range ids {
				if c.VirtualMachines[i].ID == id {
					c.VirtualMachines[i].TemplateID = template
				}
			}
		}
	}
	set("cks-system", "e1", "e2", "e3", "c1", "w1")
	if got := NodeTemplates(c); got != nil {
		t.Fatalf("every type on the cluster's template: %v, want nil", got)
	}

	set("etcd-tpl", "e1", "e2", "e3")
	set("worker-tpl", "w1")
	if got, want := NodeTemplates(c), map[string]string{"ETCD": "etcd-tpl", "WORKER": "worker-tpl"}; !maps.Equal(got, want) {
		t.Fatalf("NodeTemplates = %v, want %v", got, want)
	}

	set("other", "e2")
	c.VirtualMachines[4].IsExternalNode = true
	if got, want := NodeTemplates(c), map[string]string(nil); !maps.Equal(got, want) || got != nil {
		t.Fatalf("mixed etcd templates and an external worker: %v, want nil", got)
	}
}

// On a Shared network an endpoint on no VM's address is the external load
// balancer's; on the first VM's address, or on any other network, there is
// none to tell.
func TestExternalLoadBalancerIPFromTheEndpoint(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	for i := range c.VirtualMachines {
		c.VirtualMachines[i].IPAddress = "10.1.1." + string(rune('2'+i))
	}
	for _, tc := range []struct {
		endpoint string
		network  rules.NetworkKind
		want     string
	}{
		{"https://10.1.1.200:6443/", rules.NetworkDirect, "10.1.1.200"},
		{"https://10.1.1.2:6443/", rules.NetworkDirect, ""},
		{"https://10.1.1.200:6443/", rules.NetworkIsolated, ""},
		{"https://[2001:db8::5]:6443/", rules.NetworkDirect, "2001:db8::5"},
		{"", rules.NetworkDirect, ""},
		{"https://cks.example.com:6443/", rules.NetworkDirect, ""},
	} {
		c.Endpoint = tc.endpoint
		if got := ExternalLoadBalancerIP(c, tc.network); got != tc.want {
			t.Errorf("endpoint %q on %s: %q, want %q", tc.endpoint, tc.network, got, tc.want)
		}
	}
}
