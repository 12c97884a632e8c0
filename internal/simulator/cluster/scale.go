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

// scaleRequest is scaleKubernetesCluster's input. Validation runs inside the
// job, so every problem is a 530 job failure.
type scaleRequest struct {
	size             int64
	sizeGiven        bool
	offering         *model.ServiceOffering
	nodeOfferings    map[model.NodeRole]*model.ServiceOffering
	nodeIDs          []string
	autoscaling      bool
	autoscalingGiven bool
	minSize, maxSize int64
	minGiven         bool
	maxGiven         bool
}

func cmdScaleKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	req := &scaleRequest{nodeOfferings: map[model.NodeRole]*model.ServiceOffering{}}
	if req.size, req.sizeGiven, err = p.Long("size"); err != nil {
		return nil, err
	}
	if req.offering, err = wire.ResolveParam(p, "serviceofferingid", s.DB.Offering); err != nil {
		return nil, err
	}
	for _, entry := range p.MapEntries("nodeofferings") {
		role := model.NodeRole(strings.ToLower(entry["node"]))
		if role != model.RoleControl && role != model.RoleWorker && role != model.RoleEtcd {
			return nil, wire.InvalidParam("Invalid node type: %s, valid types are: control, worker, etcd", entry["node"])
		}
		off := s.DB.Offering(entry["offering"])
		if off == nil {
			return nil, wire.EntityNotFound("nodeofferings", entry["offering"])
		}
		req.nodeOfferings[role] = off
	}
	for _, id := range p.List("nodeids") {
		if !wire.IsUUID(id) || s.DB.VMIncludingExpunged(id) == nil {
			return nil, wire.EntityNotFound("nodeids", id)
		}
		req.nodeIDs = append(req.nodeIDs, s.DB.VMIncludingExpunged(id).ID)
	}
	req.autoscaling, req.autoscalingGiven = p.Bool("autoscalingenabled")
	if req.minSize, req.minGiven, err = p.Long("minsize"); err != nil {
		return nil, err
	}
	if req.maxSize, req.maxGiven, err = p.Long("maxsize"); err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "ScaleKubernetesClusterCmd", 6,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runScale(jr, cl, req, c) })
}

// requireCluster resolves the required id parameter of a cluster command
// and checks the caller's access.
func (s *Workers) requireCluster(c *core.Caller, p wire.Params) (*model.Cluster, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	cl, err := wire.ResolveParam(p, "id", s.DB.Cluster)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, cl.AccountID, "Kubernetes cluster "+cl.Name); err != nil {
		return nil, err
	}
	return cl, nil
}

// scaleWorker is one KubernetesClusterScaleWorker.
type scaleWorker struct {
	s             *Workers
	jr            *core.JobRun
	c             *model.Cluster
	req           *scaleRequest
	offerings     map[model.NodeRole]*model.ServiceOffering // serviceOfferingNodeTypeMap
	clusterSize   *int64                                    // the new worker count, nil when unchanged
	originalState string
	originalSize  int64
}

