package cluster

import (
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// External nodes (4.21+): addNodesToKubernetesCluster joins existing VMs to
// a cluster as workers. KubernetesClusterManagerImpl.addNodesToKubernetesCluster
// validates the VMs (validateNodes), then KubernetesClusterAddWorker.
// addNodesToCluster gives each one SSH rules and joins it. Callers hold the lock.

func cmdAddNodesToKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, vmIDs, err := s.nodesCommand(c, p)
	if err != nil {
		return nil, err
	}
	mountOnVR, _ := p.Bool("mountcksisoonvr")
	manual, _ := p.Bool("manualupgrade")
	return s.clusterJob(c, cl, "AddNodesToKubernetesClusterCmd", 2+2*len(vmIDs), func(jr *core.JobRun) (any, *wire.APIError) {
		return s.runAddNodes(jr, cl, vmIDs, mountOnVR, manual, c)
	})
}

// nodesCommand resolves the id and nodeids of addNodesToKubernetesCluster
// and removeNodesFromKubernetesCluster. nodeids name VirtualMachine
// entities; an unknown uuid fails the call, as the API layer's conversion
// to internal ids does.
func (s *Workers) nodesCommand(c *core.Caller, p wire.Params) (*model.Cluster, []string, *wire.APIError) {
	if _, err := p.Require("nodeids"); err != nil {
		return nil, nil, err
	}
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	for _, id := range p.List("nodeids") {
		v := s.DB.VMIncludingExpunged(id)
		if !wire.IsUUID(id) || v == nil {
			return nil, nil, wire.EntityNotFound("nodeids", id)
		}
		ids = append(ids, v.ID)
	}
	return cl, ids, nil
}

// validNodesToAdd is validateNodes for an add: it drops, without failing, a
// VM that is gone, whose template is not marked for CKS, whose default NIC
// is in another network or that is already in the cluster's map. Neither
// the cluster's state nor the VM's state or owner is checked.
func (s *Workers) validNodesToAdd(c *model.Cluster, ids []string) []*model.VM {
	var out []*model.VM
	for _, id := range ids {
		v := s.DB.VM(id)
		switch {
		case v == nil:
			s.Logf("Failed to find node (physical or virtual machine) with ID: %s", id)
		case s.DB.Template(v.TemplateID) == nil || !s.DB.Template(v.TemplateID).ForCKS:
			s.Logf("Node: %d is deployed with a template that is not marked to be used for CKS", v.InternalID)
		case v.NetworkID != c.NetworkID:
			s.Logf("Node: %d does not have its default NIC in the kubernetes cluster network", v.InternalID)
		case s.inClusterMap(c, v.ID):
			s.Logf("Node: %d is already part of the cluster %s", v.InternalID, c.Name)
		default:
			out = append(out, v)
		}
	}
	return out
}

func (s *Workers) inClusterMap(c *model.Cluster, vmID string) bool {
	return slices.ContainsFunc(s.DB.MapRows(c.ID), func(r *model.MapRow) bool { return r.VMID == vmID })
}

// nodeAdd is one run of KubernetesClusterAddWorker.
type nodeAdd struct {
	s     *Workers
	jr    *core.JobRun
	c     *model.Cluster
	n     *model.Network
	ip    *model.PublicIP
	added []*model.VM
	index int // nodeIndex: the nodes added so far
}

