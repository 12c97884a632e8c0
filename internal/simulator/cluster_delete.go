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

// runDelete is KubernetesClusterDestroyWorker.destroy (§2.8).
func (s *Simulator) runDelete(jr *jobRun, c *cluster) (any, *apiError) {
	jr.op = "delete"
	if c.removed {
		return nil, internalError("Kubernetes cluster %s has already been deleted", c.name)
	}
	if !slices.Contains([]string{stRunning, stStopped, stAlert, stError, stDestroying}, c.state) {
		return nil, internalError("Cannot perform delete operation on cluster %s in state: %s", c.name, c.state)
	}
	if c.state != stDestroying {
		s.transit(c, evDestroyRequested)
	}
	if err := s.destroyCluster(jr, c); err != nil {
		c.gc = true
		return nil, internalError("%s", failText(err, fmt.Sprintf("Failed to delete Kubernetes cluster : %s: %v", c.name, err)))
	}
	return map[string]any{"success": true}, nil
}

// destroyCluster does the destroy work; jr may be nil (scanner retry). On
// failure the cluster stays in Destroying.
func (s *Simulator) destroyCluster(jr *jobRun, c *cluster) error {
	step := func(name string) error {
		if jr == nil {
			return nil
		}
		return jr.step(name)
	}
	n := s.st.network(c.networkID)
	if c.networkCleanup && n != nil && !n.removed {
		for _, row := range s.st.mapRows(c.id) {
			if row.external {
				return serverErr("the cluster has external nodes, remove them before deleting the cluster")
			}
		}
		for _, v := range s.vmsOnNetwork(n.id) {
			if row := s.st.mapRowOf(v.id); row == nil || row.clusterID != c.id {
				return serverErr("the network %s is in use by VM %s which is not part of the cluster", n.name, v.name)
			}
		}
	}
	if err := step("vms"); err != nil {
		return err
	}
	var vmIDs []string
	for _, row := range s.st.mapRows(c.id) {
		vmIDs = append(vmIDs, row.vmID)
		if v := s.st.vm(row.vmID); v != nil {
			s.deleteNode(v.id)
			s.expungeVM(v)
		}
		s.deleteMapRow(row)
	}
	if err := step("network"); err != nil {
		return err
	}
	switch {
	case n == nil || n.removed:
	case c.networkCleanup:
		s.destroyNetwork(n)
	case isVPCTier(n):
		s.deleteVPCClusterRules(c, vmIDs)
	default:
		s.deleteIsolatedClusterRules(c, n, vmIDs)
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

// deleteIsolatedClusterRules is the user-network cleanup: the api-lb, the
// 6443 firewall rule, ONE SSH firewall rule picked by removeSshFirewallRule
// (etcd firewall rules leak, or the node range when an etcd rule is picked)
// and the PFs of the removed VMs.
func (s *Simulator) deleteIsolatedClusterRules(c *cluster, n *network, vmIDs []string) {
	ip := s.clusterIP(c)
	if ip == nil {
		return
	}
	for _, r := range s.rulesOnIP(ip.id, purposeLB) {
		if r.start == clusterAPIPort {
			s.revokeRule(r)
		}
	}
	for _, r := range s.rulesOnIP(ip.id, purposeFirewall) {
		if r.hasPorts && r.start == clusterAPIPort && r.end == clusterAPIPort {
			s.revokeRule(r)
			break
		}
	}
	s.removeSshFirewallRule(ip, n)
	s.removeVMPortForwards(vmIDs)
}

// deleteVPCClusterRules removes one PF per VM and releases the cluster's VPC
// public IP (ACL items are not modelled: seeded tiers use default_allow).
func (s *Simulator) deleteVPCClusterRules(c *cluster, vmIDs []string) {
	s.removeVMPortForwards(vmIDs)
	if ip := s.clusterIP(c); ip != nil && c.publicIPID != "" {
		s.releaseIP(ip)
	}
}

func (s *Simulator) removeVMPortForwards(vmIDs []string) {
	for _, r := range slices.Clone(s.st.rules) {
		if r.purpose == purposePF && slices.Contains(vmIDs, r.vmID) {
			s.revokeRule(r)
		}
	}
}
