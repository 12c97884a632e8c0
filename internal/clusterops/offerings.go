package clusterops

import (
	"cmp"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// NodeOffering is the offering of a node type (control, worker, etcd) of
// the cluster: its own column, else the cluster's service offering, which
// is what CloudStack gives the type's new VMs
// (KubernetesClusterResourceModifierActionWorker.getServiceOfferingForNodeTypeOnCluster).
// createManagedKubernetesCluster fills a node type's column only from a
// nodeofferings entry, and a scale may fill it later with the same
// offering (scaleOfferingWrites), so the column alone would change without
// anything changing for the nodes. Without etcd nodes, etcd has an offering
// only when its column is set. "" when there is none.
func NodeOffering(c *cloudstack.Cluster, role string) string {
	column := roleOfferingColumn(c, role)
	if role == "etcd" && c.EtcdNodes == 0 {
		return column
	}
	return cmp.Or(column, c.ServiceOfferingID)
}

// roleOfferingColumn is the cluster's node offering column of a role, as
// listKubernetesClusters reports it ("" when the column is empty:
// KubernetesClusterManagerImpl.setNodeTypeServiceOfferingResponse omits it).
func roleOfferingColumn(c *cloudstack.Cluster, role string) string {
	switch role {
	case "control":
		return c.ControlOfferingID
	case "worker":
		return c.WorkerOfferingID
	case "etcd":
		return c.EtcdOfferingID
	}
	return ""
}
