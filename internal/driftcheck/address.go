package driftcheck

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
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
// :2222 on a VPC tier or behind an external load balancer; the first control
// VM's private IP :22 on a shared or routed network, whose endpoint is that
// very address. It returns "" when the cluster has no address yet.
func sshAddress(c *cloudstack.Cluster) (host string, port int) {
	if c.IPAddress != "" {
		return c.IPAddress, forwardedSSHPort
	}
	endpoint := endpointHost(c.Endpoint)
	private := firstControlIP(c)
	switch {
	case endpoint != "" && endpoint != private && !isMappedIP(c, endpoint):
		return endpoint, forwardedSSHPort
	case private != "":
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

// firstControlIP is the private IP of control node 1: the first VM of the
// map that is neither an etcd nor an external node (the map lists etcd VMs
// first, then control node 1).
func firstControlIP(c *cloudstack.Cluster) string {
	for _, vm := range c.VirtualMachines {
		if !vm.IsEtcdNode && !vm.IsExternalNode && !isEtcdName(c, vm.Name) {
			return vm.IPAddress
		}
	}
	return ""
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
