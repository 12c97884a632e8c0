package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// sibling matches another attribute of the same ssh object.
func sibling(name string) path.Expression { return path.MatchRelative().AtParent().AtName(name) }

// driftSSHAttribute is the ssh attribute of both drift data sources;
// withHost adds the host override, which makes sense for one cluster only.
func driftSSHAttribute(withHost bool) schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{
		"private_key_file": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Path of the PEM private key file of the cluster's key pair (CKS authorises it for user `cloud` " +
				"on every node), read when the check runs; a leading `~/` is the home directory. Only the path ends up in plans " +
				"and state, never the key: prefer it (or the SSH agent) to `private_key`. Checked at plan time when the path is " +
				"known. Conflicts with `private_key`.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"private_key": schema.StringAttribute{
			Optional:  true,
			Sensitive: true,
			MarkdownDescription: "PEM private key of the cluster's key pair. It is sensitive, but Terraform records data source " +
				"arguments in saved plans and in state, so the key ends up in both in clear: use `private_key_file` or the SSH " +
				"agent instead where plans or state are shared (CI artifacts, policy checks). Conflicts with `private_key_file`.",
			Validators: []validator.String{stringvalidator.ConflictsWith(sibling("private_key_file"))},
		},
		"user": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Login user. Defaults to `cloud`, the user CKS creates.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"port": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Port override. Defaults to the port CloudStack uses: `2222` through the public IP, `22` on a " +
				"shared network.",
			Validators: []validator.Int64{int64validator.Between(1, 65535)},
		},
		"host_key": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Expected host key of control node 1 as an `authorized_keys` line, e.g. `ssh-ed25519 AAAA...`. " +
				"Conflicts with `known_hosts`.",
			Validators: []validator.String{stringvalidator.ConflictsWith(sibling("known_hosts"))},
		},
		"known_hosts": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "`known_hosts` content to verify control node 1 against; hashed and `[host]:port` entries " +
				"are honoured. Every line that is not blank or a comment must be a valid entry: checked at plan time. " +
				"Conflicts with `host_key`.",
		},
		"insecure_ignore_host_key": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Accept any host key. Explicit opt-in, reported as a warning: without host key verification a " +
				"machine in the middle could answer for control node 1.",
		},
		"timeout": schema.StringAttribute{
			CustomType: durationType{},
			Optional:   true,
			MarkdownDescription: "Bound on each of connecting, the SSH handshake and the kubectl command, as a Go duration such " +
				"as `30s`, longer than zero. Defaults to 10 s, 10 s and 60 s, as CloudStack's own SSH helper.",
			Validators: []validator.String{durationLongerThanZero()},
		},
	}
	if withHost {
		attrs["host"] = schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Address override, for a client that reaches control node 1 another way (a bastion's forward, a VPN address).",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "How to reach control node 1 over SSH, as an object: `ssh = { ... }`. Setting it makes `ssh` the " +
			"default `node_source`. The key of the cluster's key pair comes from exactly one of `private_key_file`, " +
			"`private_key`, or, when neither is set, the SSH agent at `SSH_AUTH_SOCK` (as Terraform's own `connection` blocks " +
			"do), which must hold that key. One of `host_key`, `known_hosts` or `insecure_ignore_host_key = true` is required. " +
			"Terraform drops keys the object does not have without an error: check their names against this list.",
		Attributes: attrs,
	}
}
