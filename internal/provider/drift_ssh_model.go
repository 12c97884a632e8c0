package provider

import (
	"context"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// driftSSHModel is the ssh attribute of cks_clusters_drift.
type driftSSHModel struct {
	PrivateKey            types.String  `tfsdk:"private_key"`
	PrivateKeyFile        types.String  `tfsdk:"private_key_file"`
	User                  types.String  `tfsdk:"user"`
	Port                  types.Int64   `tfsdk:"port"`
	HostKey               types.String  `tfsdk:"host_key"`
	KnownHosts            types.String  `tfsdk:"known_hosts"`
	InsecureIgnoreHostKey types.Bool    `tfsdk:"insecure_ignore_host_key"`
	Timeout               durationValue `tfsdk:"timeout"`
}

// driftSSHWithHostModel is the ssh attribute of cks_cluster_drift, which
// adds the host override.
type driftSSHWithHostModel struct {
	driftSSHModel
	Host types.String `tfsdk:"host"`
}

// decodeDriftSSH decodes the ssh attribute of either data source; ok is
// false when it is null or unknown. Host stays null for the fleet.
func decodeDriftSSH(ctx context.Context, obj types.Object) (m driftSSHWithHostModel, ok bool, diags diag.Diagnostics) {
	if obj.IsNull() || obj.IsUnknown() {
		return m, false, nil
	}
	opts := basetypes.ObjectAsOptions{}
	if _, withHost := obj.AttributeTypes(ctx)["host"]; withHost {
		return m, true, obj.As(ctx, &m, opts)
	}
	return m, true, obj.As(ctx, &m.driftSSHModel, opts)
}

// options are the SSH options of the check; the timeout is resolved apart.
func (m driftSSHWithHostModel) options() sshlister.Config {
	o := sshlister.Config{
		PrivateKey:            []byte(m.PrivateKey.ValueString()),
		PrivateKeyFile:        driftKeyFilePath(m.PrivateKeyFile.ValueString()),
		User:                  m.User.ValueString(),
		Host:                  m.Host.ValueString(),
		Port:                  int(m.Port.ValueInt64()),
		HostKey:               strings.TrimSpace(m.HostKey.ValueString()),
		KnownHosts:            m.KnownHosts.ValueString(),
		InsecureIgnoreHostKey: m.InsecureIgnoreHostKey.ValueBool(),
	}
	if len(o.PrivateKey) == 0 && o.PrivateKeyFile == "" {
		// Neither key nor key file: the SSH agent signs, as in Terraform's
		// connection blocks. Validation explains a missing one.
		o.AgentSocket = sshAgentSocket()
	}
	return o
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
