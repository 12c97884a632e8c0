package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// mapKindsExplainingAlert are the findings that tell on their own why the
// scanner holds a cluster in Alert: a short map or a VM not running.
var mapKindsExplainingAlert = []string{KindMappedVMMissing, KindMappedVMNotRunning, KindVMMapInconsistent}

// nodeKindsExplainingAlert tell it only when the Ready nodes do not add up
// to the scanner's count: a NotReady node of a VM, a VM without a node, a
// Ready node of no VM. A stale NotReady registration of no VM, for one,
// changes nothing the scanner counts.
var nodeKindsExplainingAlert = []string{KindNodeNotReady, KindVMNotNode, KindNodeWithoutVM}

// compareState reports a cluster in Alert that no other finding explains.
// No operation leaves a cluster
// there unless it failed (OperationFailed), and CloudStack's state scanner
// puts a Running cluster there when its VM map is short or a VM is not
// Running (FaultsDetected). The scanner, every 30 s, moves an Alert cluster
// whose VMs are all Stopped to Stopped, and returns one to Running only when
// the map holds exactly control + workers + etcd rows, every VM runs, the
// Ready nodes add up and the API, kubeconfig and dashboard answer
// (KubernetesClusterManagerImpl state scanner,
// KubernetesClusterStartWorker.reconcileAlertCluster). The scanner records
// no reason anywhere the API shows, so the finding replays its test on
// the views the check read: that is the reason, when it can be read.
func (c *comparison) compareState(nodesChecked bool) {
	cl := c.in.Cluster
	if cl.State != clusterstate.Alert || c.hasFinding(mapKindsExplainingAlert) {
		return
	}
	if nodesChecked && c.readyNodes() != cl.ControlNodes+cl.Size && c.hasFinding(nodeKindsExplainingAlert) {
		return
	}
	reasons := c.alertReasons(nodesChecked)
	reason := strings.Join(reasons, "; ")
	switch {
	case len(reasons) > 0:
	case nodesChecked:
		// A failed operation leaves a healthy cluster in Alert until the
		// scanner's next pass. The API lists only the map rows whose VM
		// still exists (the response joins the map with the VM view), but
		// the scanner counts every row.
		reason = "every VM the API lists in its VM map runs and is a Ready node, so either a failed operation (a " +
			"scale, upgrade, start or stop) or a fault since fixed left it there and the scanner's next pass, every 30 " +
			"seconds, returns it to Running once its Kubernetes API, kubeconfig and dashboard answer; or, if it stays in " +
			"Alert, the scanner is held by map rows for VMs that were expunged or never existed, which the API does not " +
			"list, or by a Kubernetes API or dashboard that fails its recovery check"
	default:
		reason = "the VM map and its VMs show nothing wrong, and the Kubernetes nodes were not checked " +
			"(node_source none), so whether the Ready nodes add up is unknown"
	}
	c.add(Finding{Kind: KindClusterStateUnexpected, Message: fmt.Sprintf("cluster %s is in Alert, where only a failed "+
		"operation or CloudStack's state scanner puts a cluster; the scanner returns it to Running only when its VM map "+
		"holds exactly %d VMs (control, workers and etcd), every VM runs and every node is Ready: %s",
		cl.Name, cl.ControlNodes+cl.Size+cl.EtcdNodes, reason)})
}

// alertReasons are the scanner's recovery conditions the views show
// failing.
func (c *comparison) alertReasons(nodesChecked bool) []string {
	cl := c.in.Cluster
	var reasons []string
	want := cl.ControlNodes + cl.Size + cl.EtcdNodes
	if rows := len(c.mapped); rows != want {
		reasons = append(reasons, fmt.Sprintf("its VM map lists %d VMs, not %d", rows, want))
	}
	var down []string
	stopped := 0
	for _, v := range c.mapped {
		switch {
		case !v.listed:
			down = append(down, v.label()+" does not exist")
		case v.state != vmRunning:
			down = append(down, v.label())
			if v.state == vmStopped {
				stopped++
			}
		}
	}
	switch {
	case len(down) > 0 && stopped == len(c.mapped):
		reasons = append(reasons, "every VM is Stopped, so the scanner moves it to Stopped on its next pass")
	case len(down) > 0:
		reasons = append(reasons, "VMs not Running: "+strings.Join(down, ", "))
	}
	if nodesChecked {
		ready, nodes := 0, 0
		for _, v := range c.mapped {
			if v.etcd {
				continue
			}
			nodes++
			if n, ok := c.nodeOf[v.id]; ok && n.Ready {
				ready++
			}
		}
		want := cl.ControlNodes + cl.Size
		switch all := c.readyNodes(); {
		case ready < want || ready < nodes:
			reasons = append(reasons, fmt.Sprintf("%d of its %d control and worker nodes are Ready", ready, want))
		case all != want:
			reasons = append(reasons, fmt.Sprintf("%d Kubernetes nodes are Ready, and the scanner wants exactly %d, its "+
				"control and worker nodes", all, want))
		}
	}
	return reasons
}

// readyNodes counts the Ready Kubernetes nodes, those of no VM too: the
// scanner compares kubectl's whole Ready count with the cluster's node
// count (KubernetesClusterStartWorker.reconcileAlertCluster,
// KubernetesClusterUtil.getKubernetesClusterReadyNodesCount).
func (c *comparison) readyNodes() int {
	n := 0
	if c.in.Nodes != nil {
		for _, node := range c.in.Nodes.Nodes {
			if node.Ready {
				n++
			}
		}
	}
	return n
}

// hasFinding tells whether a finding of one of the kinds was made.
func (c *comparison) hasFinding(kinds []string) bool {
	return slices.ContainsFunc(c.findings, func(f Finding) bool { return slices.Contains(kinds, f.Kind) })
}
