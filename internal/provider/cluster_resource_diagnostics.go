package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// Diagnostics shared by the cks_cluster operations: what the engine changed,
// why an operation failed, and which attribute gives the consent it asks for.

// addCreateReport reports what the rule engine did after a create: the
// routine work on the rules CKS made (the etcd SSH range, the configured
// CIDRs) is logged, since every create does it; anything else warns.
func addCreateReport(ctx context.Context, diags *diag.Diagnostics, rep clusterops.Report) {
	rest := rep
	rest.Steps = nil
	for _, s := range rep.Steps {
		if !s.Routine {
			rest.Steps = append(rest.Steps, s)
			continue
		}
		tflog.Info(ctx, "set up the cluster's network rules", map[string]any{"cluster_id": rep.ClusterID, "step": string(s.Kind),
			"change": s.Message})
	}
	addReportWarnings(diags, rest)
}

// addReportWarnings turns what the rule engine changed into one warning,
// what it could not do into another, and the user rules it had to
// re-create into a third.
func addReportWarnings(diags *diag.Diagnostics, rep clusterops.Report) {
	var changed, blocked, restored []string
	for _, s := range rep.Steps {
		switch s.Kind {
		case clusterops.StepScaled, clusterops.StepNote:
		case clusterops.StepBlocked:
			blocked = append(blocked, s.Message)
		case clusterops.StepRestored:
			restored = append(restored, s.Message)
		default:
			changed = append(changed, s.Message)
		}
	}
	if len(restored) > 0 {
		diags.AddWarning("Your Firewall Rules Re-Created",
			fmt.Sprintf("CloudStack's delete of cluster %s revoked rules of yours in the place of the cluster's, and the "+
				"provider created them again with the same protocol, ports and CIDRs (they have new ids, and were absent "+
				"for a moment):\n- %s", rep.ClusterID, strings.Join(restored, "\n- ")))
	}
	if len(changed) > 0 {
		diags.AddWarning("Cluster SSH Rules Changed",
			fmt.Sprintf("While working on cluster %s the provider changed or checked its network rules:\n- %s",
				rep.ClusterID, strings.Join(changed, "\n- ")))
	}
	if len(blocked) > 0 {
		// Separate, so that what needs a person is not lost among routine changes.
		diags.AddWarning("Cluster SSH Rules Need Attention",
			fmt.Sprintf("While working on cluster %s the provider could not do the following; check these rules yourself:\n- %s",
				rep.ClusterID, strings.Join(blocked, "\n- ")))
	}
}

// describeFailure explains an operation's error for a diagnostic, naming
// the attribute that gives the consent the engine asks for.
func describeFailure(what string, err error) (summary, detail string) {
	var hazard *clusterops.HazardError
	var inconsistent *vmmap.Inconsistency
	var stuck *clusterops.StuckError
	switch {
	case errors.As(err, &stuck):
		return "Cluster Stuck in " + stuck.State, sentence(stuck.Error())
	case errors.As(err, new(*clusterops.CIDRFamilyError)):
		return "Invalid CIDRs", sentence(fmt.Sprintf("%s failed: %s", what, err))
	case errors.As(err, &hazard):
		return "Unsafe Cluster Scale", hazardText(hazard)
	case errors.As(err, &inconsistent):
		return "Cluster Needs an Administrator", adminText(inconsistent)
	case errors.Is(err, context.DeadlineExceeded):
		return "Cluster Operation Timed Out", fmt.Sprintf("%s did not finish within the configured timeout: %s. "+
			"CloudStack may still be working on it; raise timeouts if the cluster needs longer.", what, err)
	default:
		return "Cluster Operation Failed", sentence(fmt.Sprintf("%s failed: %s", what, err))
	}
}

// hazardText is a HazardError with the attribute that gives the consent.
func hazardText(h *clusterops.HazardError) string {
	text := sentence(h.Error())
	if h.OptIn != "" {
		text += fmt.Sprintf(" Set %s = true to give that consent.", optInAttribute(h.OptIn))
	}
	return text
}

// adminText explains a VM map inconsistency, with Terraform's way to
// re-create the cluster.
func adminText(bad *vmmap.Inconsistency) string {
	return fmt.Sprintf("Cluster %s: %s In Terraform, re-creating it is `terraform apply -replace=<this resource's address>`.",
		bad.ClusterID, bad.Explanation())
}

// addFailure adds the error of a failed operation, naming its step.
func addFailure(diags *diag.Diagnostics, err error, after string) {
	step := "The update"
	var se *clusterops.StepError
	if errors.As(err, &se) {
		step, err = se.Step, se.Err
	}
	summary, detail := describeFailure(step, err)
	diags.AddError(summary, detail+" "+after)
}

// optInAttribute names the attribute that gives the engine a consent.
func optInAttribute(o clusterops.OptIn) string {
	switch o {
	case clusterops.OptInMoveUserRules:
		return "recreate_user_hazard_rules"
	default:
		return string(o)
	}
}
