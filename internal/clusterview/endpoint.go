package clusterview

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// EndpointHost is the host of the cluster's endpoint, https://<ip>:6443/,
// or "" when it has none.
func EndpointHost(c *cloudstack.Cluster) string {
	u, err := url.Parse(strings.TrimSpace(c.Endpoint))
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Hostname()
}

// IsNodeAddress tells whether addr is the own address of a VM of the
// cluster's map, as the endpoint is on a Shared or ROUTED network without
// an external load balancer.
func IsNodeAddress(c *cloudstack.Cluster, addr string) bool {
	want, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	for _, vm := range c.VirtualMachines {
		if got, err := netip.ParseAddr(vm.IPAddress); err == nil && got == want {
			return true
		}
	}
	return false
}
