package provider

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// driftSSHModel is the ssh block. The fleet data source's block has no
// host, which stays null.
type driftSSHModel struct {
	PrivateKey            types.String
	PrivateKeyFile        types.String
	User                  types.String
	Host                  types.String
	Port                  types.Int64
	HostKey               types.String
	KnownHosts            types.String
	InsecureIgnoreHostKey types.Bool
	Timeout               types.String
}

// driftOptionsModel is the part of the configuration both data sources
// share; their models embed it.
type driftOptionsModel struct {
	NodeSource        types.String `tfsdk:"node_source"`
	SSH               types.Object `tfsdk:"ssh"`
	GracePeriod       types.String `tfsdk:"grace_period"`
	CheckNetworkRules types.Bool   `tfsdk:"check_network_rules"`
	SSHCIDRs          types.List   `tfsdk:"ssh_cidrs"`
	FailOnDrift       types.Bool   `tfsdk:"fail_on_drift"`
	AllowIncomplete   types.Bool   `tfsdk:"allow_incomplete"`
}

// setEffective writes the options the check used back, defaults included.
func (m *driftOptionsModel) setEffective(s driftSettings) {
	m.NodeSource = types.StringValue(s.nodeSource)
	m.GracePeriod = types.StringValue(s.gracePeriod)
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
}

// setResult copies a check's outcome into the model.
func (m *driftResultModel) setResult(res drift.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	m.InSync = types.BoolValue(res.InSync)
	m.ClusterState = types.StringValue(res.ClusterState)
	m.KubernetesVersion = driftStringOrNull(res.KubernetesVersion)
	m.Skipped = types.BoolValue(res.Skipped)
	m.SkipReason = driftStringOrNull(res.SkipReason)
	m.NodesChecked = types.BoolValue(res.NodesChecked)
	m.NodeCheckError = driftStringOrNull(res.NodeCheckError)
	m.Summary = types.StringValue(res.Summary)
	var d diag.Diagnostics
	m.IncompleteViews, d = driftIncompleteValue(res.Incomplete)
	diags.Append(d...)
	m.Findings, d = driftFindingsValue(res.Findings)
	diags.Append(d...)
	m.Counts, d = driftCountsValue(res.Counts)
	diags.Append(d...)
	return diags
}

