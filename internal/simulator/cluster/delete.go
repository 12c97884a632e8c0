package cluster

import (
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

func cmdDeleteKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "DeleteKubernetesClusterCmd", 3,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runDelete(jr, cl) })
}

// runDelete is KubernetesClusterManagerImpl.deleteKubernetesCluster for a
// CloudManaged cluster: KubernetesClusterDestroyWorker.destroy.
func (s *Workers) runDelete(jr *core.JobRun, c *model.Cluster) (any, *wire.APIError) {
	jr.Op = "delete"
	if c.Removed {
		return nil, wire.InternalError("Kubernetes cluster %s has already been deleted", c.Name)
	}
	if err := s.destroyCluster(jr, c); err != nil {
		return nil, err
	}
	return map[string]any{"success": true}, nil
}

// destroyCluster is KubernetesClusterDestroyWorker.destroy; jr is nil for
// the scanner's retry. The state and the network checks run before the
// cluster moves to Destroying, so a refused delete leaves its state as it
// was. A failure after that sets the gc flag and leaves it in Destroying; an
// exception the worker does not catch (the 4.22.0.0 NullPointerException of
// removeSshFirewallRule) leaves it in Destroying without the flag.
func (s *Workers) destroyCluster(jr *core.JobRun, c *model.Cluster) *wire.APIError {
	step := func(name string) error {
		if jr == nil {
			return nil
		}
		return jr.Step(name)
	}
	if !slices.Contains([]string{model.ClusterRunning, model.ClusterStopped, model.ClusterAlert, model.ClusterError, model.ClusterDestroying}, c.State) {
		return wire.InternalError("Cannot perform delete operation on cluster : %s in state: %s", c.Name, c.State)
	}
	n := s.DB.Network(c.NetworkID)
	if c.NetworkCleanup && n != nil && !n.Removed {
		if err := s.validateNetworkCleanup(c, n); err != nil {
			return err
		}
	}
	s.Logf("Destroying Kubernetes cluster : %s", c.Name)
	s.transit(c, evDestroyRequested)
	if err := step("vms"); err != nil {
		c.GC = true
		return wire.InternalError("%s", core.FailText(err, fmt.Sprintf("Failed to destroy one or more VMs as part of Kubernetes cluster : %s cleanup", c.Name)))
	}
	vmIDs := s.destroyClusterVMs(c)
	if err := step("network"); err != nil {
		c.GC = true
		msg := fmt.Sprintf("Failed to remove network rules of Kubernetes cluster : %s", c.Name)
		if c.NetworkCleanup {
			msg = fmt.Sprintf("Failed to destroy network of Kubernetes cluster : %s cleanup", c.Name)
		}
		return wire.InternalError("%s", core.FailText(err, msg))
	}
	if err := s.cleanupClusterNetwork(c, n, vmIDs, step); err != nil {
		return err
	}
	for _, node := range s.DB.NodesOf(c.ID) {
		s.DeleteNode(node.VMID)
	}
	s.EP.RemoveCluster(c.ID)
	s.transit(c, evOperationSucceeded)
	c.Removed = true
	c.Kubeconfig = ""
	return nil
}

// validateNetworkCleanup refuses to destroy a cluster whose network is to
// be removed with it while other VMs use that network: external nodes, or
// VMs outside the cluster's map.
func (s *Workers) validateNetworkCleanup(c *model.Cluster, n *model.Network) *wire.APIError {
	rows := s.DB.MapRows(c.ID)
	for _, row := range rows {
		if row.External {
			return wire.InternalError("Kubernetes cluster : %s has external nodes, remove them before deleting the cluster", c.Name)
		}
	}
	networkVMs := s.VMsOnNetwork(n.ID)
	if len(networkVMs) > len(rows) {
		return wire.InternalError("Network : %s for Kubernetes cluster : %s has instances using it which are not part of the Kubernetes cluster", n.Name, c.Name)
	}
	for _, v := range networkVMs {
		if row := s.DB.MapRowOf(v.ID); row == nil || row.ClusterID != c.ID {
			return wire.InternalError("VM : %s which is not a part of Kubernetes cluster : %s is using Kubernetes cluster network : %s", v.ID, c.Name, n.Name)
		}
	}
	return nil
}

// destroyClusterVMs expunges the cluster's VMs, with their Kubernetes
// nodes, and deletes its map rows. It returns the ids of the VMs the map
// listed.
func (s *Workers) destroyClusterVMs(c *model.Cluster) []string {
	var vmIDs []string
	for _, row := range s.DB.MapRows(c.ID) {
		vmIDs = append(vmIDs, row.VMID)
		if v := s.DB.VM(row.VMID); v != nil {
			s.DeleteNode(v.ID)
			s.ExpungeVM(v)
		}
		s.DeleteMapRow(row)
	}
	return vmIDs
}

