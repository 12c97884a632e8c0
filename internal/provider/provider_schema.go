package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// defaultEtcdSSHStartPort mirrors the server setting cloud.kubernetes.etcd.node.start.port.
const defaultEtcdSSHStartPort = 50000

// defaultRequestTimeoutSeconds bounds one HTTP request, not a whole operation:
// waits for CKS jobs are bounded by each resource's timeouts instead.
const defaultRequestTimeoutSeconds = 60

type providerModel struct {
	APIURL           types.String `tfsdk:"api_url"`
	APIKey           types.String `tfsdk:"api_key"`
	SecretKey        types.String `tfsdk:"secret_key"`
	Config           types.String `tfsdk:"config"`
	Profile          types.String `tfsdk:"profile"`
	Insecure         types.Bool   `tfsdk:"insecure"`
	CAFile           types.String `tfsdk:"ca_file"`
	HTTPGetOnly      types.Bool   `tfsdk:"http_get_only"`
	RequestTimeout   types.Int64  `tfsdk:"request_timeout"`
	EtcdSSHStartPort types.Int64  `tfsdk:"etcd_ssh_start_port"`
}

func (m providerModel) hasUnknown() bool {
	for _, v := range []interface{ IsUnknown() bool }{
		m.APIURL, m.APIKey, m.SecretKey, m.Config, m.Profile, m.Insecure,
		m.CAFile, m.HTTPGetOnly, m.RequestTimeout, m.EtcdSSHStartPort,
	} {
		if v.IsUnknown() {
			return true
		}
	}
	return false
}

func providerSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The CKS provider manages Apache CloudStack Kubernetes Service clusters and checks them for drift. " +
			"Credentials are taken, in order of precedence, from the attributes below, then from the `CLOUDSTACK_*` environment " +
			"variables, then from a CloudMonkey (`cmk`) configuration file profile.",
		Attributes: map[string]schema.Attribute{
			"api_url": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "URL of the CloudStack API endpoint, for example `https://cloud.example.com/client/api`. " +
					"Falls back to `CLOUDSTACK_API_URL`, then to `url` in the cmk profile.",
			},
			"api_key": schema.StringAttribute{
				Optional:            true,
				Validators:          []validator.String{notEmptyWhenSet()},
				MarkdownDescription: "API key of the CloudStack user. Falls back to `CLOUDSTACK_API_KEY`, then to `apikey` in the cmk profile.",
			},
			"secret_key": schema.StringAttribute{
				Optional:   true,
				Validators: []validator.String{notEmptyWhenSet()},
				Sensitive:  true,
				MarkdownDescription: "Secret key of the CloudStack user, used to sign requests; it is never logged. " +
					"Falls back to `CLOUDSTACK_SECRET_KEY`, then to `secretkey` in the cmk profile.",
			},
			"config": schema.StringAttribute{
				Optional:   true,
				Validators: []validator.String{notEmptyWhenSet()},
				MarkdownDescription: "Path of a CloudMonkey configuration file. Falls back to `CLOUDSTACK_CONFIG`, then to `~/.cmk/config` " +
					"when that file exists. It is read only for values not given by attributes or environment variables.",
			},
			"profile": schema.StringAttribute{
				Optional:   true,
				Validators: []validator.String{notEmptyWhenSet()},
				MarkdownDescription: "Profile (section) of the CloudMonkey configuration file to use. Falls back to `CLOUDSTACK_PROFILE`, " +
					"then to the `profile` key of the file's `[core]` section.",
			},
			"insecure": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Skip TLS certificate verification of the API endpoint. Defaults to `false`; prefer `ca_file` " +
					"for a private certificate authority. `true` is reported as a warning, once per run, naming this attribute.",
			},
			"ca_file": schema.StringAttribute{
				Optional:            true,
				Validators:          []validator.String{notEmptyWhenSet()},
				MarkdownDescription: "Path of a PEM file with certificate authorities to trust for the API endpoint, in addition to the system pool.",
			},
			"http_get_only": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Send every API command as an HTTP GET, for endpoints behind proxies that reject POST. " +
					"Defaults to `false` (state-changing commands use POST).",
			},
			"request_timeout": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Timeout of a single HTTP request to the API, in seconds. Defaults to `60`. Waiting for " +
					"asynchronous jobs is bounded by each resource's `timeouts` instead.",
				Validators: []validator.Int64{int64validator.Between(1, 3600)},
			},
			"etcd_ssh_start_port": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "First public SSH port of separate etcd nodes. It must match the management server setting " +
					"`cloud.kubernetes.etcd.node.start.port`. Defaults to `50000`.",
				Validators: []validator.Int64{int64validator.Between(1024, 65535)},
			},
		},
	}
}

// notEmptyWhenSet refuses a value of only white space: an attribute set to
// "" would hide the environment variable or cmk profile it falls back to.
func notEmptyWhenSet() validator.String {
	return stringvalidator.RegexMatches(regexp.MustCompile(`\S`),
		"must not be empty when set; remove it to use the environment or the cmk configuration file instead")
}
