package cluster

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// parseCreate reads createKubernetesCluster's parameters; ids that do not
// resolve are 431s from the API layer.
func (s *Workers) parseCreate(c *core.Caller, p wire.Params) (*createRequest, *wire.APIError) {
	name, err := p.Require("name")
	if err != nil {
		return nil, err
	}
	if _, err := p.Require("zoneid"); err != nil {
		return nil, err
	}
	req := &createRequest{name: name, description: p.Str("description"), keypair: p.Str("keypair"),
		hypervisor: p.Str("hypervisor"), offerings: map[model.NodeRole]*model.ServiceOffering{}}
	if req.description == "" {
		req.description = name
	}
	if req.zone, err = wire.ResolveParam(p, "zoneid", s.DB.Zone); err != nil {
		return nil, err
	}
	if req.version, err = wire.ResolveParam(p, "kubernetesversionid", s.DB.Version); err != nil {
		return nil, err
	}
	if req.defaultOffering, err = wire.ResolveParam(p, "serviceofferingid", s.DB.Offering); err != nil {
		return nil, err
	}
	if req.network, err = wire.ResolveParam(p, "networkid", func(id string) *model.Network {
		if n := s.DB.Network(id); n != nil && !n.Removed {
			return n
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := s.parseNodeOfferings(p, req); err != nil {
		return nil, err
	}
	if req.owner, err = s.ResolveOwner(c, p); err != nil {
		return nil, err
	}
	if err := parseNodeCounts(p, req); err != nil {
		return nil, err
	}
	req.clusterType = p.Str("clustertype")
	if req.clusterType == "" {
		req.clusterType = "CloudManaged"
	}
	if !s.Profile.NoCSI {
		req.csi, _ = p.Bool("enablecsi")
	}
	if err := s.parseExtras(p, req); err != nil {
		return nil, err
	}
	return req, nil
}

// parseNodeOfferings reads nodeofferings: one offering per node type, and a
// "default" entry that counts only when serviceofferingid is not given.
func (s *Workers) parseNodeOfferings(p wire.Params, req *createRequest) *wire.APIError {
	for _, entry := range p.MapEntries("nodeofferings") {
		role := model.NodeRole(strings.ToLower(entry["node"]))
		off := s.DB.Offering(entry["offering"])
		if off == nil {
			return wire.EntityNotFound("nodeofferings", entry["offering"])
		}
		switch role {
		case model.RoleControl, model.RoleWorker, model.RoleEtcd:
			req.offerings[role] = off
		case "default":
			if req.defaultOffering == nil {
				req.defaultOffering = off
			}
		default:
			return wire.InvalidParam("Invalid node type: %s, valid types are: control, worker, etcd, default", entry["node"])
		}
	}
	return nil
}

// parseNodeCounts reads the node counts and the root disk size, with their
// defaults; the deprecated masternodes counts only without controlnodes.
func parseNodeCounts(p wire.Params, req *createRequest) *wire.APIError {
	counts := []struct {
		name string
		dst  *int64
		def  int64
	}{{"controlnodes", &req.controlNodes, 1}, {"etcdnodes", &req.etcdNodes, 0}, {"size", &req.size, 1}, {"noderootdisksize", &req.rootDiskSize, 8}}
	for _, cnt := range counts {
		v, present, err := p.Long(cnt.name)
		if err != nil {
			return err
		}
		*cnt.dst = cnt.def
		if present {
			*cnt.dst = v
		}
	}
	if v, present, err := p.Long("masternodes"); err != nil {
		return err
	} else if present && !p.Has("controlnodes") {
		req.controlNodes = v
	}
	return nil
}

// validateCreate is validateKubernetesClusterCreateParameters; failures are
// 530s from the create phase.
func (s *Workers) validateCreate(req *createRequest) *wire.APIError {
	switch {
	case strings.EqualFold(req.clusterType, "ExternalManaged"):
		return wire.InternalError("ExternalManaged Kubernetes clusters are not supported by this simulator")
	case !strings.EqualFold(req.clusterType, "CloudManaged"):
		return wire.InternalError("Invalid cluster type: %s", req.clusterType)
	case req.version == nil:
		return wire.InternalError("Invalid Kubernetes version ID, a valid Kubernetes version must be specified")
	case req.version.State != "Enabled":
		return wire.InternalError("Kubernetes version ID: %s is in %s state", req.version.ID, req.version.State)
	case req.version.ISOState() != model.ISOReady:
		return wire.InternalError("Binaries ISO for Kubernetes version ID: %s is not in Ready state in zone ID: %s", req.version.ID, req.zone.ID)
	case req.controlNodes < 1:
		return wire.InternalError("Invalid cluster control nodes count: %d", req.controlNodes)
	case req.etcdNodes < 0:
		return wire.InternalError("Invalid etcd nodes count: %d", req.etcdNodes)
	case req.size < 1 || req.size+req.controlNodes > int64(s.Opts.MaxClusterSize):
		return wire.InternalError("Invalid cluster size: %d, the sum of control nodes (%d) and worker nodes must not exceed cloud.kubernetes.cluster.max.size: %d",
			req.size, req.controlNodes, s.Opts.MaxClusterSize)
	case req.rootDiskSize < 8:
		return wire.InternalError("Invalid value for node root disk size: %d GB, it must be at least 8 GB", req.rootDiskSize)
	}
	for _, role := range []model.NodeRole{model.RoleControl, model.RoleWorker, model.RoleEtcd} {
		if role == model.RoleEtcd && req.etcdNodes == 0 {
			continue
		}
		off := req.offerings[role]
		if off == nil {
			off = req.defaultOffering
		}
		if off == nil {
			return wire.InternalError("No service offering was specified for %s nodes, specify serviceofferingid or nodeofferings", role)
		}
		minCPU, minMem := max(2, req.version.MinCPU), max(2048, req.version.MinMemory)
		if off.CPU < minCPU || off.Memory < minMem {
			return wire.InternalError("Kubernetes cluster cannot be created with service offering ID: %s, Kubernetes cluster template needs minimum %d vCPUs and %d MB RAM",
				off.ID, minCPU, minMem)
		}
	}
	if req.keypair != "" && s.DB.KeypairFor(req.owner.ID, req.keypair) == nil {
		return wire.InternalError("Unable to find SSH keypair with name: %s", req.keypair)
	}
	if err := s.validateExtras(req); err != nil {
		return err
	}
	templates, err := s.resolveNodeTemplates(req.extras.nodeTemplates)
	if err != nil {
		return err
	}
	req.nodeTemplates = templates
	if req.network != nil {
		return s.validateClusterNetwork(req)
	}
	return nil
}

// validateClusterNetwork checks a given network: owner, VPC ACL, one
// cluster per network, and free API/SSH ports on its source NAT IP.
func (s *Workers) validateClusterNetwork(req *createRequest) *wire.APIError {
	n := req.network
	if network.IsDirectAccess(n) {
		return validateDirectNetwork(req)
	}
	if n.AccountID != req.owner.ID {
		return wire.InternalError("Network ID: %s does not belong to the owner of the Kubernetes cluster", n.ID)
	}
	if network.IsVPCTier(n) {
		if acl := s.DB.ACL(n.ACLID); acl != nil && acl.DefaultDeny {
			return wire.InternalError("Network ACL: %s of network %s can not be used for Kubernetes cluster as it uses default deny ACL", acl.Name, n.Name)
		}
	}
	if s.DB.ClusterOnNetwork(n.ID) != nil {
		return wire.InternalError("Network ID: %s is already under use by another Kubernetes cluster", n.ID)
	}
	if network.IsVPCTier(n) || n.State == model.NetworkAllocated {
		return nil
	}
	ip := s.DB.SourceNatIP(n.ID)
	if ip == nil {
		return nil
	}
	return s.checkClusterPortsFree(n, ip, int(req.controlNodes+req.size))
}

// checkClusterPortsFree refuses a network whose source NAT IP has a TCP
// firewall or PF rule on 6443 or on the node SSH range from 2222.
func (s *Workers) checkClusterPortsFree(n *model.Network, ip *model.PublicIP, nodeCount int) *wire.APIError {
	for _, purpose := range []string{model.PurposeFirewall, model.PurposePF} {
		for _, r := range s.RulesOnIP(ip.ID, purpose) {
			if r.Protocol != "tcp" {
				continue
			}
			start, end := 1, 65535
			if r.HasPorts {
				start, end = r.Start, r.End
			}
			kind := strings.ToLower(purpose)
			if start <= ClusterAPIPort && ClusterAPIPort <= end {
				return wire.InternalError("Network: %s has conflicting %s rules to provision Kubernetes cluster for API access", n.Name, kind)
			}
			if max(start, NodesStartSSHPort) <= min(end, NodesStartSSHPort+nodeCount-1) {
				return wire.InternalError("Network: %s has conflicting %s rules to provision Kubernetes cluster for node VM SSH access", n.Name, kind)
			}
		}
	}
	return nil
}

// insertCluster creates the network when none was given and the cluster row
// in state Created.
func (s *Workers) insertCluster(req *createRequest) *model.Cluster {
	n := req.network
	cleanup := false
	if n == nil {
		off := s.DB.SeedIDs.NetworkOffering
		n = s.NewNetwork(req.name+"-network", req.zone.ID, off, req.owner.ID, "", "")
		cleanup = true
	}
	now := s.Now()
	cl := &model.Cluster{InternalID: s.DB.NextID("cluster"), ID: s.NewUUID(), Name: req.name,
		Description: req.description, ZoneID: req.zone.ID, TemplateID: s.DB.SeedIDs.SystemVMTemplate,
		VersionID: req.version.ID, NetworkID: n.ID, AccountID: req.owner.ID, Keypair: req.keypair,
		ControlNodes: req.controlNodes, EtcdNodes: req.etcdNodes, Size: req.size, State: model.ClusterCreated, StateHistory: []string{model.ClusterCreated},
		Created: now, StateSince: now, NetworkCleanup: cleanup, ClusterType: "CloudManaged",
		CSIEnabled: req.csi, RootDiskSize: req.rootDiskSize, Hypervisor: "KVM"}
	// service_offering_id is serviceofferingid as sent: a cluster created
	// with nodeofferings alone has none (and cannot change its size,
	// apache/cloudstack#14122).
	if req.defaultOffering != nil {
		cl.OfferingID = req.defaultOffering.ID
	}
	// createManagedKubernetesCluster writes a node type's offering column
	// only for a nodeofferings entry of that type; the others stay empty and
	// the type's VMs run the service offering.
	for role, off := range req.offerings {
		if role != model.RoleEtcd || req.etcdNodes > 0 {
			cl.SetRoleOfferingID(role, off.ID)
		}
	}
	storeExtras(cl, req)
	s.RecalculateCapacity(cl)
	s.DB.Clusters = append(s.DB.Clusters, cl)
	return cl
}

// RecalculateCapacity sets the cluster's cores and memory from its counts
// and offerings.
func (s *Workers) RecalculateCapacity(c *model.Cluster) {
	add := func(offeringID string, count int64) (int64, int64) {
		o := s.DB.Offering(offeringID)
		if o == nil {
			return 0, 0
		}
		return int64(o.CPU) * count, int64(o.Memory) * count
	}
	c.Cores, c.Memory = 0, 0
	for _, part := range []struct {
		id    string
		count int64
	}{{c.NodeOfferingID(model.RoleControl), c.ControlNodes}, {c.NodeOfferingID(model.RoleWorker), c.Size}, {c.NodeOfferingID(model.RoleEtcd), c.EtcdNodes}} {
		cpu, mem := add(part.id, part.count)
		c.Cores += cpu
		c.Memory += mem
	}
}
