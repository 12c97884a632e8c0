package simulator

import (
	"fmt"
	"slices"
	"strings"
)

// scaleRequest is scaleKubernetesCluster's input. Validation runs inside the
// job, so every problem is a 530 job failure.
type scaleRequest struct {
	size             int64
	sizeGiven        bool
	offering         *serviceOffering
	nodeOfferings    map[nodeRole]*serviceOffering
	nodeIDs          []string
	autoscaling      bool
	autoscalingGiven bool
	minSize, maxSize int64
}

func cmdScaleKubernetesCluster(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	req := &scaleRequest{nodeOfferings: map[nodeRole]*serviceOffering{}}
	if req.size, req.sizeGiven, err = p.long("size"); err != nil {
		return nil, err
	}
	if req.offering, err = resolveParam(p, "serviceofferingid", s.st.offering); err != nil {
		return nil, err
	}
	for _, entry := range p.mapEntries("nodeofferings") {
		off := s.st.offering(entry["offering"])
		if off == nil {
			return nil, entityNotFound("nodeofferings", entry["offering"])
		}
		req.nodeOfferings[nodeRole(strings.ToLower(entry["node"]))] = off
	}
	for _, id := range p.list("nodeids") {
		if !isUUID(id) || s.st.vmIncludingExpunged(id) == nil {
			return nil, entityNotFound("nodeids", id)
		}
		req.nodeIDs = append(req.nodeIDs, s.st.vmIncludingExpunged(id).id)
	}
	req.autoscaling, req.autoscalingGiven = p.boolean("autoscalingenabled")
	if req.minSize, _, err = p.long("minsize"); err != nil {
		return nil, err
	}
	if req.maxSize, _, err = p.long("maxsize"); err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "ScaleKubernetesClusterCmd", 6,
		func(jr *jobRun) (any, *apiError) { return s.runScale(jr, cl, req, c) })
}

// requireCluster resolves the required id parameter of a cluster command
// and checks the caller's access.
func (s *Simulator) requireCluster(c *caller, p params) (*cluster, *apiError) {
	if _, err := p.require("id"); err != nil {
		return nil, err
	}
	cl, err := resolveParam(p, "id", s.st.cluster)
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, cl.accountID, "Kubernetes cluster "+cl.name); err != nil {
		return nil, err
	}
	return cl, nil
}

// validateScale is validateKubernetesClusterScaleParameters.
func (s *Simulator) validateScale(c *cluster, req *scaleRequest) error {
	if !req.sizeGiven && req.offering == nil && len(req.nodeOfferings) == 0 && len(req.nodeIDs) == 0 && !req.autoscalingGiven {
		return serverErr("At least one of size, serviceofferingid, nodeofferings, nodeids or autoscalingenabled must be specified")
	}
	if c.removed {
		return serverErr("Kubernetes cluster %s has been removed", c.name)
	}
	if !slices.Contains([]string{stCreated, stRunning, stStopped}, c.state) {
		return serverErr("Kubernetes cluster %s is in %s state and can not be scaled", c.name, c.state)
	}
	if req.autoscalingGiven && req.autoscaling {
		switch {
		case req.sizeGiven || len(req.nodeIDs) > 0:
			return serverErr("Autoscaling can not be passed along with nodeids or size parameter")
		case req.minSize < 1:
			return serverErr("Minsize must be at least than 1")
		case req.maxSize <= req.minSize:
			return serverErr("Maxsize must be greater than minsize")
		case req.maxSize+c.controlNodes > int64(s.opts.MaxClusterSize):
			return serverErr("Maxsize must be less than or equal to %d", int64(s.opts.MaxClusterSize)-c.controlNodes)
		}
	}
	if len(req.nodeIDs) > 0 {
		if req.sizeGiven || req.offering != nil || len(req.nodeOfferings) > 0 {
			return serverErr("nodeids can not be passed along with size or serviceofferingid or nodeofferings parameters")
		}
		controls, others := 0, 0
		for _, id := range req.nodeIDs {
			row := s.st.mapRowOf(id)
			if row == nil || row.clusterID != c.id {
				return serverErr("VM with ID: %s is not a part of the Kubernetes cluster %s", id, c.name)
			}
			if row.etcd {
				return serverErr("VM with ID: %s is an etcd node of the Kubernetes cluster %s and can not be removed", id, c.name)
			}
			if row.control {
				controls++
			} else if !row.external {
				others++
			}
		}
		if int64(controls) >= c.controlNodes {
			return serverErr("Can not remove all the control nodes from the cluster")
		}
		if int64(others) >= c.size {
			return serverErr("The number of nodes to be removed must be less than the size of the cluster")
		}
	}
	if req.sizeGiven {
		if req.size < 1 || req.size+c.controlNodes > int64(s.opts.MaxClusterSize) {
			return serverErr("Invalid size: %d, the sum of control nodes (%d) and worker nodes must be between 2 and %d",
				req.size, c.controlNodes, s.opts.MaxClusterSize)
		}
		if req.size != c.size && c.state == stStopped {
			return serverErr("Size of the Kubernetes cluster %s can not be changed while it is in %s state", c.name, c.state)
		}
	}
	return nil
}

