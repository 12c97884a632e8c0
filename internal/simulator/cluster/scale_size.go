package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The size change of KubernetesClusterScaleWorker: new workers, or nodes
// drained and removed, then the SSH rules rebuilt.

// scaleSize is scaleKubernetesClusterSize with
// validateKubernetesClusterScaleSizeParameters: a size change (by size or
// nodeids, in any state) is refused while the VM map has fewer rows than
// C + node_count + E; node_count is written only after the VMs and rules.
func (w *scaleWorker) scaleSize(role model.NodeRole) *wire.APIError {
	s, c := w.s, w.c
	if s.DB.Network(c.NetworkID) == nil {
		return w.failIfScaling("Scaling failed for Kubernetes cluster : %s, cluster network not found", c.Name)
	}
	if s.DB.Offering(c.OfferingID) == nil {
		return w.failIfScaling("Scaling failed for Kubernetes cluster : %s, cluster service offering not found", c.Name)
	}
	if rows := s.DB.MapRows(c.ID); len(rows) == 0 || len(rows) < model.ExpectedMapSize(c) {
		return w.failIfScaling("Scaling failed for Kubernetes cluster : %s, it is in unstable state as not enough existing VM instances found", c.Name)
	}
	newVMs := *w.clusterSize - w.originalSize
	if w.originalState == model.ClusterCreated {
		if c.State != model.ClusterScaling {
			if newVMs > 0 {
				s.transit(c, evScaleUpRequested)
			} else {
				s.transit(c, evScaleDownRequested)
			}
		}
		w.updateEntry(w.clusterSize, role, w.offerings[role], false, false)
		return nil
	}
	if _, ok := s.clusterServer(c); !ok {
		return w.failIfScaling("Scaling failed for Kubernetes cluster : %s, unable to retrieve associated public IP", c.Name)
	}
	var err *wire.APIError
	if newVMs < 0 {
		err = w.scaleDown()
	} else {
		err = w.scaleUp(newVMs)
	}
	if err != nil {
		return err
	}
	off, inMap := w.offerings[role]
	w.updateEntry(w.clusterSize, role, off, inMap, false)
	return nil
}

// rulesFailed is a failure of scaleKubernetesClusterNetworkRules: a Java
// exception the worker does not catch (a NullPointerException) leaves the
// state as it is; any other goes through failure, the caller's transition.
func (s *Workers) rulesFailed(c *model.Cluster, err error, failure func() *wire.APIError) *wire.APIError {
	var je *wire.JavaException
	if errors.As(err, &je) {
		s.Logf("Unexpected exception while executing %sScaleKubernetesClusterCmd: %s: %s", cmdPkgKubernetes, je.ClassName(), je.Msg)
		return wire.InternalError("%s", je.Msg)
	}
	s.Logf("%s: %v", s.scalingMessage(c, "unable to update network rules"), err)
	return failure()
}

// scaleUp is scaleUpKubernetesClusterSize: new workers, the SSH rules
// rebuilt, the ready count checked.
func (w *scaleWorker) scaleUp(newVMs int64) *wire.APIError {
	s, c, jr := w.s, w.c, w.jr
	jr.Op = "scale-up"
	n := s.DB.Network(c.NetworkID)
	if c.State != model.ClusterScaling {
		s.transit(c, evScaleUpRequested)
	}
	provisionFailed := fmt.Sprintf("Scaling failed for Kubernetes cluster : %s, unable to provision node VM in the cluster", c.Name)
	if err := jr.Step("vms"); err != nil {
		if msg := core.FailText(err, ""); msg != "" {
			provisionFailed = msg
		}
		return w.failIfScaling("%s", provisionFailed)
	}
	prefix := model.ClusterNodePrefix(c.Name, c.ID)
	for range newVMs {
		v, aerr := s.CreateNodeVM(c, model.RoleWorker, model.WorkerNodeName(prefix, s.nodeNameMillis()), c.NodeOfferingID(model.RoleWorker), n)
		if aerr != nil {
			// Alert, node_count unchanged, the workers already added stay.
			_ = w.failIfScaling("%s", provisionFailed) // the VM error says more
			return aerr.WithContext(provisionFailed)
		}
		s.addMapRow(c, v)
	}
	rulesFailed := fmt.Sprintf("Scaling failed for Kubernetes cluster : %s, unable to update network rules", c.Name)
	if err := jr.Step("network-rules"); err != nil {
		return w.failIfScaling("%s", core.FailText(err, rulesFailed))
	}
	if err := s.scaleNetworkRules(c, s.scaleUpSSHOrder(c)); err != nil {
		return s.rulesFailed(c, err, func() *wire.APIError { return w.failIfScaling("%s", rulesFailed) })
	}
	// validateKubernetesClusterReadyNodesCount wants C + size + E ready
	// nodes (the etcd nodes added to kubectl's count); size is node_count,
	// which counts the external nodes.
	want := int(c.ControlNodes + *w.clusterSize + c.EtcdNodes)
	notReady := fmt.Sprintf("Scaling unsuccessful for Kubernetes cluster : %s as it does not have desired number of nodes in ready state", c.Name)
	if err := jr.Step("nodes-ready"); err != nil || !s.ControlSSHReachable(c) || s.readyNodeCount(c)+int(c.EtcdNodes) < want {
		return w.failIfScaling("%s", core.FailText(err, notReady))
	}
	return nil
}

