package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// driftOptionsModel is the part of the configuration both data sources
// share; their models embed it.
type driftOptionsModel struct {
	NodeSource        types.String  `tfsdk:"node_source"`
	SSH               types.Object  `tfsdk:"ssh"`
	GracePeriod       durationValue `tfsdk:"grace_period"`
	CheckNetworkRules types.Bool    `tfsdk:"check_network_rules"`
	SSHCIDRs          types.List    `tfsdk:"ssh_cidrs"`
	APICIDRs          types.List    `tfsdk:"api_cidrs"`
	FailOnDrift       types.Bool    `tfsdk:"fail_on_drift"`
	AllowIncomplete   types.Bool    `tfsdk:"allow_incomplete"`
	Ignore            types.List    `tfsdk:"ignore"`
	IgnoreStatus      types.List    `tfsdk:"ignore_status"`
}

// setEffective writes the options the check used back, defaults included.
func (m *driftOptionsModel) setEffective(s driftSettings) {
	m.NodeSource = types.StringValue(s.nodeSource)
	m.GracePeriod = s.gracePeriod
	m.CheckNetworkRules = types.BoolValue(s.checkRules)
	m.FailOnDrift = types.BoolValue(s.gate.failOnDrift)
	m.AllowIncomplete = types.BoolValue(s.gate.allowIncomplete)
}

// driftResultModel is the outcome of one cluster's check, the outputs of
// driftResultAttributes.
type driftResultModel struct {
	InSync            types.Bool   `tfsdk:"in_sync"`
	ClusterState      types.String `tfsdk:"cluster_state"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	Skipped           types.Bool   `tfsdk:"skipped"`
	SkipReason        types.String `tfsdk:"skip_reason"`
	NodesChecked      types.Bool   `tfsdk:"nodes_checked"`
	NodeCheckError    types.String `tfsdk:"node_check_error"`
	// IncompleteViews maps each view that could not be compared to why.
	IncompleteViews types.Map    `tfsdk:"incomplete_views"`
	Findings        types.List   `tfsdk:"findings"`
	Counts          types.Map    `tfsdk:"counts"`
	Summary         types.String `tfsdk:"summary"`
	IgnoredFindings types.List   `tfsdk:"ignored_findings"`
	IgnoredCounts   types.Map    `tfsdk:"ignored_counts"`
}

// setResult copies a check's outcome into the model.
func (m *driftResultModel) setResult(res drift.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	m.InSync = types.BoolValue(res.InSync)
	m.ClusterState = types.StringValue(res.ClusterState)
	m.KubernetesVersion = stringOrNull(res.KubernetesVersion)
	m.Skipped = types.BoolValue(res.Skipped)
	m.SkipReason = stringOrNull(res.SkipReason)
	m.NodesChecked = types.BoolValue(res.NodesChecked)
	m.NodeCheckError = stringOrNull(res.NodeCheckError)
	m.Summary = types.StringValue(res.Summary)
	var d diag.Diagnostics
	m.IncompleteViews, d = driftIncompleteValue(res.Incomplete)
	diags.Append(d...)
	m.Findings, d = driftFindingsValue(res.Findings)
	diags.Append(d...)
	m.Counts, d = driftCountsValue(res.Counts)
	diags.Append(d...)
	m.IgnoredFindings, d = driftIgnoredValue(res.Ignored)
	diags.Append(d...)
	m.IgnoredCounts, d = driftCountsValue(res.IgnoredCounts)
	diags.Append(d...)
	return diags
}

// setIgnoreStatus reports what each ignore rule did.
func (m *driftOptionsModel) setIgnoreStatus(s driftSettings, uses []drift.RuleUse) diag.Diagnostics {
	var diags diag.Diagnostics
	m.IgnoreStatus, diags = driftIgnoreStatusValue(s.opts.Ignore, uses)
	return diags
}

// driftSettings are the options resolved from the configuration, with the
// effective values to write back to the state.
type driftSettings struct {
	opts        driftcheck.Options
	nodeSource  string
	gracePeriod durationValue
	checkRules  bool
	gate        driftGate
}

// driftGate is what fails the run: findings with fail_on_drift, and, unless
// allow_incomplete, checks that could not compare every view asked for and
// skipped clusters.
type driftGate struct {
	failOnDrift     bool
	allowIncomplete bool
}

// failsIncomplete tells whether an incomplete or skipped check is an error.
func (g driftGate) failsIncomplete() bool { return g.failOnDrift && !g.allowIncomplete }

// resolveDriftSettings turns a known configuration into check options. Plan
// time validation has already explained every bad value with its path;
// these errors repeat it for configurations that bypassed it.
func resolveDriftSettings(ctx context.Context, m driftOptionsModel) (driftSettings, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := driftSettings{gracePeriod: newDuration(defaultDriftGracePeriod), checkRules: true}
	sshModel, hasSSH, d := decodeDriftSSH(ctx, m.SSH)
	diags.Append(d...)

	s.nodeSource = string(driftcheck.NodeSourceNone)
	if hasSSH {
		s.nodeSource = string(driftcheck.NodeSourceSSH)
	}
	if v := m.NodeSource.ValueString(); v != "" {
		s.nodeSource = v
	}
	if known(m.GracePeriod) {
		s.gracePeriod = m.GracePeriod
	}
	grace, d := checkedDuration(ctx, s.gracePeriod, path.Root("grace_period"), durationNotNegative())
	diags.Append(d...)
	if !m.CheckNetworkRules.IsNull() {
		s.checkRules = m.CheckNetworkRules.ValueBool()
	}
	s.gate = driftGate{failOnDrift: m.FailOnDrift.ValueBool(), allowIncomplete: m.AllowIncomplete.ValueBool()}

	s.opts = driftcheck.Options{NodeSource: driftcheck.NodeSource(s.nodeSource), GracePeriod: grace, CheckNetworkRules: s.checkRules}
	s.opts.Ignore, d = compileDriftIgnore(ctx, m.Ignore, false)
	diags.Append(d...)
	s.opts.SSHCIDRs, d = stringList(ctx, m.SSHCIDRs)
	diags.Append(d...)
	s.opts.APICIDRs, d = stringList(ctx, m.APICIDRs)
	diags.Append(d...)
	if hasSSH {
		s.opts.SSH = sshModel.options()
		if known(sshModel.Timeout) {
			s.opts.NodeTimeout, d = checkedDuration(ctx, sshModel.Timeout, path.Root("ssh").AtName("timeout"), durationLongerThanZero())
			diags.Append(d...)
		}
	}
	return s, diags
}

// driftIncompleteValue maps each view that could not be compared to why;
// an empty map, never null, so that length() works on it.
func driftIncompleteValue(views []drift.IncompleteView) (types.Map, diag.Diagnostics) {
	values := make(map[string]attr.Value, len(views))
	for _, v := range views {
		values[v.View] = types.StringValue(v.Reason)
	}
	return types.MapValue(types.StringType, values)
}

// driftCountsValue has every finding kind, zero included, so that
// counts["size_mismatch"] always exists.
func driftCountsValue(counts map[string]int) (types.Map, diag.Diagnostics) {
	values := map[string]attr.Value{}
	for _, k := range drift.Kinds() {
		values[k] = types.Int64Value(int64(counts[k]))
	}
	return types.MapValue(types.Int64Type, values)
}
