package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Readings of a cluster's records that every part of the server shares.

// ExpectedMapSize is C+W+E, the VM map rows a complete cluster has.
func ExpectedMapSize(c *Cluster) int { return int(c.ControlNodes + c.Size + c.EtcdNodes) }

// String is KubernetesClusterVO.toString(), used in server messages.
func (c *Cluster) String() string {
	name, _ := json.Marshal(c.Name)
	return fmt.Sprintf(`KubernetesCluster {"id":%d,"name":%s,"uuid":"%s"}`, c.InternalID, name, c.ID)
}

// RoleDefault is KubernetesClusterNodeType.DEFAULT: one offering for every
// node type.
const RoleDefault NodeRole = "default"

// RoleOfferingID is the offering the cluster records for a node type.
func (c *Cluster) RoleOfferingID(role NodeRole) string {
	switch role {
	case RoleControl:
		return c.ControlOfferingID
	case RoleWorker:
		return c.WorkerOfferingID
	case RoleEtcd:
		return c.EtcdOfferingID
	}
	return c.OfferingID
}

// NodeOfferingID is the offering a node type's new VMs get: its own
// column, else the cluster's service offering
// (KubernetesClusterResourceModifierActionWorker.getServiceOfferingForNodeTypeOnCluster).
func (c *Cluster) NodeOfferingID(role NodeRole) string {
	if id := c.RoleOfferingID(role); id != "" && role != RoleDefault {
		return id
	}
	return c.OfferingID
}

func (c *Cluster) SetRoleOfferingID(role NodeRole, id string) {
	switch role {
	case RoleControl:
		c.ControlOfferingID = id
	case RoleWorker:
		c.WorkerOfferingID = id
	case RoleEtcd:
		c.EtcdOfferingID = id
	}
}

// RowRole is the node type of a map row (listByClusterIdAndVmType).
func RowRole(row *MapRow) NodeRole {
	switch {
	case row.Control:
		return RoleControl
	case row.Etcd:
		return RoleEtcd
	default:
		return RoleWorker
	}
}

// KubeNodeName is the name a VM's kubelet registers under.
func KubeNodeName(v *VM) string {
	if v.NodeName != "" {
		return v.NodeName
	}
	return strings.ToLower(v.Name)
}

// ClusterVMs returns the cluster's mapped VMs that still exist, in map
// order, with their map rows.
func (st *DB) ClusterVMs(c *Cluster) ([]*VM, []*MapRow) {
	var vms []*VM
	var rows []*MapRow
	for _, row := range st.MapRows(c.ID) {
		if v := st.VM(row.VMID); v != nil {
			vms = append(vms, v)
			rows = append(rows, row)
		}
	}
	return vms, rows
}

// RoleTemplate is the template of a node type's VMs:
// getKubernetesServiceTemplate picks the nodetemplates entry of the type,
// else the zone's system VM template (the cluster's templateid).
func (c *Cluster) RoleTemplate(role NodeRole) string {
	if t := c.NodeTemplates[role]; t != "" {
		return t
	}
	return c.TemplateID
}
