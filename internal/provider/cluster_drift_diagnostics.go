package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// maxListedDriftFindings keeps a diagnostic readable on a badly drifted cluster;
// the findings output always has them all.
const maxListedDriftFindings = 50

// driftFindingsText lists the findings of one cluster, one per line.
func driftFindingsText(res drift.Result) string {
	var b strings.Builder
	for i, f := range res.Findings {
		if i == maxListedDriftFindings {
			fmt.Fprintf(&b, "\n  ... and %d more (see the findings attribute)", len(res.Findings)-i)
			break
		}
		fmt.Fprintf(&b, "\n  - %s: %s", f.Kind, f.Message)
	}
	return b.String()
}

// driftClusterLabel names a cluster for messages.
func driftClusterLabel(name, id string) string {
	if name == "" {
		return "cluster " + id
	}
	return fmt.Sprintf("cluster %s (%s)", name, id)
}

// addClusterDriftDiagnostics reports one cluster's outcome: drift as a
// warning, or as an error with fail_on_drift; a skipped cluster and nodes
// that could not be listed as warnings.
func addClusterDriftDiagnostics(diags *diag.Diagnostics, label string, res drift.Result, failOnDrift bool) {
	if res.Skipped {
		diags.AddWarning("Cluster Drift Check Skipped",
			fmt.Sprintf("The drift of %s was not checked: %s. Run the check again once the operation is over.", label, res.SkipReason))
		return
	}
	if res.NodeCheckError != "" {
		diags.AddWarning("Kubernetes Nodes Not Checked",
			fmt.Sprintf("The Kubernetes nodes of %s could not be listed, so only the VM map, the VMs and the network rules "+
				"were compared: %s", label, res.NodeCheckError))
	}
	if res.InSync {
		return
	}
	detail := fmt.Sprintf("The drift check of %s found %s:%s", label, res.Summary, driftFindingsText(res))
	if failOnDrift {
		diags.AddError("Cluster Drift Detected", detail+"\n\nfail_on_drift is true, so this fails the run.")
		return
	}
	diags.AddWarning("Cluster Drift Detected", detail)
}

// driftHostKeyRefusal turns a refused SSH host key into an error against the
// attribute that pinned it: it may be a machine in the middle, so the read
// fails instead of quietly skipping the nodes.
func driftHostKeyRefusal(diags *diag.Diagnostics, label string, node driftcheck.NodeCheck, opts driftcheck.Options, res drift.Result) bool {
	var hostKeyErr *sshlister.HostKeyError
	if !errors.As(node.Err, &hostKeyErr) {
		return false
	}
	attr := "host_key"
	if opts.SSH.KnownHosts != "" {
		attr = "known_hosts"
	}
	diags.AddAttributeError(path.Root("ssh").AtName(attr), "SSH Host Key Refused",
		fmt.Sprintf("Control node 1 of %s answered at %s with a host key that %s does not accept: %s.\n\n"+
			"The node may have been rebuilt, or something else answers at that address. Check the key on the node "+
			"(ssh-keyscan -p <port> <host>) before you trust it. Without the nodes, the VM map, VMs and rules "+
			"comparison gives: %s", label, node.Address, attr, hostKeyErr.Error(), res.Summary))
	return true
}
