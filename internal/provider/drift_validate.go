package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// validateDriftOptions checks at plan time, without any API call, what the
// check would refuse later, each against the attribute at fault. Unknown
// values are left for the apply-time read. Hand-written: these rules depend
// on other attributes' values (node_source, allow_incomplete) or parse SSH
// formats, which no framework validator does.
func validateDriftOptions(ctx context.Context, m driftOptionsModel, diags *diag.Diagnostics) {
	_, ignoreDiags := compileDriftIgnore(ctx, m.Ignore, true)
	diags.Append(ignoreDiags...)
	sshModel, hasSSH, decodeDiags := decodeDriftSSH(ctx, m.SSH)
	source := m.NodeSource.ValueString()
	sourceKnown := !m.NodeSource.IsUnknown()

	if sourceKnown && source == string(driftcheck.NodeSourceSSH) && !hasSSH && !m.SSH.IsUnknown() {
		diags.AddAttributeError(path.Root("node_source"), "Missing SSH Settings",
			`node_source = "ssh" runs kubectl on control node 1 over SSH, which needs ssh = { ... } with the `+
				`private key of the cluster's key pair and a host key (or known_hosts). Set ssh, or use `+
				`node_source = "kubeconfig" or "none".`)
	}
	if known(m.AllowIncomplete) && m.AllowIncomplete.ValueBool() && known(m.FailOnDrift) && !m.FailOnDrift.ValueBool() {
		diags.AddAttributeWarning(path.Root("allow_incomplete"), "allow_incomplete Has No Effect",
			"allow_incomplete lets fail_on_drift pass a check that could not compare every view; without "+
				"fail_on_drift = true, incomplete checks are warnings anyway.")
	}
	if !hasSSH || decodeDiags.HasError() {
		// A value its type refuses (ssh.timeout) fails the decoding; the
		// framework reports it against its path.
		return
	}
	if sourceKnown && (source == string(driftcheck.NodeSourceKubeconfig) || source == string(driftcheck.NodeSourceNone)) {
		diags.AddAttributeWarning(path.Root("ssh"), "SSH Settings Ignored",
			"node_source = "+driftQuote(source)+" does not use SSH; ssh has no effect.")
	}
	validateDriftSSH(sshModel, diags)
}

// validateDriftSSH reports, against the ssh attribute at fault, what
// sshlister.Config.Validate finds in the settings the check would use.
// Problems that depend on a value not known yet are left for the
// apply-time read, and those the schema's validators already report
// (port range, ConflictsWith) are not repeated.
func validateDriftSSH(m driftSSHWithHostModel, diags *diag.Diagnostics) {
	credentialsUndecided := m.PrivateKey.IsUnknown() || m.PrivateKeyFile.IsUnknown()
	verificationUndecided := m.HostKey.IsUnknown() || m.KnownHosts.IsUnknown() || m.InsecureIgnoreHostKey.IsUnknown()
	for _, p := range m.options().Validate() {
		switch {
		case p.Field == "port" || schemaConflict[[2]string{p.Field, p.With}]:
		case credentialsUndecided && (p.Field == "private_key" || p.Field == "private_key_file"):
		case verificationUndecided && p.Field == "":
		default:
			at := path.Root("ssh")
			if p.Field != "" {
				at = at.AtName(p.Field)
			}
			diags.AddAttributeError(at, p.Summary, p.Detail)
		}
	}
	// Not a problem but a risk the user opted into: only true opts out.
	if m.InsecureIgnoreHostKey.ValueBool() && !known(m.HostKey) && !known(m.KnownHosts) {
		diags.AddAttributeWarning(path.Root("ssh").AtName("insecure_ignore_host_key"), "SSH Host Key Not Verified",
			"The drift check will accept any host key from control node 1, so a machine in the middle could answer "+
				"for it (ssh.insecure_ignore_host_key = true). Pin the key with ssh.host_key or ssh.known_hosts instead.")
	}
}

// schemaConflict are the pairs of ssh attributes whose ConflictsWith
// validators already report them set together.
var schemaConflict = map[[2]string]bool{
	{"private_key", "private_key_file"}: true,
	{"host_key", "known_hosts"}:         true,
}