// runScale is KubernetesClusterManagerImpl.scaleKubernetesCluster: the
// validation, then the scale worker.
func (s *Workers) runScale(jr *core.JobRun, c *model.Cluster, req *scaleRequest, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "scale"
	if err := s.validateScale(c, req); err != nil {
		return nil, wire.InternalError("%s", err.Error())
	}
	w := &scaleWorker{s: s, jr: jr, c: c, req: req, offerings: s.nodeTypeOfferings(c, req),
		originalState: c.State, originalSize: c.Size}
	switch {
	case len(req.nodeIDs) > 0:
		size := c.Size - int64(len(req.nodeIDs))
		w.clusterSize = &size
	case req.sizeGiven:
		size := req.size
		w.clusterSize = &size
	}
	if err := w.scaleCluster(); err != nil {
		return nil, err
	}
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// nodeTypeOfferings is createNodeTypeToServiceOfferingMap: the
// nodeofferings entries, or, without any, DEFAULT mapped to
// serviceofferingid or else the cluster's own service offering. A
// size-only scale therefore asks every node type for the cluster's offering.
func (s *Workers) nodeTypeOfferings(c *model.Cluster, req *scaleRequest) map[model.NodeRole]*model.ServiceOffering {
	out := map[model.NodeRole]*model.ServiceOffering{}
	if len(req.nodeOfferings) == 0 {
		off := req.offering
		if off == nil {
			off = s.DB.Offering(c.OfferingID)
		}
		out[model.RoleDefault] = off
		return out
	}
	for role, off := range req.nodeOfferings {
		out[role] = off
	}
	return out
}

// existingOfferingForRole is KubernetesClusterScaleWorker.
// getExistingOfferingIdForNodeType: the offering of the first VM of the node
// type in the map, or the cluster's service offering when there is none.
func (s *Workers) existingOfferingForRole(c *model.Cluster, role model.NodeRole) *model.ServiceOffering {
	for _, row := range s.DB.MapRows(c.ID) {
		if model.RowRole(row) != role {
			continue
		}
		if v := s.DB.VM(row.VMID); v != nil {
			return s.DB.Offering(v.OfferingID)
		}
		break
	}
	return s.DB.Offering(c.OfferingID)
}

// scaleCluster is KubernetesClusterScaleWorker.scaleCluster: node types in
// the order CONTROL, ETCD, WORKER; a type whose requested offering (its
// entry, else DEFAULT) differs from its first VM's gets an offering change;
// the worker type also gets the size change or the autoscaler.
func (w *scaleWorker) scaleCluster() *wire.APIError {
	_, hasDefault := w.offerings[model.RoleDefault]
	autoscalingChanged := w.autoscalingChanged()
	for _, role := range []model.NodeRole{model.RoleControl, model.RoleEtcd, model.RoleWorker} {
		newVMs := w.newVMsRequired(role)
		_, inMap := w.offerings[role]
		if !hasDefault && !inMap && newVMs == 0 {
			continue
		}
		t, err := w.planNodeType(role)
		if err != nil {
			return err
		}
		if role == model.RoleWorker && autoscalingChanged {
			return w.autoscaleWorkers(t)
		}
		if err := w.scaleNodeType(t); err != nil {
			return err
		}
	}
	w.s.transit(w.c, evOperationSucceeded)
	return nil
}

// autoscalingChanged is isAutoscalingChanged: autoscalingenabled was passed
// and it, minsize or maxsize differs from the cluster's.
func (w *scaleWorker) autoscalingChanged() bool {
	req, c := w.req, w.c
	return req.autoscalingGiven && (req.autoscaling != c.Autoscaling ||
		(req.minGiven && req.minSize != c.MinSize) || (req.maxGiven && req.maxSize != c.MaxSize))
}

// newVMsRequired is the worker count change; other node types never change
// size.
func (w *scaleWorker) newVMsRequired(role model.NodeRole) int64 {
	if role != model.RoleWorker || w.clusterSize == nil {
		return 0
	}
	return *w.clusterSize - w.originalSize
}

// nodeTypeScale is what scaleCluster decides for one node type.
type nodeTypeScale struct {
	role           model.NodeRole
	offering       *model.ServiceOffering // scalingServiceOffering
	offeringNeeded bool                   // isServiceOfferingScalingNeededForNodeType
	updateNode     bool                   // updateNodeOffering
	updateCluster  bool                   // updateClusterOffering
}

// planNodeType compares the node type's requested offering (its entry,
// else DEFAULT) with the one of its first VM
// (getExistingServiceOfferingForNodeType).
func (w *scaleWorker) planNodeType(role model.NodeRole) (*nodeTypeScale, *wire.APIError) {
	c := w.c
	existing := w.s.existingOfferingForRole(c, role)
	if existing == nil {
		return nil, wire.InternalError("The Kubernetes cluster %s does not have a service offering set for node type %s", c.Name, strings.ToUpper(string(role)))
	}
	def, hasDefault := w.offerings[model.RoleDefault]
	scaling, inMap := w.offerings[role]
	if scaling == nil {
		scaling = def
	}
	offeringNeeded := scaling != nil && scaling.ID != existing.ID
	return &nodeTypeScale{role: role, offering: scaling, offeringNeeded: offeringNeeded,
		updateNode: inMap || offeringNeeded, updateCluster: role == model.RoleWorker && hasDefault}, nil
}

// scaleNodeTypeOffering is scaleKubernetesClusterOffering for the node type.
func (w *scaleWorker) scaleNodeTypeOffering(t *nodeTypeScale) *wire.APIError {
	return w.scaleOffering(t.role, t.offering, t.updateNode, t.updateCluster)
}

// autoscaleWorkers is the worker type when autoscaling changed: the
// autoscaler, then the offering if it differs, and the scale ends there.
func (w *scaleWorker) autoscaleWorkers(t *nodeTypeScale) *wire.APIError {
	if err := w.s.scaleAutoscaling(w.jr, w.c, w.req); err != nil {
		return err
	}
	if t.offeringNeeded {
		if err := w.scaleNodeTypeOffering(t); err != nil {
			return err
		}
	}
	w.s.transit(w.c, evOperationSucceeded)
	return nil
}

// scaleNodeType changes the node type's offering, its size, or both: the
// offering first when nodes are added, last when they are removed. A type
// that needs neither is left alone (see FIDELITY.md on Java's return true).
func (w *scaleWorker) scaleNodeType(t *nodeTypeScale) *wire.APIError {
	newVMs := w.newVMsRequired(t.role)
	sizeNeeded := t.role == model.RoleWorker && w.clusterSize != nil && *w.clusterSize != w.originalSize
	switch {
	case t.offeringNeeded && sizeNeeded && newVMs > 0:
		if err := w.scaleNodeTypeOffering(t); err != nil {
			return err
		}
		return w.scaleSize(t.role)
	case t.offeringNeeded && sizeNeeded:
		if err := w.scaleSize(t.role); err != nil {
			return err
		}
		return w.scaleNodeTypeOffering(t)
	case t.offeringNeeded:
		return w.scaleNodeTypeOffering(t)
	case sizeNeeded:
		return w.scaleSize(t.role)
	}
	return nil
}

// failIfScaling is logTransitStateToFailedIfNeededAndThrow: a cluster in
// Scaling goes to Alert; in any other state nothing changes.
func (w *scaleWorker) failIfScaling(format string, args ...any) *wire.APIError {
	if w.c.State == model.ClusterScaling {
		w.s.transit(w.c, evOperationFailed)
	}
	return wire.InternalError(format, args...)
}

// updateEntry is updateKubernetesClusterEntryForNodeType: the capacity,
// node_count when size is set, the node type's offering column and the
// cluster's offering when asked (updateKubernetesClusterEntry writes only
// what it is given).
func (w *scaleWorker) updateEntry(size *int64, role model.NodeRole, off *model.ServiceOffering, updateNode, updateCluster bool) {
	w.c.Cores, w.c.Memory = w.newCapacity(size, role, off)
	if size != nil {
		w.c.Size = *size
	}
	if off != nil && updateNode && role != model.RoleDefault {
		w.c.SetRoleOfferingID(role, off.ID)
	}
	if off != nil && updateCluster {
		w.c.OfferingID = off.ID
	}
}

// newCapacity is calculateNewClusterCountAndCapacity: the cluster's cores
// and memory minus the node type's count at the offering of its first VM,
// plus its new count at the new offering (the cluster's service offering
// when none is given). The first VM's offering is read after an offering
// change has already upgraded it, so such a change leaves the capacity as
// it was.
func (w *scaleWorker) newCapacity(size *int64, role model.NodeRole, off *model.ServiceOffering) (cores, memory int64) {
	c := w.c
	if off == nil {
		off = w.s.DB.Offering(c.OfferingID)
	}
	prev := w.s.existingOfferingForRole(c, role)
	if prev == nil {
		prev = off
	}
	if off == nil || prev == nil {
		return c.Cores, c.Memory
	}
	count := map[model.NodeRole]int64{model.RoleControl: c.ControlNodes, model.RoleEtcd: c.EtcdNodes, model.RoleWorker: c.Size}[role]
	newCount := count
	if role == model.RoleWorker && size != nil {
		newCount = *size
	}
	return c.Cores - int64(prev.CPU)*count + int64(off.CPU)*newCount,
		c.Memory - int64(prev.Memory)*count + int64(off.Memory)*newCount
}

// scaleOffering is scaleKubernetesClusterOffering with
// validateKubernetesClusterScaleOfferingParameters: refused on an
// inconsistent VM map and, with any VM running, on KVM; then each VM of the
// node type gets the offering (upgradeVirtualMachine). A stopped cluster
// scales through ScalingStoppedCluster.
func (w *scaleWorker) scaleOffering(role model.NodeRole, off *model.ServiceOffering, updateNode, updateCluster bool) *wire.APIError {
	s, c := w.s, w.c
	w.jr.Op = "scale-offering"
	if w.originalState != model.ClusterCreated {
		rows := s.DB.MapRows(c.ID)
		if len(rows) == 0 || len(rows) < model.ExpectedMapSize(c) {
			return w.failIfScaling("Scaling Kubernetes cluster : %s failed, it is in unstable state as not enough existing VM instances found!", c.Name)
		}
		for _, row := range rows {
			if v := s.DB.VM(row.VMID); v != nil && v.State == model.VMRunning && !slices.Contains([]string{"XenServer", "VMware", "Simulator"}, c.Hypervisor) {
				return w.failIfScaling("Scaling Kubernetes cluster : %s failed, scaling Kubernetes cluster with running VMs on hypervisor %s is not supported!", c.Name, c.Hypervisor)
			}
		}
	}
	if c.State != model.ClusterScaling && c.State != model.ClusterScalingStoppedCluster {
		s.transit(c, evScaleUpRequested)
	}
	if w.originalState == model.ClusterCreated {
		w.updateEntry(nil, role, off, updateNode, updateCluster)
		return nil
	}
	if err := w.jr.Step("vms"); err != nil {
		return s.scalingFailed(c, err, fmt.Sprintf("Scaling Kubernetes cluster : %s failed, unable to scale cluster VM", c.Name))
	}
	count := len(s.DB.MapRows(c.ID))
	switch role {
	case model.RoleControl:
		count = int(c.ControlNodes)
	case model.RoleEtcd:
		count = int(c.EtcdNodes)
	case model.RoleWorker:
		count = int(c.Size)
	}
	for _, row := range s.DB.MapRows(c.ID) {
		if count == 0 {
			break
		}
		if role != model.RoleDefault && model.RowRole(row) != role {
			continue
		}
		if v := s.DB.VM(row.VMID); v != nil {
			v.OfferingID = off.ID
		}
		count--
	}
	w.updateEntry(nil, role, off, updateNode, updateCluster)
	return nil
}

// scalingFailed moves a Scaling cluster to Alert and returns the 530.
func (s *Workers) scalingFailed(c *model.Cluster, err error, natural string) *wire.APIError {
	s.transit(c, evOperationFailed)
	return wire.InternalError("%s", core.FailText(err, natural))
}

func (s *Workers) scalingMessage(c *model.Cluster, what string) string {
	return fmt.Sprintf("Scaling failed for Kubernetes cluster %s, %s", c.String(), what)
}

// scaleAutoscaling is autoscaleCluster: the cluster moves to Scaling, the
// autoscaler is set up over SSH, and only then are autoscaling_enabled,
// minsize and maxsize written (turning it off clears minsize and maxsize).
// A failure is thrown without a transition, so the cluster stays in
// Scaling, which only a stop ends.
func (s *Workers) scaleAutoscaling(jr *core.JobRun, c *model.Cluster, req *scaleRequest) *wire.APIError {
	jr.Op = "scale-autoscaling"
	if c.State != model.ClusterScaling {
		s.transit(c, evAutoscaleRequested)
	}
	err := jr.Step("autoscaler")
	if err == nil && !s.ControlSSHReachable(c) {
		err = errors.New("unable to reach the control node over SSH")
	}
	if err != nil {
		return wire.InternalError("Failed to autoscale Kubernetes cluster: %s : %s", c.Name, core.FailText(err, err.Error()))
	}
	c.Autoscaling = req.autoscaling
	if req.autoscaling {
		c.MinSize, c.MaxSize = req.minSize, req.maxSize
	} else {
		c.MinSize, c.MaxSize = 0, 0
	}
	return nil
}
