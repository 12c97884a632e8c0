package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// validateDriftOptions checks at plan time, without any API call, what the
// check would refuse later, each against the attribute at fault. Unknown
// values are left for the apply-time read.
func validateDriftOptions(m driftOptionsModel, diags *diag.Diagnostics) {
	if known(m.GracePeriod) {
		if _, err := parseDriftDuration(m.GracePeriod.ValueString(), true); err != nil {
			diags.AddAttributeError(path.Root("grace_period"), "Invalid Grace Period", err.Error())
		}
	}
	sshModel, hasSSH := driftSSHBlockModel(m.SSH)
	source := m.NodeSource.ValueString()
	sourceKnown := !m.NodeSource.IsUnknown()

	if sourceKnown && source == string(driftcheck.NodeSourceSSH) && !hasSSH && !m.SSH.IsUnknown() {
		diags.AddAttributeError(path.Root("node_source"), "Missing SSH Block",
			`node_source = "ssh" runs kubectl on control node 1 over SSH, which needs an ssh block with the `+
				`private key of the cluster's key pair and a host key (or known_hosts). Add the block, or use `+
				`node_source = "kubeconfig" or "none".`)
	}
	if !hasSSH {
		return
	}
	if sourceKnown && (source == string(driftcheck.NodeSourceKubeconfig) || source == string(driftcheck.NodeSourceNone)) {
		diags.AddAttributeWarning(path.Root("ssh"), "SSH Block Ignored",
			"node_source = "+driftQuote(source)+" does not use SSH; the ssh block has no effect.")
	}
	validateDriftSSHBlock(sshModel, diags)
}

func validateDriftSSHBlock(m driftSSHModel, diags *diag.Diagnostics) {
	at := func(name string) path.Path { return path.Root("ssh").AtName(name) }
	switch {
	case m.PrivateKey.IsNull():
		diags.AddAttributeError(at("private_key"), "Missing SSH Private Key",
			"The ssh block needs private_key: the PEM private key of the cluster's key pair, which CKS authorises for "+
				"user cloud on every node.")
	case !m.PrivateKey.IsUnknown():
		if err := driftPrivateKeyProblem(m.PrivateKey.ValueString()); err != nil {
			diags.AddAttributeError(at("private_key"), "Invalid SSH Private Key", err.Error())
		}
	}
	if known(m.HostKey) {
		if _, _, _, _, err := ssh.ParseAuthorizedKey([]byte(m.HostKey.ValueString())); err != nil {
			diags.AddAttributeError(at("host_key"), "Invalid SSH Host Key",
				"host_key must be one public key as an authorized_keys line, for example \"ssh-ed25519 AAAA...\" "+
					"(ssh-keyscan prints it): "+err.Error())
		}
	}
	if known(m.Timeout) {
		if _, err := parseDriftDuration(m.Timeout.ValueString(), false); err != nil {
			diags.AddAttributeError(at("timeout"), "Invalid SSH Timeout", err.Error())
		}
	}

	verifies := known(m.HostKey) || known(m.KnownHosts)
	undecided := m.HostKey.IsUnknown() || m.KnownHosts.IsUnknown() || m.InsecureIgnoreHostKey.IsUnknown()
	insecure := m.InsecureIgnoreHostKey.ValueBool()
	switch {
	case insecure && verifies:
		diags.AddAttributeError(at("insecure_ignore_host_key"), "Conflicting Host Key Settings",
			"insecure_ignore_host_key = true skips the host key verification that host_key or known_hosts asks for; set only one.")
	case insecure:
		diags.AddAttributeWarning(at("insecure_ignore_host_key"), "SSH Host Key Not Verified",
			"The drift check will accept any host key from control node 1, so a machine in the middle could answer "+
				"for it. Pin the key with host_key or known_hosts instead.")
	case !verifies && !undecided:
		diags.AddAttributeError(path.Root("ssh"), "Missing SSH Host Key Verification",
			"Set host_key (an authorized_keys line) or known_hosts to verify control node 1, or set "+
				"insecure_ignore_host_key = true to skip the verification explicitly.")
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
