package simulator

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Readings of a cluster's records that every part of the server shares.

// expectedMapSize is C+W+E, the VM map rows a complete cluster has.
func expectedMapSize(c *cluster) int { return int(c.controlNodes + c.size + c.etcdNodes) }

// String is KubernetesClusterVO.toString(), used in server messages.
func (c *cluster) String() string {
	name, _ := json.Marshal(c.name)
	return fmt.Sprintf(`KubernetesCluster {"id":%d,"name":%s,"uuid":"%s"}`, c.internalID, name, c.id)
}

// roleDefault is KubernetesClusterNodeType.DEFAULT: one offering for every
// node type.
const roleDefault nodeRole = "default"

// roleOfferingID is the offering the cluster records for a node type.
func (c *cluster) roleOfferingID(role nodeRole) string {
	switch role {
	case roleControl:
		return c.controlOfferingID
	case roleWorker:
		return c.workerOfferingID
	case roleEtcd:
		return c.etcdOfferingID
	}
	return c.offeringID
}

// nodeOfferingID is the offering a node type's new VMs get: its own
// column, else the cluster's service offering
// (KubernetesClusterResourceModifierActionWorker.getServiceOfferingForNodeTypeOnCluster).
func (c *cluster) nodeOfferingID(role nodeRole) string {
	if id := c.roleOfferingID(role); id != "" && role != roleDefault {
		return id
	}
	return c.offeringID
}

func (c *cluster) setRoleOfferingID(role nodeRole, id string) {
	switch role {
	case roleControl:
		c.controlOfferingID = id
	case roleWorker:
		c.workerOfferingID = id
	case roleEtcd:
		c.etcdOfferingID = id
	}
}

// rowRole is the node type of a map row (listByClusterIdAndVmType).
func rowRole(row *mapRow) nodeRole {
	switch {
	case row.control:
		return roleControl
	case row.etcd:
		return roleEtcd
	default:
		return roleWorker
	}
}

// kubeNodeName is the name a VM's kubelet registers under.
func kubeNodeName(v *vm) string {
	if v.nodeName != "" {
		return v.nodeName
	}
	return strings.ToLower(v.name)
}

// clusterVMs returns the cluster's mapped VMs that still exist, in map
// order, with their map rows.
func (st *state) clusterVMs(c *cluster) ([]*vm, []*mapRow) {
	var vms []*vm
	var rows []*mapRow
	for _, row := range st.mapRows(c.id) {
		if v := st.vm(row.vmID); v != nil {
			vms = append(vms, v)
			rows = append(rows, row)
		}
	}
	return vms, rows
}

// roleTemplate is the template of a node type's VMs:
// getKubernetesServiceTemplate picks the nodetemplates entry of the type,
// else the zone's system VM template (the cluster's templateid).
func (c *cluster) roleTemplate(role nodeRole) string {
	if t := c.nodeTemplates[role]; t != "" {
		return t
	}
	return c.templateID
}
