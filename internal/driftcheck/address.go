package driftcheck

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// Ports CloudStack uses to reach control node 1
// (KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort).
const (
	forwardedSSHPort = 2222
	directSSHPort    = 22
)

// sshAddress is where CloudStack itself reaches control node 1, as
// KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort picks
// it: the source NAT IP :2222 on an isolated network; the endpoint's IP
// :2222 on a VPC tier or behind an external load balancer; on a shared or
// routed network the VM whose own address the endpoint is, :22, or before
// the endpoint is set, control node 1's address. Nothing here depends on
// the order the API lists the VM map in. It returns "" when the cluster has
// no address yet.
func sshAddress(c *cloudstack.Cluster) (host string, port int) {
	if c.IPAddress != "" {
		return c.IPAddress, forwardedSSHPort
	}
	endpoint := endpointHost(c.Endpoint)
	switch {
	case endpoint != "" && !isMappedIP(c, endpoint):
		return endpoint, forwardedSSHPort
	case endpoint != "":
		return endpoint, directSSHPort
	}
	if private := firstControlIP(c); private != "" {
		return private, directSSHPort
	}
	return "", 0
}

// endpointHost is the host of https://<ip>:6443/, or "".
func endpointHost(endpoint string) string {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Hostname()
}

// firstControlIP is the private IP of control node 1: of the VMs that are
// neither etcd nor external nodes, the one whose name sorts first (CKS
// names control VMs <cluster>-control-<creation time in hex>), whatever
// order the map is listed in.
func firstControlIP(c *cloudstack.Cluster) string {
	first := -1
	for i, vm := range c.VirtualMachines {
		if vm.IsEtcdNode || vm.IsExternalNode || isEtcdName(c, vm.Name) || vm.IPAddress == "" {
			continue
		}
		if first < 0 || controlNameBefore(c, vm.Name, c.VirtualMachines[first].Name) {
			first = i
		}
	}
	if first < 0 {
		return ""
	}
	return c.VirtualMachines[first].IPAddress
}

// controlNameBefore orders control VMs before workers, then by name.
func controlNameBefore(c *cloudstack.Cluster, a, b string) bool {
	m := naming.NewMatcher(c.Name, c.ID)
	roleA, _ := m.Role(a)
	roleB, _ := m.Role(b)
	if (roleA == naming.RoleControl) != (roleB == naming.RoleControl) {
		return roleA == naming.RoleControl
	}
	return a < b
}

func isMappedIP(c *cloudstack.Cluster, ip string) bool {
	for _, vm := range c.VirtualMachines {
		if vm.IPAddress == ip {
			return true
		}
	}
	return false
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
