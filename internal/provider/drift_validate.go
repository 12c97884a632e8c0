package provider

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
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

func validateDriftSSH(m driftSSHWithHostModel, diags *diag.Diagnostics) {
	at := func(name string) path.Path { return path.Root("ssh").AtName(name) }
	validateDriftSSHCredentials(m, diags)
	if known(m.KnownHosts) {
		if err := sshlister.ValidateKnownHosts(m.KnownHosts.ValueString()); err != nil {
			diags.AddAttributeError(at("known_hosts"), "Invalid SSH known_hosts",
				"ssh.known_hosts must hold known_hosts entries such as \"[10.0.0.1]:2222 ssh-ed25519 AAAA...\" "+
					"(ssh-keyscan -p 2222 10.0.0.1 prints them), one per line: "+err.Error())
		}
	}
	if known(m.HostKey) {
		if _, _, _, _, err := ssh.ParseAuthorizedKey([]byte(m.HostKey.ValueString())); err != nil {
			diags.AddAttributeError(at("host_key"), "Invalid SSH Host Key",
				"ssh.host_key must be one public key as an authorized_keys line, for example \"ssh-ed25519 AAAA...\" "+
					"(ssh-keyscan prints it): "+err.Error())
		}
	}
	// Hand-written: the framework's ConflictsWith and AtLeastOneOf count
	// insecure_ignore_host_key = false as set, but only true opts out.
	verifies := known(m.HostKey) || known(m.KnownHosts)
	undecided := m.HostKey.IsUnknown() || m.KnownHosts.IsUnknown() || m.InsecureIgnoreHostKey.IsUnknown()
	insecure := m.InsecureIgnoreHostKey.ValueBool()
	switch {
	case insecure && verifies:
		diags.AddAttributeError(at("insecure_ignore_host_key"), "Conflicting Host Key Settings",
			"ssh.insecure_ignore_host_key = true skips the host key verification that ssh.host_key or ssh.known_hosts "+
				"asks for; set only one.")
	case insecure:
		diags.AddAttributeWarning(at("insecure_ignore_host_key"), "SSH Host Key Not Verified",
			"The drift check will accept any host key from control node 1, so a machine in the middle could answer "+
				"for it (ssh.insecure_ignore_host_key = true). Pin the key with ssh.host_key or ssh.known_hosts instead.")
	case !verifies && !undecided:
		diags.AddAttributeError(path.Root("ssh"), "Missing SSH Host Key Verification",
			"ssh needs a host key verification: set ssh.host_key (an authorized_keys line) or ssh.known_hosts to "+
				"verify control node 1, or set ssh.insecure_ignore_host_key = true to skip the verification explicitly.")
	}
}

// validateDriftSSHCredentials checks the key of the cluster's key pair:
// exactly one of private_key_file, private_key and the SSH agent (when
// neither is set), the file readable and a PEM private key. The schema's
// ConflictsWith already reports both attributes set.
func validateDriftSSHCredentials(m driftSSHWithHostModel, diags *diag.Diagnostics) {
	at := func(name string) path.Path { return path.Root("ssh").AtName(name) }
	switch {
	case m.PrivateKey.IsUnknown() || m.PrivateKeyFile.IsUnknown():
		// Known at apply time; the read checks it then.
	case m.PrivateKey.IsNull() && m.PrivateKeyFile.IsNull():
		if sshAgentSocket() == "" {
			diags.AddAttributeError(at("private_key_file"), "Missing SSH Private Key",
				"ssh needs the private key of the cluster's key pair, which CKS authorises for user cloud on "+
					"every node: set ssh.private_key_file (its path: only the path is kept in plans and state), or run an "+
					"SSH agent that holds it (SSH_AUTH_SOCK is not set), or set ssh.private_key (which Terraform keeps in "+
					"plans and state).")
		}
	case !m.PrivateKey.IsNull() && !m.PrivateKeyFile.IsNull():
		// Reported by the schema's ConflictsWith validator.
	case known(m.PrivateKey):
		if err := driftPrivateKeyProblem(m.PrivateKey.ValueString()); err != nil {
			diags.AddAttributeError(at("private_key"), "Invalid SSH Private Key", "ssh.private_key: "+err.Error())
		}
	case known(m.PrivateKeyFile):
		file := driftKeyFilePath(m.PrivateKeyFile.ValueString())
		if _, err := sshlister.ReadPrivateKeyFile(file); err != nil {
			diags.AddAttributeError(at("private_key_file"), "Invalid SSH Private Key File",
				"ssh.private_key_file must name a readable, unencrypted PEM private key file: "+
					strings.TrimPrefix(err.Error(), "sshlister: "))
		}
	}
}

// driftPrivateKeyProblem explains an unusable private key without quoting it.
func driftPrivateKeyProblem(pemKey string) error {
	_, err := ssh.ParsePrivateKey([]byte(pemKey))
	var passErr *ssh.PassphraseMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &passErr):
		return errors.New("the private key is protected by a passphrase, which is not supported; supply an unencrypted key")
	default:
		// x/crypto describes the format problem, never the key material.
		return errors.New("the value is not a PEM private key (" + err.Error() + ")")
	}
}
