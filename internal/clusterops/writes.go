package clusterops

import (
	"cmp"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// What CloudStack writes to a cluster besides what a call asks for. The
// plan shows these values before the apply, so that an apply never fails
// over a value the configuration does not set.

// OfferingWrites are the cluster's node offering columns (control, worker,
// etcd) that a scale call writes, with the value it writes.
type OfferingWrites map[string]string

// scaleOfferingWrites returns the node offering columns a size change
// with p writes. KubernetesClusterScaleWorker.scaleKubernetesClusterSize
// ends with updateKubernetesClusterEntryForNodeType(..., updateNodeOffering)
// where updateNodeOffering is serviceOfferingNodeTypeMap.containsKey(WORKER):
// the worker entry a size change sends is written to
// worker_node_service_offering_id even when nothing changes and the column
// was empty (a cluster created with serviceofferingid alone). The control
// and etcd entries sent with nodeids name their current offerings, so
// KubernetesClusterScaleWorker.scaleCluster runs nothing for those node
// types and writes nothing; with nodeids there is no worker entry.
func scaleOfferingWrites(p cloudstack.ScaleClusterParams) OfferingWrites {
	if p.Size == nil || p.NodeOfferings["worker"] == "" {
		return nil
	}
	return OfferingWrites{"worker": p.NodeOfferings["worker"]}
}

// checkPlannedWrites refuses a scale that would leave other node offering
// columns than the plan showed: each planned role keeps its column unless
// the scale writes it.
func checkPlannedWrites(c *cloudstack.Cluster, planned, writes OfferingWrites) error {
	after := OfferingWrites{}
	for role, want := range planned {
		after[role] = cmp.Or(writes[role], NodeOffering(c, role))
		if after[role] != want {
			return &PlannedWritesError{ClusterID: c.ID, Planned: planned, Now: after}
		}
	}
	return nil
}
