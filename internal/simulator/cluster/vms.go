package cluster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// VMs, the VM map and Kubernetes node registration. Callers hold the lock.

// nodeNameMillis returns the clock in milliseconds for a control or worker
// name. VMs are created one after another, seconds apart on a real server;
// a fast or frozen clock must still give distinct names, so the value never
// repeats. Callers hold the lock.
func (s *Workers) nodeNameMillis() int64 {
	ms := s.Now().UnixMilli()
	if ms <= s.lastNameMS {
		ms = s.lastNameMS + 1
	}
	s.lastNameMS = ms
	return ms
}

// CreateNodeVM deploys and starts a CKS node VM on the network. Control and
// worker VMs run a kubelet that registers a Kubernetes node. Without a free
// guest address on the network nothing is deployed and the capacity error
// is returned.
func (s *Workers) CreateNodeVM(c *model.Cluster, role model.NodeRole, name, offeringID string, n *model.Network) (*model.VM, *wire.APIError) {
	st := s.DB
	ip, aerr := s.AllocPrivateIP(n)
	if aerr != nil {
		return nil, aerr
	}
	now := s.Now()
	v := &model.VM{InternalID: st.NextID("vm"), ID: s.NewUUID(), Name: name, State: model.VMRunning,
		Created: now, LastUpdated: now, ZoneID: c.ZoneID, AccountID: c.AccountID, OfferingID: offeringID,
		TemplateID: c.RoleTemplate(role), NetworkID: n.ID, Keypair: c.Keypair, RootDiskSize: c.RootDiskSize,
		ClusterID: c.ID, Role: role, NICID: s.NewUUID(), IP: ip}
	v.MAC = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", s.RNG.IntN(256), s.RNG.IntN(256), s.RNG.IntN(256), v.InternalID%256)
	host := int(v.InternalID) % len(st.HostIDs)
	v.HostID, v.HostName = st.HostIDs[host], st.HostNames[host]
	st.VMs = append(st.VMs, v)
	st.VMByID[strings.ToLower(v.ID)] = v
	if role == model.RoleControl || role == model.RoleWorker {
		v.Kubelet = true
		s.registerNode(c.ID, v, s.VersionSemverOf(c))
	}
	s.OpenDirectSSH(v)
	return v, nil
}

// instanceName is the hypervisor instance name i-<account>-<vm>-VM.
func (s *Workers) instanceName(v *model.VM) string {
	var acct int64
	if a := s.DB.Account(v.AccountID); a != nil {
		acct = a.InternalID
	}
	return fmt.Sprintf("i-%d-%d-VM", acct, v.InternalID)
}

func (s *Workers) VersionSemverOf(c *model.Cluster) string {
	if v := s.DB.Version(c.VersionID); v != nil {
		return v.Semver
	}
	return ""
}

// addMapRow adds a kubernetes_cluster_vm_map row: the node version is the
// cluster's semantic version, except for etcd nodes, which get none and are
// marked for manual upgrade (KubernetesClusterActionWorker.addKubernetesClusterVm,
// called by provisionEtcdCluster with markForManualUpgrade).
func (s *Workers) addMapRow(c *model.Cluster, v *model.VM) *model.MapRow {
	row := &model.MapRow{InternalID: s.DB.NextID("vmmap"), ClusterID: c.ID, VMID: v.ID,
		Control: v.Role == model.RoleControl, Etcd: v.Role == model.RoleEtcd, ManualUpgrade: v.Role == model.RoleEtcd}
	if !row.Etcd {
		row.NodeVersion = s.VersionSemverOf(c)
	}
	s.DB.VMMap = append(s.DB.VMMap, row)
	return row
}

func (s *Workers) DeleteMapRow(row *model.MapRow) {
	s.DB.VMMap = slices.DeleteFunc(s.DB.VMMap, func(r *model.MapRow) bool { return r == row })
}

// registerNode registers the VM's node in the cluster's Kubernetes, once.
func (s *Workers) registerNode(clusterID string, v *model.VM, version string) {
	if s.DB.NodeOfVM(v.ID) != nil {
		return
	}
	s.DB.Nodes = append(s.DB.Nodes, &model.KubeNode{ClusterID: clusterID, Name: model.KubeNodeName(v), VMID: v.ID,
		Control: v.Role == model.RoleControl, Version: version, IP: v.IP, Created: s.Now()})
}

// DeleteNode is `kubectl delete node`.
func (s *Workers) DeleteNode(vmID string) {
	s.DB.Nodes = slices.DeleteFunc(s.DB.Nodes, func(n *model.KubeNode) bool { return n.VMID == vmID })
}

// SetVMState changes a VM's state and its lastupdated time.
func (s *Workers) SetVMState(v *model.VM, state string) {
	if v.State == state {
		return
	}
	v.State = state
	v.LastUpdated = s.Now()
}

// ExpungeVM destroys and expunges a VM. Expunging revokes the VM's own
// port-forwarding rules (cleanupVmResources) and drops it from LB rules.
// Its Kubernetes node object, if any, stays until someone deletes it.
func (s *Workers) ExpungeVM(v *model.VM) {
	if !v.Expunged {
		defer s.ReleasePrivateIP(v) // once: the address may be someone else's later
		s.CloseDirectSSH(v)
	}
	s.SetVMState(v, model.VMDestroyed)
	s.SetVMState(v, model.VMExpunging)
	for _, r := range slices.Clone(s.DB.Rules) {
		if r.Purpose == model.PurposePF && r.VMID == v.ID {
			s.RevokeRule(r)
		}
		if r.Purpose == model.PurposeLB {
			r.LBMembers = slices.DeleteFunc(r.LBMembers, func(id string) bool { return id == v.ID })
		}
	}
	v.Expunged = true
}

// JoinNode registers a VM's node when the VM belongs to a live cluster and
// is not an etcd VM.
func (s *Workers) JoinNode(v *model.VM) {
	if v.Role == model.RoleEtcd || v.ClusterID == "" {
		return
	}
	c := s.DB.Cluster(v.ClusterID)
	if c == nil || c.Removed {
		return
	}
	version := s.VersionSemverOf(c)
	if row := s.DB.MapRowOf(v.ID); row != nil && row.NodeVersion != "" {
		version = strings.TrimPrefix(row.NodeVersion, "v")
	}
	s.registerNode(c.ID, v, version)
}

// NodeReady: a node is Ready while its VM runs and its kubelet runs.
func (s *Workers) NodeReady(n *model.KubeNode) bool {
	v := s.DB.VM(n.VMID)
	return v != nil && v.State == model.VMRunning && v.Kubelet
}
