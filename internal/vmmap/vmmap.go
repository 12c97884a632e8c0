// Package vmmap judges whether a CKS cluster's VM map agrees with its size,
// and words what only an administrator can do when it does not. It is pure
// Go, shared by the operations engine and the drift comparison.
package vmmap

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// Inconsistency is a cluster whose VM map disagrees with its node_count
// (size), as a failed scale leaves it: KubernetesClusterScaleWorker writes
// node_count last, after VMs were already removed or added, and never rolls
// back. CloudStack's API cannot correct it:
//
//   - fewer map rows than C + node_count + E: every size change is refused
//     (validateKubernetesClusterScaleSizeParameters, "it is in unstable
//     state as not enough existing VM instances found"), and the state
//     scanner keeps the cluster in Alert (reconcileAlertCluster needs the
//     map to hold exactly C + node_count + E VMs);
//   - more rows (a scale-up that failed after creating VMs): the scanner
//     never returns it from Alert, and CloudStack scales only Created,
//     Running or Stopped clusters.
//
// No API call writes node_count. An administrator corrects it in the
// database; the scanner then returns the cluster to Running.
type Inconsistency struct {
	ClusterID   string
	ClusterName string
	State       string
	// NodeCount is the cluster's size as CloudStack reports it (node_count,
	// which counts the external nodes); Workers the worker VMs CKS made that
	// its VM map really holds, External the external nodes it holds.
	NodeCount int64
	Workers   int64
	External  int64
	// Rows is the VM map's size; Expected what C + node_count + E makes it.
	Rows, Expected int64
}

// MapNodeCount is the node_count the VM map supports: its workers and its
// external nodes.
func (i *Inconsistency) MapNodeCount() int64 { return i.Workers + i.External }

// Cluster is what the judgement needs of a cluster.
type Cluster struct {
	ID, Name, State string
	// ControlNodes, Size (node_count) and EtcdNodes as CloudStack reports
	// them. node_count counts the external nodes too:
	// addNodesToKubernetesCluster adds them to it
	// (KubernetesClusterAddWorker.updateKubernetesCluster) and
	// removeNodesFromKubernetesCluster takes them off.
	ControlNodes, Size, EtcdNodes int64
	// Rows are the VM map's rows; External counts the external nodes among
	// them and Workers the workers CKS made.
	Rows, External, Workers int64
}

// Check returns the cluster's inconsistency, or nil. A cluster without VMs
// (Created) has none yet, and a cluster in a transitional state is
// inconsistent by design while its operation runs. The map of a consistent
// cluster holds C + node_count + E rows, external nodes counted once, in
// node_count (KubernetesClusterScaleWorker and the state scanner compare
// with getTotalNodeCount()).
func Check(c Cluster) *Inconsistency {
	if !clusterstate.Steady(c.State) {
		return nil
	}
	expected := c.ControlNodes + c.Size + c.EtcdNodes
	if c.Rows == 0 || c.Rows == expected {
		return nil
	}
	return &Inconsistency{ClusterID: c.ID, ClusterName: c.Name, State: c.State, NodeCount: c.Size,
		Workers: c.Workers, External: c.External, Rows: c.Rows, Expected: expected}
}

// Lost reports whether the map has fewer VMs than node_count says (a failed
// scale-down removed workers), as opposed to more (a failed scale-up).
func (i *Inconsistency) Lost() bool { return i.Rows < i.Expected }

// Error makes an Inconsistency an error for refused size changes.
func (i *Inconsistency) Error() string {
	return fmt.Sprintf("Kubernetes cluster %s cannot be scaled: %s", i.ClusterID, i.Explanation())
}

// Explanation says what happened and what only an administrator can do.
func (i *Inconsistency) Explanation() string {
	var b strings.Builder
	workers := fmt.Sprintf("%d worker(s)", i.Workers)
	if i.External > 0 {
		workers += fmt.Sprintf(" and %d external node(s)", i.External)
	}
	fmt.Fprintf(&b, "its VM map holds %d VM(s) with %s, but its size (node_count) is %d, which needs %d VM(s). ",
		i.Rows, workers, i.NodeCount, i.Expected)
	if i.Lost() {
		b.WriteString("A failed scale removed worker VMs before CloudStack could write the new size (for example the " +
			"scale-down with separate etcd nodes of apache/cloudstack#14159). CloudStack refuses every size change of such a " +
			"cluster (\"it is in unstable state as not enough existing VM instances found\") and its state scanner keeps it in Alert. ")
	} else {
		b.WriteString("A failed scale-up created worker VMs before CloudStack could write the new size. Its state scanner " +
			"never returns such a cluster from Alert, and CloudStack scales only Running, Stopped or Created clusters. ")
	}
	b.WriteString("No CloudStack API call can correct node_count; the workloads keep running meanwhile. ")
	b.WriteString(i.AdminFix())
	return b.String()
}

// AdminFix names the values and the statement an administrator runs, and
// the alternative.
func (i *Inconsistency) AdminFix() string {
	what := fmt.Sprintf("the %d worker(s) that exist", i.Workers)
	if i.External > 0 {
		what = fmt.Sprintf("the %d worker(s) and %d external node(s) that exist (external nodes count in node_count)", i.Workers, i.External)
	}
	return fmt.Sprintf("An administrator of the management server's database can set the size to %s: "+
		"UPDATE cloud.kubernetes_cluster SET node_count = %d WHERE uuid = '%s' AND removed IS NULL; "+
		"CloudStack's state scanner then returns the cluster (%s) to Running within about 30 seconds, once its SSH rules "+
		"work, and the next apply converges. The alternative is to delete and re-create the cluster.",
		what, i.MapNodeCount(), i.ClusterID, i.ClusterName)
}
