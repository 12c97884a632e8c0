package simulator

import (
	"fmt"
	"slices"
	"strings"
)

// VMs, the VM map and Kubernetes node registration. Callers hold s.mu.

// createNodeVM deploys and starts a CKS node VM on the network. Control and
// worker VMs run a kubelet that registers a Kubernetes node. Without a free
// guest address on the network nothing is deployed and the capacity error
// is returned.
func (s *Simulator) createNodeVM(c *cluster, role nodeRole, name, offeringID string, n *network) (*vm, *apiError) {
	st := s.st
	ip, aerr := s.allocPrivateIP(n)
	if aerr != nil {
		return nil, aerr
	}
	now := s.now()
	v := &vm{internalID: st.nextID("vm"), id: s.newUUID(), name: name, state: vmRunning,
		created: now, lastUpdated: now, zoneID: c.zoneID, accountID: c.accountID, offeringID: offeringID,
		templateID: c.roleTemplate(role), networkID: n.id, keypair: c.keypair, rootDiskSize: c.rootDiskSize,
		clusterID: c.id, role: role, nicID: s.newUUID(), ip: ip}
	v.mac = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", s.rng.IntN(256), s.rng.IntN(256), s.rng.IntN(256), v.internalID%256)
	host := int(v.internalID) % len(st.hostIDs)
	v.hostID, v.hostName = st.hostIDs[host], st.hostNames[host]
	st.vms = append(st.vms, v)
	st.vmByID[strings.ToLower(v.id)] = v
	if role == roleControl || role == roleWorker {
		v.kubelet = true
		s.registerNode(c.id, v, s.versionSemverOf(c))
	}
	s.openDirectSSH(v)
	return v, nil
}

// instanceName is the hypervisor instance name i-<account>-<vm>-VM.
func (s *Simulator) instanceName(v *vm) string {
	var acct int64
	if a := s.st.account(v.accountID); a != nil {
		acct = a.internalID
	}
	return fmt.Sprintf("i-%d-%d-VM", acct, v.internalID)
}

func (s *Simulator) versionSemverOf(c *cluster) string {
	if v := s.st.version(c.versionID); v != nil {
		return v.semver
	}
	return ""
}

// addMapRow adds a kubernetes_cluster_vm_map row: the node version is the
// cluster's semantic version, except for etcd nodes, which get none and are
// marked for manual upgrade (KubernetesClusterActionWorker.addKubernetesClusterVm,
// called by provisionEtcdCluster with markForManualUpgrade).
func (s *Simulator) addMapRow(c *cluster, v *vm) *mapRow {
	row := &mapRow{internalID: s.st.nextID("vmmap"), clusterID: c.id, vmID: v.id,
		control: v.role == roleControl, etcd: v.role == roleEtcd, manualUpgrade: v.role == roleEtcd}
	if !row.etcd {
		row.nodeVersion = s.versionSemverOf(c)
	}
	s.st.vmMap = append(s.st.vmMap, row)
	return row
}

func (s *Simulator) deleteMapRow(row *mapRow) {
	s.st.vmMap = slices.DeleteFunc(s.st.vmMap, func(r *mapRow) bool { return r == row })
}

// registerNode registers the VM's node in the cluster's Kubernetes, once.
func (s *Simulator) registerNode(clusterID string, v *vm, version string) {
	if s.st.nodeOfVM(v.id) != nil {
		return
	}
	s.st.nodes = append(s.st.nodes, &kubeNode{clusterID: clusterID, name: kubeNodeName(v), vmID: v.id,
		control: v.role == roleControl, version: version, ip: v.ip, created: s.now()})
}

// deleteNode is `kubectl delete node`.
func (s *Simulator) deleteNode(vmID string) {
	s.st.nodes = slices.DeleteFunc(s.st.nodes, func(n *kubeNode) bool { return n.vmID == vmID })
}

// setVMState changes a VM's state and its lastupdated time.
func (s *Simulator) setVMState(v *vm, state string) {
	if v.state == state {
		return
	}
	v.state = state
	v.lastUpdated = s.now()
}

// expungeVM destroys and expunges a VM. Expunging revokes the VM's own
// port-forwarding rules (cleanupVmResources) and drops it from LB rules.
// Its Kubernetes node object, if any, stays until someone deletes it.
func (s *Simulator) expungeVM(v *vm) {
	if !v.expunged {
		defer s.releasePrivateIP(v) // once: the address may be someone else's later
		s.closeDirectSSH(v)
	}
	s.setVMState(v, vmDestroyed)
	s.setVMState(v, vmExpunging)
	for _, r := range slices.Clone(s.st.rules) {
		if r.purpose == purposePF && r.vmID == v.id {
			s.revokeRule(r)
		}
		if r.purpose == purposeLB {
			r.lbMembers = slices.DeleteFunc(r.lbMembers, func(id string) bool { return id == v.id })
		}
	}
	v.expunged = true
}

// joinNode registers a VM's node when the VM belongs to a live cluster and
// is not an etcd VM.
func (s *Simulator) joinNode(v *vm) {
	if v.role == roleEtcd || v.clusterID == "" {
		return
	}
	c := s.st.cluster(v.clusterID)
	if c == nil || c.removed {
		return
	}
	version := s.versionSemverOf(c)
	if row := s.st.mapRowOf(v.id); row != nil && row.nodeVersion != "" {
		version = strings.TrimPrefix(row.nodeVersion, "v")
	}
	s.registerNode(c.id, v, version)
}
