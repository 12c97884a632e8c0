package cluster

import (
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// validateScale is KubernetesClusterManagerImpl.
// validateKubernetesClusterScaleParameters, with
// validateServiceOfferingsForNodeTypesScale and
// validateKubernetesClusterScaleSize, in their order.
func (s *Workers) validateScale(c *model.Cluster, req *scaleRequest) error {
	if c.Removed {
		return wire.ServerErr("Invalid Kubernetes cluster ID")
	}
	if req.offering == nil && len(req.nodeOfferings) == 0 && !req.sizeGiven && len(req.nodeIDs) == 0 && !req.autoscalingGiven {
		return wire.ServerErr("Kubernetes cluster %s cannot be scaled, either service offering or cluster size or nodeids to be removed or autoscaling must be passed", c.Name)
	}
	if !slices.Contains([]string{model.ClusterCreated, model.ClusterRunning, model.ClusterStopped}, c.State) {
		return wire.ServerErr("Kubernetes cluster %s is in %s state and can not be scaled", c.Name, c.State)
	}
	maxSize := int64(s.Opts.MaxClusterSize)
	if err := validateScaleAutoscaling(c, req, maxSize); err != nil {
		return err
	}
	if err := s.validateScaleNodeIDs(c, req); err != nil {
		return err
	}
	if err := s.validateScaleOfferings(c, req); err != nil {
		return err
	}
	return validateScaleSize(c, req, maxSize)
}

// validateScaleAutoscaling checks autoscalingenabled=true: neither nodeids
// nor size along with it, and a minsize..maxsize range that fits the
// maximum cluster size with the control nodes.
func validateScaleAutoscaling(c *model.Cluster, req *scaleRequest, maxSize int64) error {
	if !req.autoscalingGiven || !req.autoscaling {
		return nil
	}
	switch {
	case req.sizeGiven || len(req.nodeIDs) > 0:
		return wire.ServerErr("Autoscaling can not be passed along with nodeids or clustersize")
	case !req.minGiven || !req.maxGiven:
		return wire.ServerErr("Autoscaling requires minsize and maxsize to be passed")
	case req.minSize < 1:
		return wire.ServerErr("Minsize must be at least than 1")
	case req.maxSize <= req.minSize:
		return wire.ServerErr("Maxsize must be greater than minsize")
	case req.maxSize+c.ControlNodes > maxSize:
		return wire.ServerErr("Maximum cluster size can not exceed %d. Please contact your administrator", maxSize)
	}
	return nil
}

// validateScaleNodeIDs checks nodeids: all of them in the cluster's VM map,
// leaving at least one control node and one other node.
func (s *Workers) validateScaleNodeIDs(c *model.Cluster, req *scaleRequest) error {
	if len(req.nodeIDs) == 0 {
		return nil
	}
	// Control and etcd entries of nodeofferings may come with nodeids;
	// size, serviceofferingid and a worker entry may not.
	if req.sizeGiven || req.offering != nil || req.nodeOfferings[model.RoleWorker] != nil {
		return wire.ServerErr("nodeids can not be passed along with clustersize or service offering")
	}
	var rows []*model.MapRow
	for _, row := range s.DB.MapRows(c.ID) {
		if slices.Contains(req.nodeIDs, row.VMID) {
			rows = append(rows, row)
		}
	}
	if len(rows) != len(req.nodeIDs) {
		return wire.ServerErr("Invalid node ids")
	}
	controls, others := 0, 0
	for _, row := range rows {
		if row.Control {
			controls++
		} else {
			others++
		}
	}
	if int64(controls) >= c.ControlNodes {
		return wire.ServerErr("Can not remove all control nodes from a cluster")
	}
	if int64(others) >= c.Size {
		return wire.ServerErr("Can not remove all nodes from a cluster")
	}
	return nil
}

// validateScaleSize is validateKubernetesClusterScaleSize: a size that
// changes needs a cluster that is not Stopped, at least one worker, and
// room under the maximum cluster size.
func validateScaleSize(c *model.Cluster, req *scaleRequest, maxSize int64) error {
	if !req.sizeGiven || req.size == c.Size {
		return nil
	}
	switch {
	case c.State == model.ClusterStopped:
		return wire.ServerErr("Kubernetes cluster : %s is in %s state", c.Name, c.State)
	case req.size < 1:
		return wire.ServerErr("Kubernetes cluster : %s cannot be scaled for size, %d", c.Name, req.size)
	case req.size+c.ControlNodes > maxSize:
		return wire.ServerErr("Maximum cluster size can not exceed %d. Please contact your administrator", maxSize)
	}
	return nil
}

// validateScaleOfferings is validateServiceOfferingsForNodeTypesScale: each
// node type's requested offering (its nodeofferings entry, else
// serviceofferingid) must meet the minimums and, on a Running cluster, not
// offer less than the type's recorded offering.
func (s *Workers) validateScaleOfferings(c *model.Cluster, req *scaleRequest) error {
	version := s.DB.Version(c.VersionID)
	for _, role := range []model.NodeRole{model.RoleWorker, model.RoleControl, model.RoleEtcd} {
		off := req.nodeOfferings[role]
		if off == nil {
			off = req.offering
		}
		if off == nil {
			continue
		}
		minCPU, minMem := 2, 2048
		if off.CPU < minCPU || off.Memory < minMem {
			return wire.ServerErr("Kubernetes cluster : %s cannot be scaled with service offering : %s, Kubernetes cluster template(CoreOS) needs minimum %d vCPUs and %d MB RAM",
				c.Name, off.Name, minCPU, minMem)
		}
		if version != nil && off.CPU < version.MinCPU {
			return wire.ServerErr("Kubernetes cluster : %s cannot be scaled with service offering : %s, associated Kubernetes version : %s needs minimum %d vCPUs",
				c.Name, off.Name, version.Name, version.MinCPU)
		}
		if version != nil && off.Memory < version.MinMemory {
			return wire.ServerErr("Kubernetes cluster : %s cannot be scaled with service offering : %s, associated Kubernetes version : %s needs minimum %d MB RAM",
				c.Name, off.Name, version.Name, version.MinMemory)
		}
		existing := s.DB.Offering(c.RoleOfferingID(role))
		if existing == nil {
			existing = s.DB.Offering(c.OfferingID)
		}
		if existing != nil && c.State == model.ClusterRunning &&
			(off.Memory < existing.Memory || off.CPU*off.CPUSpeed < existing.CPU*existing.CPUSpeed) {
			return wire.ServerErr("Kubernetes cluster cannot be scaled down for service offering. Service offering : %s offers lesser resources as compared to service offering : %s of Kubernetes cluster : %s",
				off.Name, existing.Name, c.Name)
		}
	}
	return nil
}