// runAddNodes is addNodesToKubernetesCluster and
// KubernetesClusterAddWorker.addNodesToCluster: the cluster moves to
// Importing (AddNodeRequested, from Running or Alert; from another state
// nothing moves and the add goes on), each VM gets its rules and is joined,
// then node_count, cores and memory grow by the VMs added and each gets a
// map row (external, manual_upgrade as asked, the cluster's version). A VM
// that fails is skipped: the job still succeeds
// (AddNodesToKubernetesClusterCmd.execute ignores the worker's result),
// and the cluster goes back to Running (OperationFailed from Importing).
func (s *Workers) runAddNodes(jr *core.JobRun, c *model.Cluster, ids []string, _ /*mountCksIsoOnVr*/, manual bool, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "add-nodes"
	valid := s.validNodesToAdd(c, ids)
	if len(valid) == 0 {
		return nil, wire.InternalError("No valid nodes found to be added to the Kubernetes cluster")
	}
	a := &nodeAdd{s: s, jr: jr, c: c, n: s.DB.Network(c.NetworkID)}
	if a.n == nil {
		return nil, wire.InternalError("Failed to find network with id: %s", c.NetworkID)
	}
	// KubernetesClusterActionWorker.getPublicIp: a Shared network has no
	// public IP for the nodes' SSH, so no node can be added there.
	if a.ip = s.clusterIP(c); a.ip == nil || network.IsDirectAccess(a.n) {
		return nil, wire.InternalError("java.lang.RuntimeException: Failed to retrieve public IP for the network: %s ", a.n.Name)
	}
	s.transit(c, "AddNodeRequested")
	for _, v := range valid {
		if err := a.setupNode(v); err != nil {
			s.transit(c, evOperationFailed)
			return nil, err
		}
	}
	a.updateCluster(manual)
	if len(a.added) != len(valid) {
		s.Logf("Not every node was added to the CKS cluster %s, nodes added: %d out of %d", c.ID, len(a.added), len(valid))
		s.transit(c, evOperationFailed)
	} else {
		s.transit(c, evOperationSucceeded)
	}
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// externalNodePort is validateAndSetupNode's port for the node at
// nodeIndex: 2222 + C + node_count (etcd nodes left out of
// getTotalNodeCount), + nodeIndex; 4.21.0 counts the etcd nodes too
// (2222 + getTotalNodeCount()).
func (a *nodeAdd) externalNodePort() int {
	c := a.c
	total := c.ControlNodes + c.Size
	if a.s.Profile.ExternalPortCountsEtcd {
		total += c.EtcdNodes
	}
	return NodesStartSSHPort + int(total) + a.index
}

// setupNode is validateAndSetupNode: a firewall rule for the node's port
// (conflict-checked; not on a VPC tier), a forward of it to port 22 (not
// conflict-checked), a node check over SSH through it, then new user data
// and a reboot, after which the node's kubelet joins the cluster. A
// conflict or a failed check reverts the rules and skips the node; an
// exception thrown while reverting fails the job. The returned error is
// such a failure.
func (a *nodeAdd) setupNode(v *model.VM) *wire.APIError {
	s, c := a.s, a.c
	port := a.externalNodePort()
	// The node's SSH endpoint belongs to the cluster from its forward on;
	// a node that is not added belongs to none again.
	previous := v.ClusterID
	v.ClusterID = c.ID
	ok := false
	defer func() {
		if !ok {
			v.ClusterID = previous
		}
	}()
	if err := a.jr.Step("node"); err != nil {
		return wire.InternalError("%s", core.FailText(err, fmt.Sprintf("Failed to add node %s to Kubernetes cluster : %s", v.ID, c.Name)))
	}
	if !network.IsVPCTier(a.n) {
		if err := s.ProvisionFirewallRule(a.ip, a.n.ID, port, port); err != nil {
			s.Logf("Failed to activate API port forwarding rules for the Kubernetes cluster : %s: %s", c.Name, err.Text)
			return a.revertNetworkRules(v, port)
		}
	}
	s.ProvisionPortForward(a.ip, a.n.ID, port, network.DefaultSSHPort, v)
	if err := a.jr.Step("node-check"); err != nil || s.sshForwardTarget(a.ip, port) != v {
		s.Logf("Failed to validate node with ID: %d", v.InternalID)
		if rerr := a.revertNetworkRules(v, port); rerr != nil {
			// The generic catch of validateAndSetupNode reverts once more
			// and throws.
			if again := a.revertNetworkRules(v, port); again != nil {
				return again
			}
			return rerr
		}
		return nil
	}
	// updateVirtualMachine (user data) and rebootVirtualMachine: the
	// node's kubelet joins the cluster with the cluster's token.
	ok = true
	v.Role = model.RoleWorker
	v.Kubelet = true
	s.JoinNode(v)
	a.added = append(a.added, v)
	a.index++
	return nil
}

// revertNetworkRules is KubernetesClusterAddWorker.revertNetworkRules: the
// firewall rule is "found" by the network and the exact ports with no
// purpose or state filter (FirewallRulesDaoImpl.findByNetworkIdAndPorts, a
// findOneBy), so of the node's new firewall rule and forward (or any other
// rule with those exact ports) it may pick either; revoking a forward as a
// firewall rule throws InvalidParameterValueException, and nothing found
// throws a NullPointerException. Then every forward of the VM is revoked.
// The returned error is such an exception, which fails the job.
func (a *nodeAdd) revertNetworkRules(v *model.VM, port int) *wire.APIError {
	s := a.s
	pick := s.findRuleByNetworkAndPorts(a.n.ID, port, port)
	if !network.IsVPCTier(a.n) {
		switch {
		case pick == nil:
			return wire.InternalError(`Cannot invoke "com.cloud.network.rules.FirewallRuleVO.getId()" because "ruleVO" is null`)
		case pick.Purpose != model.PurposeFirewall:
			return wire.InternalError("Unable to find %d having purpose %s", pick.InternalID, model.PurposeFirewall)
		}
		s.RevokeRule(pick)
	}
	for _, r := range slices.Clone(s.DB.Rules) {
		if r.Purpose == model.PurposePF && r.VMID == v.ID {
			s.RevokeRule(r)
		}
	}
	return nil
}

// findRuleByNetworkAndPorts is FirewallRulesDaoImpl.findByNetworkIdAndPorts:
// any rule of the network (firewall, forward or load balancer) with exactly
// those public ports, one of several at random (findOneBy, seeded by
// Options.Seed).
func (s *Workers) findRuleByNetworkAndPorts(networkID string, start, end int) *model.Rule {
	var found []*model.Rule
	for _, r := range s.DB.Rules {
		if r.NetworkID == networkID && r.State != model.RuleRevoke && r.HasPorts && r.Start == start && r.End == end {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return found[s.TwinRNG.IntN(len(found))]
}

// updateCluster is KubernetesClusterAddWorker.updateKubernetesCluster:
// node_count, memory and cores grow by the nodes added (each VM's own
// offering), and each added VM gets a map row (addKubernetesClusterVm:
// external, manual_upgrade as asked, the cluster's version).
func (a *nodeAdd) updateCluster(manual bool) {
	s, c := a.s, a.c
	c.Size += int64(len(a.added))
	for _, v := range a.added {
		if o := s.DB.Offering(v.OfferingID); o != nil {
			c.Cores += int64(o.CPU)
			c.Memory += int64(o.Memory)
		}
		row := s.addMapRow(c, v)
		row.External = true
		row.ManualUpgrade = manual
	}
}
