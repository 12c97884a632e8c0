package cluster

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// clusterServer is where CKS reaches a cluster, as
// KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort decides:
// the external load balancer detail (port 2222), else on a directly
// accessed network the first VM of the map on its own address (port 22,
// getKubernetesClusterServerIpSshPortForSharedNetwork), else the cluster's
// public IP (port 2222).
type clusterServer struct {
	address string
	sshPort int
	ip      *model.PublicIP // nil on a directly accessed network
}

func (s *Workers) clusterServer(c *model.Cluster) (clusterServer, bool) {
	if c.ExternalLBIP != "" {
		return clusterServer{address: c.ExternalLBIP, sshPort: NodesStartSSHPort}, true
	}
	if network.IsDirectAccess(s.DB.Network(c.NetworkID)) {
		v := s.firstClusterVM(c)
		if v == nil {
			return clusterServer{}, false
		}
		return clusterServer{address: v.IP, sshPort: network.DefaultSSHPort}, true
	}
	ip := s.clusterIP(c)
	if ip == nil {
		return clusterServer{}, false
	}
	return clusterServer{address: ip.Address, sshPort: NodesStartSSHPort, ip: ip}, true
}

// firstClusterVM is fetchControlVmIfMissing: the mapped VM with the lowest
// id (an etcd VM when the cluster has etcd nodes).
func (s *Workers) firstClusterVM(c *model.Cluster) *model.VM {
	var first *model.VM
	for _, row := range s.DB.MapRows(c.ID) {
		if v := s.DB.VM(row.VMID); v != nil && (first == nil || v.InternalID < first.InternalID) {
			first = v
		}
	}
	return first
}

// directControlTarget is the VM an SSH session to the cluster server of a
// directly accessed network reaches: the first VM of the map, or behind an
// external load balancer the first control VM (the simulator plays the
// operator's load balancer, which forwards 2222 to it). Nil unless it is a
// running control VM, the only nodes that hold the admin kubeconfig.
func (s *Workers) directControlTarget(c *model.Cluster) *model.VM {
	v := s.firstClusterVM(c)
	if c.ExternalLBIP != "" {
		v = s.firstControlVM(c)
	}
	if v == nil || v.State != model.VMRunning || v.Role != model.RoleControl {
		return nil
	}
	return v
}

func (s *Workers) firstControlVM(c *model.Cluster) *model.VM {
	vms, rows := s.DB.ClusterVMs(c)
	for i, v := range vms {
		if rows[i].Control {
			return v
		}
	}
	return nil
}

// directAPIReachable: the API answers on the endpoint's host, the external
// load balancer (any running control VM behind it) or the first VM.
func (s *Workers) directAPIReachable(c *model.Cluster) bool {
	if c.Endpoint == "" {
		return false
	}
	if c.ExternalLBIP == "" {
		return s.directControlTarget(c) != nil
	}
	vms, rows := s.DB.ClusterVMs(c)
	for i, v := range vms {
		if rows[i].Control && v.State == model.VMRunning {
			return true
		}
	}
	return false
}

// openExternalLB plays the operator's external load balancer: 6443 goes to
// the API (started by AddCluster on that address) and 2222 to the first
// control VM, which is what the start worker's
// "Make sure external load-balancer has port forwarding rules" asks for.
func (s *Workers) openExternalLB(c *model.Cluster) error {
	v := s.firstControlVM(c)
	if c.ExternalLBIP == "" || v == nil {
		return nil
	}
	if err := s.EP.OpenForward(c.ExternalLBIP, NodesStartSSHPort, s.SSHTarget(v)); err != nil {
		return fmt.Errorf("external load balancer %s: %w", c.ExternalLBIP, err)
	}
	return nil
}

func (s *Workers) closeExternalLB(c *model.Cluster) {
	if c.ExternalLBIP != "" {
		s.EP.CloseForward(c.ExternalLBIP, NodesStartSSHPort)
	}
}

// directEndpoint is the endpoint of a cluster on a directly accessed
// network: KubernetesClusterStartWorker.startKubernetesClusterOnCreate
// takes the server address after the control VM is deployed
// (getKubernetesClusterServerIpSshPort) and updateKubernetesClusterEntryEndpoint
// writes https://<address>:6443/ — the external load balancer, or the first
// VM's guest address.
func (w *createWorker) directEndpoint() *wire.APIError {
	s, c := w.s, w.c
	server, ok := s.clusterServer(c)
	if !ok {
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to start Kubernetes cluster : %s as no public IP found for the cluster", c.Name))
	}
	if err := s.openExternalLB(c); err != nil {
		s.Logf("%v", err)
		return w.fail(nil, evCreateFailed, w.unusable("access control node VMs of the cluster"))
	}
	c.Endpoint = fmt.Sprintf("https://%s:%d/", server.address, ClusterAPIPort)
	return nil
}

// validateDirectNetwork is getKubernetesClusterNetworkIfMissing for a
// network that is not Isolated: no owner check, no one-cluster-per-network
// check, no port checks; a directly accessed network needs an external
// load balancer address for more than one control node.
func validateDirectNetwork(req *createRequest) *wire.APIError {
	if req.controlNodes > 1 && req.extras.externalLBIP == "" {
		return wire.InternalError("Multi-control nodes, HA Kubernetes cluster with %s network ID: %s needs an external load balancer IP address. "+
			"externalloadbalanceripaddress parameter can be used", req.network.NetType, req.network.ID)
	}
	return nil
}

// nodeSSHTarget is the VM runInstallScriptOnVM reaches for the i-th node:
// on a directly accessed network the node itself on port 22, else the PF
// at 2222+i of the cluster IP.
func (s *Workers) nodeSSHTarget(server clusterServer, v *model.VM, i int) *model.VM {
	if server.ip == nil {
		if v.State == model.VMRunning {
			return v
		}
		return nil
	}
	return s.sshForwardTarget(server.ip, NodesStartSSHPort+i)
}
