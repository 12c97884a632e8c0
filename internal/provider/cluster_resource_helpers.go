package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// readBackTimeout bounds the read that records the real state after an
// operation failed or ran out of time (its own context may be over).
const readBackTimeout = 2 * time.Minute

// observe reads the cluster and its rules for the model m (whose ssh_cidrs
// decide which rules are the cluster's), also when ctx is over.
func (r *clusterResource) observe(ctx context.Context, m *clusterResourceModel, id string, prior privateState) (*clusterops.Observation, diag.Diagnostics) {
	if ctx.Err() != nil {
		fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
		defer cancel()
		ctx = fresh
	}
	in, diags := intentOf(ctx, m, nil, cachedNetwork(ctx, prior))
	obs, err := r.engine().Observe(ctx, id, in)
	if err != nil {
		return nil, append(diags, diag.NewErrorDiagnostic("Unable to Read Cluster", fmt.Sprintf("Reading cluster %s failed: %s", id, err)))
	}
	return obs, diags
}

// privateState is the part of the framework's private state the resource
// uses (resource responses' Private fields implement it).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// refreshModel sets m's observed attributes from the observation, keeping
// the inputs the API does not return, and caches what the next operation
// needs in next (may be nil).
func refreshModel(ctx context.Context, m *clusterResourceModel, obs *clusterops.Observation, next privateState) diag.Diagnostics {
	var diags diag.Diagnostics
	c := &obs.Cluster
	if obs.RulesErr != nil {
		tflog.Warn(ctx, "could not read the cluster's network or rules", map[string]any{"error": obs.RulesErr.Error()})
	}
	desired := m.State
	diags.Append(m.refresh(ctx, c, obs.Network, obs.Nodes())...)
	m.refreshReturned(c)
	m.CloudStackState = stringOrNull(c.State)
	switch {
	case c.State == clusterstate.Running || c.State == clusterstate.Stopped:
	case known(desired):
		m.State = desired
	default:
		m.State = types.StringValue(clusterstate.Running)
	}
	if obs.Inconsistency != nil {
		// What really exists: the workers of the VM map.
		m.Size = types.Int64Value(obs.Inconsistency.Workers)
	}
	switch {
	case obs.RulesRead:
		m.SSHRulesInSync = types.BoolValue(obs.RulesInSync)
	case obs.Network == rules.NetworkDirect || !clusterstate.Settled(c.State):
		// No rules, or rules in flux while an operation runs.
		m.SSHRulesInSync = types.BoolValue(true)
	case m.SSHRulesInSync.IsUnknown():
		// Never read: not known to be in sync. A later refresh reads them.
		m.SSHRulesInSync = types.BoolNull()
	}
	diags.Append(savePrivate(ctx, next, obs)...)
	as, d := refreshedAutoscaling(ctx, m.Autoscaling, c)
	diags.Append(d...)
	m.Autoscaling = as
	if m.RecreateUserHazardRules.IsNull() || m.RecreateUserHazardRules.IsUnknown() {
		m.RecreateUserHazardRules = types.BoolValue(false)
	}
	if m.AllowRestartForRecovery.IsNull() || m.AllowRestartForRecovery.IsUnknown() {
		m.AllowRestartForRecovery = types.BoolValue(false)
	}
	if m.DeletionProtection.IsNull() || m.DeletionProtection.IsUnknown() {
		m.DeletionProtection = types.BoolValue(false) // imported or moved: the default
	}
	return diags
}

// addReportWarnings turns what the rule engine changed into one warning.
func addReportWarnings(diags *diag.Diagnostics, rep clusterops.Report) {
	var changed, blocked []string
	for _, s := range rep.Steps {
		switch s.Kind {
		case clusterops.StepScaled, clusterops.StepNote:
		case clusterops.StepBlocked:
			blocked = append(blocked, s.Message)
		default:
			changed = append(changed, s.Message)
		}
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

// sentence ends s with a period, so that more sentences can follow.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
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
