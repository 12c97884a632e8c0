package simulator

import (
	"fmt"
	"slices"
)

func cmdDeleteKubernetesCluster(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "DeleteKubernetesClusterCmd", 3,
		func(jr *jobRun) (any, *apiError) { return s.runDelete(jr, cl) })
}

// runDelete is KubernetesClusterManagerImpl.deleteKubernetesCluster for a
// CloudManaged cluster: KubernetesClusterDestroyWorker.destroy.
func (s *Simulator) runDelete(jr *jobRun, c *cluster) (any, *apiError) {
	jr.op = "delete"
	if c.removed {
		return nil, internalError("Kubernetes cluster %s has already been deleted", c.name)
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
func (s *Simulator) destroyCluster(jr *jobRun, c *cluster) *apiError {
	step := func(name string) error {
		if jr == nil {
			return nil
		}
		return jr.step(name)
	}
	if !slices.Contains([]string{stRunning, stStopped, stAlert, stError, stDestroying}, c.state) {
		return internalError("Cannot perform delete operation on cluster : %s in state: %s", c.name, c.state)
	}
	n := s.st.network(c.networkID)
	if c.networkCleanup && n != nil && !n.removed {
		if err := s.validateNetworkCleanup(c, n); err != nil {
			return err
		}
	}
	s.logf("Destroying Kubernetes cluster : %s", c.name)
	s.transit(c, evDestroyRequested)
	if err := step("vms"); err != nil {
		c.gc = true
		return internalError("%s", failText(err, fmt.Sprintf("Failed to destroy one or more VMs as part of Kubernetes cluster : %s cleanup", c.name)))
	}
	vmIDs := s.destroyClusterVMs(c)
	if err := step("network"); err != nil {
		c.gc = true
		msg := fmt.Sprintf("Failed to remove network rules of Kubernetes cluster : %s", c.name)
		if c.networkCleanup {
			msg = fmt.Sprintf("Failed to destroy network of Kubernetes cluster : %s cleanup", c.name)
		}
		return internalError("%s", failText(err, msg))
	}
	if err := s.cleanupClusterNetwork(c, n, vmIDs, step); err != nil {
		return err
	}
	for _, node := range s.st.nodesOf(c.id) {
		s.deleteNode(node.vmID)
	}
	s.ep.RemoveCluster(c.id)
	s.transit(c, evOperationSucceeded)
	c.removed = true
	c.kubeconfig = ""
	return nil
}

// validateNetworkCleanup refuses to destroy a cluster whose network is to
// be removed with it while other VMs use that network: external nodes, or
// VMs outside the cluster's map.
func (s *Simulator) validateNetworkCleanup(c *cluster, n *network) *apiError {
	rows := s.st.mapRows(c.id)
	for _, row := range rows {
		if row.external {
			return internalError("Kubernetes cluster : %s has external nodes, remove them before deleting the cluster", c.name)
		}
	}
	networkVMs := s.vmsOnNetwork(n.id)
	if len(networkVMs) > len(rows) {
		return internalError("Network : %s for Kubernetes cluster : %s has instances using it which are not part of the Kubernetes cluster", n.name, c.name)
	}
	for _, v := range networkVMs {
		if row := s.st.mapRowOf(v.id); row == nil || row.clusterID != c.id {
			return internalError("VM : %s which is not a part of Kubernetes cluster : %s is using Kubernetes cluster network : %s", v.id, c.name, n.name)
		}
	}
	return nil
}

// destroyClusterVMs expunges the cluster's VMs, with their Kubernetes
// nodes, and deletes its map rows. It returns the ids of the VMs the map
// listed.
func (s *Simulator) destroyClusterVMs(c *cluster) []string {
	var vmIDs []string
	for _, row := range s.st.mapRows(c.id) {
		vmIDs = append(vmIDs, row.vmID)
		if v := s.st.vm(row.vmID); v != nil {
			s.deleteNode(v.id)
			s.expungeVM(v)
		}
		s.deleteMapRow(row)
	}
	return vmIDs
}

// cleanupClusterNetwork removes the network CKS created for the cluster,
// or else the cluster's rules on the network it was given. Its error is an
// exception the worker does not catch (no gc flag), except a failure to
// remove the isolated network's forwards (step "forwards") or to release a
// VPC tier's IP (step "release-ip"), which it catches and flags.
func (s *Simulator) cleanupClusterNetwork(c *cluster, n *network, vmIDs []string, step func(string) error) *apiError {
	switch {
	case n == nil || n.removed:
	case c.networkCleanup:
		s.destroyNetwork(n)
	case isDirectAccess(n):
		// KubernetesClusterDestroyWorker: no rules to delete; only the
		// simulator's stand-in for the external load balancer goes.
		s.closeExternalLB(c)
	case isVPCTier(n):
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
func (s *Simulator) deleteIsolatedClusterRules(c *cluster, n *network, vmIDs []string, step func(string) error) *apiError {
	ip := s.clusterIP(c)
	if ip == nil {
		return nil
	}
	for _, r := range s.rulesOnIP(ip.id, purposeLB) {
		if r.networkID == n.id && r.accountID == c.accountID && r.start == clusterAPIPort && r.end == clusterAPIPort {
			s.revokeRule(r)
		}
	}
	s.removeApiFirewallRule(ip)
	if _, err := s.removeSshFirewallRule(ip, n); err != nil {
		return internalError("%s", err.Error())
	}
	if err := step("forwards"); err != nil {
		c.gc = true
		return internalError("%s", failText(err, fmt.Sprintf("Failed to remove network rules of Kubernetes cluster : %s", c.name)))
	}
	s.removeVMPortForwards(vmIDs)
	return nil
}

// removeApiFirewallRule is KubernetesClusterResourceModifierActionWorker.
// removeApiFirewallRule: the first TCP firewall rule of the IP whose ports
// are exactly 6443-6443, in the order the DAO returns them (no ORDER BY),
// whoever made it. A user's rule on 6443 is as likely to go as CKS's.
func (s *Simulator) removeApiFirewallRule(ip *publicIP) *rule {
	for _, r := range s.tcpFirewallRules(ip) {
		if r.hasPorts && r.start == clusterAPIPort && r.end == clusterAPIPort {
			s.logf("The API firewall rule [%s] with the id [%d] was revoked", javaString(r.name), r.internalID)
			s.revokeRule(r)
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
func (s *Simulator) deleteVPCClusterRules(c *cluster, n *network, vmIDs []string, step func(string) error) *apiError {
	ip := s.clusterIP(c)
	if ip == nil || c.publicIPID == "" {
		return nil
	}
	s.removeVpcTierACLRules(n)
	s.removeVMPortForwards(vmIDs)
	if err := step("release-ip"); err != nil {
		c.gc = true
		return internalError("%s", failText(err, fmt.Sprintf("Failed to release public IP for VPC tier used by Kubernetes cluster : %s", c.name)))
	}
	s.releaseIP(ip)
	return nil
}

func (s *Simulator) removeVMPortForwards(vmIDs []string) {
	for _, r := range slices.Clone(s.st.rules) {
		if r.purpose == purposePF && slices.Contains(vmIDs, r.vmID) {
			s.revokeRule(r)
		}
	}
}
