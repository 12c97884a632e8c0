package simulator

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
func (s *Simulator) nodeNameMillis() int64 {
	ms := s.rt.Now().UnixMilli()
	if ms <= s.lastNameMS {
		ms = s.lastNameMS + 1
	}
	s.lastNameMS = ms
	return ms
}

// createNodeVM deploys and starts a CKS node VM on the network. Control and
// worker VMs run a kubelet that registers a Kubernetes node. Without a free
// guest address on the network nothing is deployed and the capacity error
// is returned.
func (s *Simulator) createNodeVM(c *model.Cluster, role model.NodeRole, name, offeringID string, n *model.Network) (*model.VM, *wire.APIError) {
	st := s.rt.DB
	ip, aerr := s.net.AllocPrivateIP(n)
	if aerr != nil {
		return nil, aerr
	}
	now := s.rt.Now()
	v := &model.VM{InternalID: st.NextID("vm"), ID: s.rt.NewUUID(), Name: name, State: model.VMRunning,
		Created: now, LastUpdated: now, ZoneID: c.ZoneID, AccountID: c.AccountID, OfferingID: offeringID,
		TemplateID: c.RoleTemplate(role), NetworkID: n.ID, Keypair: c.Keypair, RootDiskSize: c.RootDiskSize,
		ClusterID: c.ID, Role: role, NICID: s.rt.NewUUID(), IP: ip}
	v.MAC = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", s.rt.RNG.IntN(256), s.rt.RNG.IntN(256), s.rt.RNG.IntN(256), v.InternalID%256)
	host := int(v.InternalID) % len(st.HostIDs)
	v.HostID, v.HostName = st.HostIDs[host], st.HostNames[host]
	st.VMs = append(st.VMs, v)
	st.VMByID[strings.ToLower(v.ID)] = v
	if role == model.RoleControl || role == model.RoleWorker {
		v.Kubelet = true
		s.registerNode(c.ID, v, s.versionSemverOf(c))
	}
	s.net.OpenDirectSSH(v)
	return v, nil
}

// instanceName is the hypervisor instance name i-<account>-<vm>-VM.
func (s *Simulator) instanceName(v *model.VM) string {
	var acct int64
	if a := s.rt.DB.Account(v.AccountID); a != nil {
		acct = a.InternalID
	}
	return fmt.Sprintf("i-%d-%d-VM", acct, v.InternalID)
}

func (s *Simulator) versionSemverOf(c *model.Cluster) string {
	if v := s.rt.DB.Version(c.VersionID); v != nil {
		return v.Semver
	}
	return ""
}

// addMapRow adds a kubernetes_cluster_vm_map row: the node version is the
// cluster's semantic version, except for etcd nodes, which get none and are
// marked for manual upgrade (KubernetesClusterActionWorker.addKubernetesClusterVm,
// called by provisionEtcdCluster with markForManualUpgrade).
func (s *Simulator) addMapRow(c *model.Cluster, v *model.VM) *model.MapRow {
	row := &model.MapRow{InternalID: s.rt.DB.NextID("vmmap"), ClusterID: c.ID, VMID: v.ID,
		Control: v.Role == model.RoleControl, Etcd: v.Role == model.RoleEtcd, ManualUpgrade: v.Role == model.RoleEtcd}
	if !row.Etcd {
		row.NodeVersion = s.versionSemverOf(c)
	}
	s.rt.DB.VMMap = append(s.rt.DB.VMMap, row)
	return row
}

func (s *Simulator) deleteMapRow(row *model.MapRow) {
	s.rt.DB.VMMap = slices.DeleteFunc(s.rt.DB.VMMap, func(r *model.MapRow) bool { return r == row })
}

// registerNode registers the VM's node in the cluster's Kubernetes, once.
func (s *Simulator) registerNode(clusterID string, v *model.VM, version string) {
	if s.rt.DB.NodeOfVM(v.ID) != nil {
		return
	}
	s.rt.DB.Nodes = append(s.rt.DB.Nodes, &model.KubeNode{ClusterID: clusterID, Name: model.KubeNodeName(v), VMID: v.ID,
		Control: v.Role == model.RoleControl, Version: version, IP: v.IP, Created: s.rt.Now()})
}

// deleteNode is `kubectl delete node`.
func (s *Simulator) deleteNode(vmID string) {
	s.rt.DB.Nodes = slices.DeleteFunc(s.rt.DB.Nodes, func(n *model.KubeNode) bool { return n.VMID == vmID })
}

// setVMState changes a VM's state and its lastupdated time.
func (s *Simulator) setVMState(v *model.VM, state string) {
	if v.State == state {
		return
	}
	v.State = state
	v.LastUpdated = s.rt.Now()
}

// expungeVM destroys and expunges a VM. Expunging revokes the VM's own
// port-forwarding rules (cleanupVmResources) and drops it from LB rules.
// Its Kubernetes node object, if any, stays until someone deletes it.
func (s *Simulator) expungeVM(v *model.VM) {
	if !v.Expunged {
		defer s.net.ReleasePrivateIP(v) // once: the address may be someone else's later
		s.net.CloseDirectSSH(v)
	}
	s.setVMState(v, model.VMDestroyed)
	s.setVMState(v, model.VMExpunging)
	for _, r := range slices.Clone(s.rt.DB.Rules) {
		if r.Purpose == model.PurposePF && r.VMID == v.ID {
			s.net.RevokeRule(r)
		}
		if r.Purpose == model.PurposeLB {
			r.LBMembers = slices.DeleteFunc(r.LBMembers, func(id string) bool { return id == v.ID })
		}
	}
	v.Expunged = true
}

// joinNode registers a VM's node when the VM belongs to a live cluster and
// is not an etcd VM.
func (s *Simulator) joinNode(v *model.VM) {
	if v.Role == model.RoleEtcd || v.ClusterID == "" {
		return
	}
	c := s.rt.DB.Cluster(v.ClusterID)
	if c == nil || c.Removed {
		return
	}
	version := s.versionSemverOf(c)
	if row := s.rt.DB.MapRowOf(v.ID); row != nil && row.NodeVersion != "" {
		version = strings.TrimPrefix(row.NodeVersion, "v")
	}
	s.registerNode(c.ID, v, version)
}
