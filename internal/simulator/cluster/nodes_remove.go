package cluster

import (
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// removeNodesFromKubernetesCluster takes VMs out of a cluster; the VMs keep
// running. KubernetesClusterManagerImpl.removeNodesFromKubernetesCluster
// validates the VMs (validateNodes, which for a removal only drops VMs that
// do not exist), then KubernetesClusterRemoveWorker.removeNodesFromCluster
// removes each. Callers hold the lock.

func cmdRemoveNodesFromKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, vmIDs, err := s.nodesCommand(c, p)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "RemoveNodesFromKubernetesClusterCmd", 1+len(vmIDs), func(jr *core.JobRun) (any, *wire.APIError) {
		return s.runRemoveNodes(jr, cl, vmIDs, c)
	})
}

// runRemoveNodes moves the cluster to RemovingNodes (RemoveNodeRequested,
// from Running or Alert), removes each VM, lowers node_count, cores and
// memory by every VM it processed, in the cluster's map or not, and deletes
// the map rows of those in it. When a VM could not be removed the cluster
// goes back to Running (OperationFailed from RemovingNodes) and the job
// fails (RemoveNodesFromKubernetesClusterCmd.execute).
func (s *Workers) runRemoveNodes(jr *core.JobRun, c *model.Cluster, ids []string, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "remove-nodes"
	var valid []string
	for _, id := range ids {
		if s.DB.VM(id) != nil {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil, wire.InternalError("No valid nodes found to be removed from the Kubernetes cluster")
	}
	n := s.DB.Network(c.NetworkID)
	if n == nil {
		return nil, wire.InternalError("Failed to find network with id: %s", c.NetworkID)
	}
	ip := s.clusterIP(c)
	if ip == nil || network.IsDirectAccess(n) {
		return nil, wire.InternalError("Failed to retrieve public IP for the network: %s ", n.Name)
	}
	s.transit(c, "RemoveNodeRequested")
	ok := true
	var removed []*model.VM
	for _, id := range valid {
		v := s.DB.VM(id)
		if err := jr.Step("node"); err != nil || !s.ControlSSHReachable(c) {
			// copyScriptFile to the control node through 2222 throws; the
			// node is not counted.
			s.Logf("Error trying to remove node %s from Kubernetes Cluster %s", v.ID, c.ID)
			ok = false
			continue
		}
		s.removeNodeVM(c, ip, v)
		s.removeNodePortForwards(n, v)
		removed = append(removed, v)
	}
	s.updateAfterRemoval(c, removed)
	if !ok {
		s.transit(c, evOperationFailed)
		return nil, wire.InternalError("Failed to remove node(s) from Kubernetes cluster ID: %d", c.InternalID)
	}
	s.transit(c, evOperationSucceeded)
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// removeNodeVM is removeNodeVmFromCluster: a drain through the control
// node (2222); then, only when the VM has a forward to port 22 from 2222
// or above, a reset of the node through that forward (its kubelet stops)
// and `kubectl delete node <display name>` through 2222. Failures of these
// commands are only logged.
func (s *Workers) removeNodeVM(c *model.Cluster, ip *model.PublicIP, v *model.VM) {
	var forward *model.Rule
	for _, r := range s.RulesOnIP(ip.ID, model.PurposePF) {
		if r.VMID == v.ID && r.PrivateStart == network.DefaultSSHPort && r.Start >= NodesStartSSHPort {
			forward = r
			break
		}
	}
	if forward == nil {
		return
	}
	if s.sshForwardTarget(ip, forward.Start) == v {
		v.Kubelet = false
		v.Role = model.RoleNone
	}
	// kubectl matches the display name as it is: a node registered under
	// the lowercased host name stays when the name has capitals.
	if node := s.DB.NodeByName(c.ID, v.Name); node != nil {
		s.DeleteNode(node.VMID)
	}
}

// removeNodePortForwards is removeNodePortForwardingRules: each forward of
// the VM is revoked, then, outside VPC tiers, the firewall rule "found" by
// the network and the forward's exact ports (findByNetworkIdAndPorts, any
// purpose, one at random) is revoked as a firewall rule. Its exceptions (no
// rule found, or a forward picked) are caught and logged, and change
// nothing of the worker's result.
func (s *Workers) removeNodePortForwards(n *model.Network, v *model.VM) {
	for _, pf := range slices.Clone(s.DB.Rules) {
		if pf.Purpose != model.PurposePF || pf.VMID != v.ID || pf.State == model.RuleRevoke {
			continue
		}
		s.RevokeRule(pf)
		if network.IsVPCTier(n) {
			continue
		}
		fw := s.findRuleByNetworkAndPorts(n.ID, pf.Start, pf.End)
		switch {
		case fw == nil:
			s.Logf("Failed to cleanup network rules for node %s, due to: ruleVO is null", v.Name)
		case fw.Purpose != model.PurposeFirewall:
			s.Logf("Failed to cleanup network rules for node %s, due to: Unable to find %d having purpose Firewall", v.Name, fw.InternalID)
		default:
			s.RevokeRule(fw)
		}
	}
}

// updateAfterRemoval is KubernetesClusterRemoveWorker.updateKubernetesCluster:
// node_count, memory and cores drop by every VM processed, and the map rows
// of those in the cluster's map are deleted.
func (s *Workers) updateAfterRemoval(c *model.Cluster, removed []*model.VM) {
	c.Size -= int64(len(removed))
	for _, v := range removed {
		if o := s.DB.Offering(v.OfferingID); o != nil {
			c.Cores -= int64(o.CPU)
			c.Memory -= int64(o.Memory)
		}
		for _, row := range s.DB.MapRows(c.ID) {
			if row.VMID == v.ID {
				s.DeleteMapRow(row)
			}
		}
		if v.ClusterID == c.ID && v.UserVM {
			v.ClusterID = ""
		}
	}
}
