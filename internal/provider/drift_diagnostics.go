package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

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
// warning, or as an error with fail_on_drift. The gate fails closed: a
// skipped cluster and a check with incomplete views are errors too with
// fail_on_drift, unless allow_incomplete makes them warnings.
func addClusterDriftDiagnostics(diags *diag.Diagnostics, label string, res drift.Result, gate driftGate) {
	if res.Skipped {
		detail := fmt.Sprintf("The drift of %s was not checked: %s. Run the check again once the operation is over.", label, res.SkipReason)
		if gate.failsIncomplete() {
			diags.AddError("Cluster Drift Check Skipped", detail+"\n\n"+driftFailsClosedNote)
			return
		}
		diags.AddWarning("Cluster Drift Check Skipped", detail)
		return
	}
	if len(res.Incomplete) > 0 {
		detail := fmt.Sprintf("The drift check of %s could not compare every view it was asked for, so it cannot tell "+
			"that the cluster is in sync (in_sync is false):%s\n\nThe views that were compared give: %s",
			label, driftIncompleteText(res.Incomplete), res.Summary)
		if gate.failsIncomplete() {
			diags.AddError("Cluster Drift Check Incomplete", detail+"\n\n"+driftFailsClosedNote)
		} else {
			diags.AddWarning("Cluster Drift Check Incomplete", detail)
		}
	}
	if len(res.Ignored) > 0 {
		diags.AddWarning("Cluster Drift Ignored", fmt.Sprintf("The drift check of %s ignored these findings, which ignore "+
			"rules accept; they do not fail the gate:%s", label, driftIgnoredText(res.Ignored)))
	}
	if len(res.Findings) == 0 {
		return
	}
	detail := fmt.Sprintf("The drift check of %s found %s:%s", label, res.Summary, driftFindingsText(res))
	if gate.failOnDrift {
		diags.AddError("Cluster Drift Detected", detail+"\n\nfail_on_drift is true, so this fails the run.")
		return
	}
	diags.AddWarning("Cluster Drift Detected", detail)
}

// driftFailsClosedNote explains why an incomplete check fails the gate.
const driftFailsClosedNote = "fail_on_drift is true, so a check that did not compare everything fails the run: the drift it " +
	"could not see may be there. Fix what kept the view from being read, or set allow_incomplete = true to let such a " +
	"check pass with a warning."

// driftIncompleteText lists the views that were not compared, one per line.
func driftIncompleteText(views []drift.IncompleteView) string {
	var b strings.Builder
	for _, v := range views {
		fmt.Fprintf(&b, "\n  - %s (%s) not checked: %s", drift.ViewLabel(v.View), v.View, v.Reason)
	}
	return b.String()
}

// driftHostKeyRefusal turns a refused SSH host key into an error against the
// attribute that pinned it: it may be a machine in the middle, so the read
// fails instead of quietly skipping the nodes.
func driftHostKeyRefusal(diags *diag.Diagnostics, label string, node driftcheck.NodeCheck, opts driftcheck.Options, res drift.Result) bool {
	var hostKeyErr *sshlister.HostKeyError
	if !errors.As(node.Err, &hostKeyErr) {
		return false
	}
	attr := driftHostKeyAttr(opts)
	diags.AddAttributeError(path.Root("ssh").AtName(attr), "SSH Host Key Refused",
		fmt.Sprintf("Control node 1 of %s answered at %s with a host key that ssh.%s does not accept: %s.\n\n"+
			"The node may have been rebuilt, or something else answers at that address. Check the key on the node "+
			"(ssh-keyscan -p <port> <host>) before you trust it. Without the nodes, the VM map, VMs and rules "+
			"comparison gives: %s", label, node.Address, attr, hostKeyErr.Error(), res.Summary))
	return true
}

// driftHostKeyAttr is the ssh attribute that pinned the refused host key.
func driftHostKeyAttr(opts driftcheck.Options) string {
	if opts.SSH.KnownHosts != "" {
		return "known_hosts"
	}
	return "host_key"
}

// addDriftIgnoreDiagnostics warns about expired rules and rules that
// matched nothing. notCompared counts the clusters whose findings were not
// known (skipped or failed), where a rule may have matched.
func addDriftIgnoreDiagnostics(diags *diag.Diagnostics, rules []drift.IgnoreRule, uses []drift.RuleUse, compared, notCompared int) {
	for i, r := range rules {
		if i >= len(uses) {
			break
		}
		u, at := uses[i], path.Root("ignore").AtListIndex(i)
		switch {
		case u.Expired:
			detail := fmt.Sprintf("ignore[%d] (%s) expired at %s, so it ignores nothing now", i, r.Reason, r.Expires.UTC().Format("2006-01-02T15:04:05Z"))
			if u.ExpiredMatches > 0 {
				detail += fmt.Sprintf(": the %d finding(s) it matches count again. Fix the drift, or extend expires if the "+
					"reason still holds.", u.ExpiredMatches)
			} else {
				detail += ", and it matches no finding either: remove it."
			}
			diags.AddAttributeWarning(at.AtName("expires"), "Drift Ignore Rule Expired", detail)
		case u.Matched == 0 && u.Shadowed > 0:
			diags.AddAttributeWarning(at, "Drift Ignore Rule Shadowed", fmt.Sprintf("ignore[%d] (%s) matches %d finding(s), but "+
				"ignore[%d], earlier in the list, takes them: the first rule that matches takes a finding, so this one ignores "+
				"nothing. Remove it if ignore[%d] says the same, or move it before ignore[%d] to have its reason reported.",
				i, r.Reason, u.Shadowed, u.ShadowedBy, u.ShadowedBy, u.ShadowedBy))
		case u.Matched == 0 && compared > 0:
			detail := fmt.Sprintf("ignore[%d] (%s) matched no finding: the drift it accepted is gone, or its kind or "+
				"name patterns are wrong. Remove it, or fix its criteria.", i, r.Reason)
			if notCompared > 0 {
				detail += fmt.Sprintf(" (%d cluster(s) were not compared, where it may match.)", notCompared)
			}
			diags.AddAttributeWarning(at, "Drift Ignore Rule Matches Nothing", detail)
		}
	}
}

// driftIgnoredText lists ignored findings with their reasons, one per line.
func driftIgnoredText(ignored []drift.IgnoredFinding) string {
	var b strings.Builder
	for i, f := range ignored {
		if i == maxListedDriftFindings {
			fmt.Fprintf(&b, "\n  ... and %d more (see the ignored_findings attribute)", len(ignored)-i)
			break
		}
		until := ""
		if f.Expires != "" {
			until = ", until " + f.Expires
		}
		fmt.Fprintf(&b, "\n  - %s: %s (ignore[%d]: %s%s)", f.Kind, f.Message, f.Rule, f.Reason, until)
	}
	return b.String()
}

func logDriftStats(ctx context.Context, st driftcheck.Stats) {
	fields := map[string]any{
		"cloudstack_requests": st.CloudStackRequests(),
		"ssh_sessions":        st.SSHSessions,
		"kube_api_listings":   st.KubeAPIListings,
		"elapsed_ms":          st.Elapsed.Milliseconds(),
	}
	if st.Node.Address != "" {
		fields["node_address"] = st.Node.Address
	}
	tflog.Debug(ctx, "drift check done", fields)
}
