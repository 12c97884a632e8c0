package driftcheck

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
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
	endpoint := clusterview.EndpointHost(c)
	switch {
	case endpoint != "" && !clusterview.IsNodeAddress(c, endpoint):
		return endpoint, forwardedSSHPort
	case endpoint != "":
		return endpoint, directSSHPort
	}
	if private := firstControlIP(c); private != "" {
		return private, directSSHPort
	}
	return "", 0
}

// firstControlIP is the private IP of control node 1: of the VMs that are
// neither etcd nor external nodes, a control VM (clusterview.Roles) before a
// worker, then the one whose name sorts first (CKS names control VMs
// <cluster>-control-<creation time in hex>), whatever order the map is
// listed in.
func firstControlIP(c *cloudstack.Cluster) string {
	type candidate struct {
		worker   bool
		name, ip string
	}
	var candidates []candidate
	for _, vm := range clusterview.MapVMs(c) {
		if vm.Role != naming.RoleEtcd && !vm.External && vm.IPAddress != "" {
			candidates = append(candidates, candidate{worker: vm.Role != naming.RoleControl, name: vm.Name, ip: vm.IPAddress})
		}
	}
	if len(candidates) == 0 {
		return ""
	}
	return slices.MinFunc(candidates, func(a, b candidate) int {
		return cmp.Or(cmpBool(a.worker, b.worker), strings.Compare(a.name, b.name))
	}).ip
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
