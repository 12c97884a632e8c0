package driftcheck

import (
	"fmt"
	"maps"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The API lists only the map rows whose VM still exists (the response joins
// the map with the VM view, which leaves removed VMs out), so a row for an
// expunged VM or an id that never existed is invisible to a client. CKS's
// state scanner still sees it: a Running cluster with such a row goes to
// Alert, and an Alert cluster only returns to Running when its map has
// exactly C+W+E rows, every VM runs and every node is Ready. A cluster that
// stays in Alert although every view the client has is clean is therefore
// held there by rows the client cannot see, or by an API or dashboard
// failure; alertFinding reports that, as mapped_vm_missing.

// kindsExplainingAlert are findings that already explain an Alert cluster.
var kindsExplainingAlert = []string{
	drift.KindMappedVMMissing, drift.KindMappedVMNotRunning, drift.KindVMMapInconsistent,
	drift.KindNodeNotReady, drift.KindVMNotNode, drift.KindNodeWithoutVM,
}

// inferHiddenMapRows adds the finding when an Alert cluster's visible
// views are clean, its visible map is complete and its nodes were checked.
func inferHiddenMapRows(cl *cloudstack.Cluster, res drift.Result) drift.Result {
	if res.Skipped || cl.State != clusterstate.Alert || !res.NodesChecked {
		return res
	}
	for _, k := range kindsExplainingAlert {
		if res.Counts[k] > 0 {
			return res
		}
	}
	if want := int(cl.ControlNodes + cl.Size + cl.EtcdNodes); len(cl.VirtualMachines) != want {
		return res
	}
	f := drift.Finding{Kind: drift.KindMappedVMMissing, Message: fmt.Sprintf(
		"cluster %s is in Alert although every VM the API lists in its map runs and every node is Ready: "+
			"CloudStack's state scanner keeps it there, most likely because its VM map has rows for VMs that were "+
			"expunged or never existed, which the API does not list (otherwise the Kubernetes API or dashboard "+
			"failed the scanner's recovery check)", cl.Name)}
	// mapped_vm_missing is the first kind and this finding has no VM name,
	// so it sorts first.
	res.Findings = append([]drift.Finding{f}, res.Findings...)
	res.Counts = maps.Clone(res.Counts)
	res.Counts[drift.KindMappedVMMissing]++
	res.InSync = false
	res.Summary = drift.Summarize(res)
	return res
}