// scaleDown is scaleDownKubernetesClusterSize: with nodeids exactly those
// VMs (external ones filtered), otherwise the last node_count - size
// workers of the worker-only list in map order (getWorkerNodesToRemove;
// 4.22.0 cut it with subList(controlNodeCount + newSize - 1, size), right
// only for one control node); the list is removed newest first.
func (w *scaleWorker) scaleDown() *wire.APIError {
	s, c := w.s, w.c
	w.jr.Op = "scale-down"
	if c.State != model.ClusterScaling {
		s.transit(c, evScaleDownRequested)
	}
	var remove []*model.MapRow
	if len(w.req.nodeIDs) > 0 {
		for _, row := range s.DB.MapRows(c.ID) {
			if slices.Contains(w.req.nodeIDs, row.VMID) && !row.External {
				remove = append(remove, row)
			}
		}
	} else {
		var workers []*model.MapRow
		for _, row := range s.DB.MapRows(c.ID) {
			if !row.Control && !row.Etcd && !row.External {
				workers = append(workers, row)
			}
		}
		from := len(workers) - max(0, len(workers)-int(*w.clusterSize))
		if s.Profile.Before4221 {
			from = int(c.ControlNodes + *w.clusterSize - 1)
		}
		if from > len(workers) {
			// ArrayList.subList throws IllegalArgumentException, which the
			// worker does not catch: the cluster stays in Scaling.
			return wire.InternalError("fromIndex(%d) > toIndex(%d)", from, len(workers))
		}
		remove = slices.Clone(workers[from:])
	}
	slices.Reverse(remove)
	return w.removeNodes(remove)
}

// vmString is VMInstanceVO.toString().
func (s *Workers) vmString(v *model.VM) string {
	return fmt.Sprintf(`VM instance {"id":%d,"instanceName":"%s","state":"%s","type":"User","uuid":"%s"}`,
		v.InternalID, s.instanceName(v), v.State, v.ID)
}

// removeNodes is removeNodesFromCluster: each node is drained and deleted
// with kubectl over SSH through the cluster IP's port 2222 (which needs its
// Kubernetes node, named after the lowercased host name), its VM destroyed
// and expunged (which revokes the VM's own PFs) and its map row deleted;
// then the SSH rules are rebuilt.
func (w *scaleWorker) removeNodes(rows []*model.MapRow) *wire.APIError {
	s, c, jr := w.s, w.c, w.jr
	for _, row := range rows {
		v := s.DB.VM(row.VMID)
		if v == nil {
			// userVm.getHostName() on null: uncaught, the cluster stays in
			// Scaling.
			return wire.InternalError(`Cannot invoke "com.cloud.uservm.UserVm.getHostName()" because "userVm" is null`)
		}
		removeFailed := s.scalingMessage(c, fmt.Sprintf("failed to remove Kubernetes node: %s running on VM : %s", v.Name, s.vmString(v)))
		if err := jr.Step("remove-vm"); err != nil {
			return s.scalingFailed(c, err, removeFailed)
		}
		s.Logf("Removing vm %s from cluster %s", s.vmString(v), c.String())
		host := strings.ToLower(v.Name)
		if !s.ControlSSHReachable(c) || s.DB.NodeByName(c.ID, host) == nil {
			// kubectl drain fails (no SSH, or NotFound): removeKubernetesClusterNode returns false.
			return s.scalingFailed(c, nil, removeFailed)
		}
		s.DeleteNode(s.DB.NodeByName(c.ID, host).VMID)
		s.ExpungeVM(v)
		s.DeleteMapRow(row)
		if err := jr.Step("vm-removed"); err != nil {
			return s.scalingFailed(c, err, s.scalingMessage(c, fmt.Sprintf("failed to remove VM : %s", v.Name)))
		}
	}
	if err := jr.Step("network-rules"); err != nil {
		return s.scalingFailed(c, err, s.scalingMessage(c, "unable to update network rules"))
	}
	if err := s.scaleNetworkRules(c, s.mapSSHOrder(c)); err != nil {
		return s.rulesFailed(c, err, func() *wire.APIError {
			return s.scalingFailed(c, nil, s.scalingMessage(c, "unable to update network rules"))
		})
	}
	return nil
}