// cleanupClusterNetwork removes the network CKS created for the cluster,
// or else the cluster's rules on the network it was given. Its error is an
// exception the worker does not catch (no gc flag), except a failure to
// remove the isolated network's forwards (step "forwards") or to release a
// VPC tier's IP (step "release-ip"), which it catches and flags.
func (s *Workers) cleanupClusterNetwork(c *model.Cluster, n *model.Network, vmIDs []string, step func(string) error) *wire.APIError {
	switch {
	case n == nil || n.Removed:
	case c.NetworkCleanup:
		s.DestroyNetwork(n)
	case network.IsDirectAccess(n):
		// KubernetesClusterDestroyWorker: no rules to delete; only the
		// simulator's stand-in for the external load balancer goes.
		s.closeExternalLB(c)
	case network.IsVPCTier(n):
		return s.deleteVPCClusterRules(c, n, vmIDs, step)
	default:
		return s.deleteIsolatedClusterRules(c, n, vmIDs, step)
	}
	return nil
}

// deleteIsolatedClusterRules is KubernetesClusterDestroyWorker.
// deleteKubernetesClusterIsolatedNetworkRules, the user-network cleanup: the
// owner's load balancers on 6443 of the network (removeLoadBalancingRule),
// ONE 6443 firewall rule (removeApiFirewallRule), ONE SSH firewall rule
// picked by removeSshFirewallRule (etcd firewall rules leak, or the node
// range when an etcd rule is picked) and the PFs of the removed VMs. A
// failure to remove the forwards (ResourceUnavailableException, step
// "forwards") comes after both revokes: the worker catches it, flags the
// cluster for the garbage collector and leaves it in Destroying.
func (s *Workers) deleteIsolatedClusterRules(c *model.Cluster, n *model.Network, vmIDs []string, step func(string) error) *wire.APIError {
	ip := s.clusterIP(c)
	if ip == nil {
		return nil
	}
	for _, r := range s.RulesOnIP(ip.ID, model.PurposeLB) {
		if r.NetworkID == n.ID && r.AccountID == c.AccountID && r.Start == ClusterAPIPort && r.End == ClusterAPIPort {
			s.RevokeRule(r)
		}
	}
	s.removeApiFirewallRule(ip)
	if _, err := s.removeSshFirewallRule(ip, n); err != nil {
		return wire.InternalError("%s", err.Error())
	}
	if err := step("forwards"); err != nil {
		c.GC = true
		return wire.InternalError("%s", core.FailText(err, fmt.Sprintf("Failed to remove network rules of Kubernetes cluster : %s", c.Name)))
	}
	s.removeVMPortForwards(vmIDs)
	return nil
}

// removeApiFirewallRule is KubernetesClusterResourceModifierActionWorker.
// removeApiFirewallRule: the first TCP firewall rule of the IP whose ports
// are exactly 6443-6443, in the order the DAO returns them (no ORDER BY),
// whoever made it. A user's rule on 6443 is as likely to go as CKS's.
func (s *Workers) removeApiFirewallRule(ip *model.PublicIP) *model.Rule {
	for _, r := range s.tcpFirewallRules(ip) {
		if r.HasPorts && r.Start == ClusterAPIPort && r.End == ClusterAPIPort {
			s.Logf("The API firewall rule [%s] with the id [%d] was revoked", javaString(r.Name), r.InternalID)
			s.RevokeRule(r)
			return r
		}
	}
	return nil
}

// deleteVPCClusterRules is KubernetesClusterDestroyWorker.
// deleteKubernetesClusterVpcTierRules and releaseVpcTierPublicIpIfNeeded:
// without the cluster's VPC IP (getVpcTierKubernetesPublicIp) nothing is
// done; else the tier's ACL items for 6443 and 22 go (removeVpcTierAclRules:
// every Allow item "TCP" on exactly that port, whoever made it), then the
// PFs of the removed VMs, and the IP is released with whatever rules remain
// on it. The 2379 items stay. A failure to release the IP (step release-ip)
// sets the gc flag and leaves the cluster in Destroying, its items revoked.
func (s *Workers) deleteVPCClusterRules(c *model.Cluster, n *model.Network, vmIDs []string, step func(string) error) *wire.APIError {
	ip := s.clusterIP(c)
	if ip == nil || c.PublicIPID == "" {
		return nil
	}
	s.removeVpcTierACLRules(n)
	s.removeVMPortForwards(vmIDs)
	if err := step("release-ip"); err != nil {
		c.GC = true
		return wire.InternalError("%s", core.FailText(err, fmt.Sprintf("Failed to release public IP for VPC tier used by Kubernetes cluster : %s", c.Name)))
	}
	s.ReleaseIP(ip)
	return nil
}

func (s *Workers) removeVMPortForwards(vmIDs []string) {
	for _, r := range slices.Clone(s.DB.Rules) {
		if r.Purpose == model.PurposePF && slices.Contains(vmIDs, r.VMID) {
			s.RevokeRule(r)
		}
	}
}