// driftSettings are the options resolved from the configuration, with the
// effective values to write back to the state.
type driftSettings struct {
	opts        driftcheck.Options
	nodeSource  string
	gracePeriod string
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

// driftSSHBlockModel reads the ssh block; ok is false when it is absent. It
// reads attribute by attribute because the fleet's block has no host.
func driftSSHBlockModel(obj types.Object) (driftSSHModel, bool) {
	m := driftSSHModel{PrivateKey: types.StringNull(), PrivateKeyFile: types.StringNull(), User: types.StringNull(), Host: types.StringNull(),
		Port: types.Int64Null(), HostKey: types.StringNull(), KnownHosts: types.StringNull(),
		InsecureIgnoreHostKey: types.BoolNull(), Timeout: types.StringNull()}
	if obj.IsNull() || obj.IsUnknown() {
		return m, false
	}
	attrs := obj.Attributes()
	str := func(name string, dst *types.String) {
		if v, ok := attrs[name].(types.String); ok {
			*dst = v
		}
	}
	str("private_key", &m.PrivateKey)
	str("private_key_file", &m.PrivateKeyFile)
	str("user", &m.User)
	str("host", &m.Host)
	str("host_key", &m.HostKey)
	str("known_hosts", &m.KnownHosts)
	str("timeout", &m.Timeout)
	if v, ok := attrs["port"].(types.Int64); ok {
		m.Port = v
	}
	if v, ok := attrs["insecure_ignore_host_key"].(types.Bool); ok {
		m.InsecureIgnoreHostKey = v
	}
	return m, true
}

// resolveDriftSettings turns a known configuration into check options. Plan
// time validation has already explained every bad value with its path;
// these errors repeat it for configurations that bypassed it.
func resolveDriftSettings(m driftOptionsModel) (driftSettings, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := driftSettings{gracePeriod: defaultDriftGracePeriod, checkRules: true}
	sshModel, hasSSH := driftSSHBlockModel(m.SSH)

	s.nodeSource = string(driftcheck.NodeSourceNone)
	if hasSSH {
		s.nodeSource = string(driftcheck.NodeSourceSSH)
	}
	if v := m.NodeSource.ValueString(); v != "" {
		s.nodeSource = v
	}
	if v := m.GracePeriod.ValueString(); v != "" {
		s.gracePeriod = v
	}
	grace, err := parseDriftDuration(s.gracePeriod, true)
	if err != nil {
		diags.AddAttributeError(path.Root("grace_period"), "Invalid Grace Period", err.Error())
	}
	if !m.CheckNetworkRules.IsNull() {
		s.checkRules = m.CheckNetworkRules.ValueBool()
	}
	s.gate = driftGate{failOnDrift: m.FailOnDrift.ValueBool(), allowIncomplete: m.AllowIncomplete.ValueBool()}

	s.opts = driftcheck.Options{NodeSource: driftcheck.NodeSource(s.nodeSource), GracePeriod: grace, CheckNetworkRules: s.checkRules}
	if !m.SSHCIDRs.IsNull() && !m.SSHCIDRs.IsUnknown() {
		diags.Append(m.SSHCIDRs.ElementsAs(context.Background(), &s.opts.SSHCIDRs, false)...)
	}
	if hasSSH {
		s.opts.SSH = driftcheck.SSHOptions{
			PrivateKey:            []byte(sshModel.PrivateKey.ValueString()),
			PrivateKeyFile:        driftKeyFilePath(sshModel.PrivateKeyFile.ValueString()),
			User:                  sshModel.User.ValueString(),
			Host:                  sshModel.Host.ValueString(),
			Port:                  int(sshModel.Port.ValueInt64()),
			HostKey:               strings.TrimSpace(sshModel.HostKey.ValueString()),
			KnownHosts:            sshModel.KnownHosts.ValueString(),
			InsecureIgnoreHostKey: sshModel.InsecureIgnoreHostKey.ValueBool(),
		}
		if len(s.opts.SSH.PrivateKey) == 0 && s.opts.SSH.PrivateKeyFile == "" {
			// Neither key nor key file: the SSH agent signs, as in
			// Terraform's connection blocks. Validate explains a missing one.
			s.opts.SSH.AgentSocket = sshAgentSocket()
		}
		if v := sshModel.Timeout.ValueString(); v != "" {
			timeout, err := parseDriftDuration(v, false)
			if err != nil {
				diags.AddAttributeError(path.Root("ssh").AtName("timeout"), "Invalid SSH Timeout", err.Error())
			}
			s.opts.NodeTimeout = timeout
		}
	}
	return s, diags
}

// sshAgentSocket is the SSH agent's socket from SSH_AUTH_SOCK, read when
// the check runs and never stored.
func sshAgentSocket() string { return os.Getenv("SSH_AUTH_SOCK") }

// driftKeyFilePath expands a leading ~/ of ssh.private_key_file.
func driftKeyFilePath(p string) string {
	if p == "" {
		return ""
	}
	return expandHome(p, os.UserHomeDir)
}

// parseDriftDuration parses a Go duration; zero is allowed only when
// allowZero (a grace period of none, but never a zero timeout).
func parseDriftDuration(v string, allowZero bool) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	switch {
	case err != nil:
		return 0, driftDurationError{value: v, reason: "it is not a duration such as \"15m\", \"90s\" or \"1h30m\""}
	case d < 0:
		return 0, driftDurationError{value: v, reason: "it is negative"}
	case d == 0 && !allowZero:
		return 0, driftDurationError{value: v, reason: "it must be longer than zero"}
	}
	return d, nil
}

type driftDurationError struct{ value, reason string }

func (e driftDurationError) Error() string {
	return "The value " + driftQuote(e.value) + " is not valid: " + e.reason + "."
}

func driftQuote(s string) string { return "\"" + s + "\"" }

// driftFindingsValue renders findings as a list of objects; empty fields are null.
func driftFindingsValue(fs []drift.Finding) (types.List, diag.Diagnostics) {
	objType := types.ObjectType{AttrTypes: driftFindingAttrTypes}
	values := make([]attr.Value, 0, len(fs))
	var diags diag.Diagnostics
	for _, f := range fs {
		obj, d := types.ObjectValue(driftFindingAttrTypes, map[string]attr.Value{
			"kind":      types.StringValue(f.Kind),
			"vm_id":     driftStringOrNull(f.VMID),
			"vm_name":   driftStringOrNull(f.VMName),
			"vm_state":  driftStringOrNull(f.VMState),
			"node_name": driftStringOrNull(f.NodeName),
			"rule_id":   driftStringOrNull(f.RuleID),
			"message":   types.StringValue(f.Message),
		})
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(objType, values)
	diags.Append(d...)
	return list, diags
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

func driftStringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