// runScale is KubernetesClusterScaleWorker.scaleCluster: offerings by node
// type, then autoscaling or the size change.
func (s *Simulator) runScale(jr *jobRun, c *cluster, req *scaleRequest, who *caller) (any, *apiError) {
	jr.op = "scale"
	if err := s.validateScale(c, req); err != nil {
		return nil, internalError("%s", err.Error())
	}
	if c.state == stCreated {
		// Only the database counts and offerings change.
		s.applyOfferings(c, req)
		if req.sizeGiven {
			c.size = req.size
		}
		s.recalculateCapacity(c)
		return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
	}
	if req.offering != nil || len(req.nodeOfferings) > 0 {
		if err := s.scaleOfferings(jr, c, req); err != nil {
			return nil, err
		}
	}
	switch {
	case req.autoscalingGiven:
		if err := s.scaleAutoscaling(jr, c, req); err != nil {
			return nil, err
		}
	case len(req.nodeIDs) > 0:
		if err := s.scaleDownNodes(jr, c, req.nodeIDs); err != nil {
			return nil, err
		}
	case req.sizeGiven && req.size > c.size:
		if err := s.scaleUp(jr, c, req.size); err != nil {
			return nil, err
		}
	case req.sizeGiven && req.size < c.size:
		if err := s.scaleDown(jr, c, req.size); err != nil {
			return nil, err
		}
	}
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// scalingFailed moves a Scaling cluster to Alert and returns the 530.
func (s *Simulator) scalingFailed(c *cluster, err error, natural string) *apiError {
	s.transit(c, evOperationFailed)
	return internalError("%s", failText(err, natural))
}

func (s *Simulator) scalingMessage(c *cluster, what string) string {
	return fmt.Sprintf("Scaling failed for Kubernetes cluster %s, %s", s.clusterString(c), what)
}

// nonEtcdNodeCount is C + W + X as counted from the cluster's numbers.
func nonEtcdNodeCount(c *cluster, externals int) int {
	return int(c.controlNodes+c.size) + externals
}

// scaleUp adds workers, rebuilds the SSH rules, waits for ready nodes and
// only then writes node_count.
func (s *Simulator) scaleUp(jr *jobRun, c *cluster, newSize int64) *apiError {
	jr.op = "scale-up"
	n := s.st.network(c.networkID)
	_, externals, _ := s.nodeLists(c)
	oldNodeCount := nonEtcdNodeCount(c, len(externals))
	s.transit(c, evScaleUpRequested)
	if err := jr.step("vms"); err != nil || n == nil {
		return s.scalingFailed(c, err, s.scalingMessage(c, "unable to provision node VM in the cluster"))
	}
	prefix := clusterNodePrefix(c.name, c.id)
	for range newSize - c.size {
		v, aerr := s.createNodeVM(c, roleWorker, workerNodeName(prefix, s.nodeNameMillis()), c.workerOfferingID, n)
		if aerr != nil {
			// Alert, node_count unchanged, the workers already added stay.
			s.transit(c, evOperationFailed)
			return aerr.withContext(s.scalingMessage(c, "unable to provision node VM in the cluster"))
		}
		s.addMapRow(c, v)
	}
	if err := jr.step("network-rules"); err != nil {
		return s.scalingFailed(c, err, s.scalingMessage(c, "unable to update network rules"))
	}
	if err := s.scaleNetworkRules(c, oldNodeCount); err != nil {
		s.logf("%s: %v", s.scalingMessage(c, "unable to update network rules"), err)
		return s.scalingFailed(c, nil, s.scalingMessage(c, "unable to update network rules"))
	}
	want := int(c.controlNodes+newSize+c.etcdNodes) + len(externals)
	if err := jr.step("nodes-ready"); err != nil || s.readyNodeCount(c)+int(c.etcdNodes) < want {
		return s.scalingFailed(c, err, fmt.Sprintf("Scaling unsuccessful for Kubernetes cluster %s as it does not have desired number of nodes in ready state", s.clusterString(c)))
	}
	c.size = newSize
	s.recalculateCapacity(c)
	s.transit(c, evOperationSucceeded)
	return nil
}

// scaleDown removes workers without nodeids: the worker-only list in map
// order, indexed from controlNodeCount + newSize - 1 (the code's offset,
// correct only for one control node), newest first.
func (s *Simulator) scaleDown(jr *jobRun, c *cluster, newSize int64) *apiError {
	jr.op = "scale-down"
	s.transit(c, evScaleDownRequested)
	var workers []*mapRow
	for _, row := range s.st.mapRows(c.id) {
		if !row.control && !row.etcd && !row.external {
			workers = append(workers, row)
		}
	}
	from := int(c.controlNodes + newSize - 1)
	if from > len(workers) {
		// subList throws; the cluster stays in Scaling.
		return internalError("fromIndex(%d) > toIndex(%d)", from, len(workers))
	}
	remove := slices.Clone(workers[from:])
	slices.Reverse(remove)
	return s.removeNodes(jr, c, remove, newSize, c.controlNodes)
}

// scaleDownNodes removes exactly the given VMs (external ones filtered).
func (s *Simulator) scaleDownNodes(jr *jobRun, c *cluster, vmIDs []string) *apiError {
	jr.op = "scale-down"
	s.transit(c, evScaleDownRequested)
	var remove []*mapRow
	newSize, newControls := c.size, c.controlNodes
	for _, id := range vmIDs {
		row := s.st.mapRowOf(id)
		if row == nil || row.external {
			continue
		}
		remove = append(remove, row)
		if row.control {
			newControls--
		} else {
			newSize--
		}
	}
	return s.removeNodes(jr, c, remove, newSize, newControls)
}

// removeNodes drains and deletes each node over SSH, destroys and expunges
// its VM (which revokes the VM's own PFs), deletes its map row, then
// rebuilds the SSH rules and finally writes the counts.
func (s *Simulator) removeNodes(jr *jobRun, c *cluster, rows []*mapRow, newSize, newControls int64) *apiError {
	_, externals, _ := s.nodeLists(c)
	oldNodeCount := nonEtcdNodeCount(c, len(externals))
	for _, row := range rows {
		v := s.st.vm(row.vmID)
		name := row.vmID
		if v != nil {
			name = v.name
		}
		removeFailed := s.scalingMessage(c, fmt.Sprintf("failed to remove Kubernetes node: %s running on VM : %s", strings.ToLower(name), name))
		if err := jr.step("remove-vm"); err != nil {
			return s.scalingFailed(c, err, removeFailed)
		}
		if v != nil {
			if !s.controlSSHReachable(c) {
				return s.scalingFailed(c, nil, removeFailed)
			}
			s.logf("Removing vm %s from cluster %s", v.name, s.clusterString(c))
			s.deleteNode(v.id)
			s.expungeVM(v)
		}
		s.deleteMapRow(row)
		if err := jr.step("vm-removed"); err != nil {
			return s.scalingFailed(c, err, s.scalingMessage(c, fmt.Sprintf("failed to remove VM : %s", name)))
		}
	}
	if err := jr.step("network-rules"); err != nil {
		return s.scalingFailed(c, err, s.scalingMessage(c, "unable to update network rules"))
	}
	if err := s.scaleNetworkRules(c, oldNodeCount); err != nil {
		s.logf("%s: %v", s.scalingMessage(c, "unable to update network rules"), err)
		return s.scalingFailed(c, nil, s.scalingMessage(c, "unable to update network rules"))
	}
	c.size = newSize
	c.controlNodes = newControls
	s.recalculateCapacity(c)
	s.transit(c, evOperationSucceeded)
	return nil
}

// applyOfferings stores new offerings per node type.
func (s *Simulator) applyOfferings(c *cluster, req *scaleRequest) {
	for _, role := range []nodeRole{roleControl, roleEtcd, roleWorker} {
		off := req.nodeOfferings[role]
		if off == nil {
			off = req.offering
		}
		if off == nil || (role == roleEtcd && c.etcdNodes == 0) {
			continue
		}
		switch role {
		case roleControl:
			c.controlOfferingID = off.id
		case roleEtcd:
			c.etcdOfferingID = off.id
		case roleWorker:
			c.workerOfferingID = off.id
		}
		if req.offering != nil {
			c.offeringID = req.offering.id
		}
	}
}

// scaleOfferings changes service offerings, CONTROL, ETCD, WORKER. Running
// KVM VMs can not be scaled; a stopped cluster goes through
// ScalingStoppedCluster.
func (s *Simulator) scaleOfferings(jr *jobRun, c *cluster, req *scaleRequest) *apiError {
	jr.op = "scale-offering"
	current := map[nodeRole]string{roleControl: c.controlOfferingID, roleEtcd: c.etcdOfferingID, roleWorker: c.workerOfferingID}
	changed := false
	for _, role := range []nodeRole{roleControl, roleEtcd, roleWorker} {
		off := req.nodeOfferings[role]
		if off == nil {
			off = req.offering
		}
		if off == nil || off.id == current[role] || (role == roleEtcd && c.etcdNodes == 0) {
			continue
		}
		if old := s.st.offering(current[role]); old != nil && c.state == stRunning && (off.cpu < old.cpu || off.memory < old.memory) {
			return internalError("Kubernetes cluster %s cannot be scaled down to service offering %s with fewer resources", c.name, off.name)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	if c.state == stRunning {
		return internalError("Scaling Kubernetes cluster %s failed, scaling Kubernetes cluster with running VMs on hypervisor %s is not supported!", c.name, c.hypervisor)
	}
	s.transit(c, evScaleUpRequested)
	if err := jr.step("vms"); err != nil {
		return s.scalingFailed(c, err, s.scalingMessage(c, "unable to scale node VMs"))
	}
	s.applyOfferings(c, req)
	vms, rows := s.clusterVMs(c)
	for i, v := range vms {
		switch {
		case rows[i].control:
			v.offeringID = c.controlOfferingID
		case rows[i].etcd:
			v.offeringID = c.etcdOfferingID
		default:
			v.offeringID = c.workerOfferingID
		}
	}
	s.recalculateCapacity(c)
	s.transit(c, evOperationSucceeded)
	return nil
}

// scaleAutoscaling enables or disables the cluster-autoscaler over SSH.
func (s *Simulator) scaleAutoscaling(jr *jobRun, c *cluster, req *scaleRequest) *apiError {
	jr.op = "scale-autoscaling"
	s.transit(c, evAutoscaleRequested)
	if err := jr.step("autoscaler"); err != nil || !s.controlSSHReachable(c) {
		return s.scalingFailed(c, err, fmt.Sprintf("Autoscaling failed for Kubernetes cluster %s, unable to set up the cluster-autoscaler", s.clusterString(c)))
	}
	c.autoscaling = req.autoscaling
	if req.autoscaling {
		c.minSize, c.maxSize = req.minSize, req.maxSize
	} else {
		c.minSize, c.maxSize = 0, 0
	}
	s.transit(c, evOperationSucceeded)
	return nil
}
