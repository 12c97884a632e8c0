// Package provider maps Terraform schemas onto the CKS domain packages. It holds
// no CloudStack logic of its own: naming, rule planning and drift comparison
// live in their own packages.
package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/cloudstack-cks/cks"

var (
	_ provider.Provider                       = (*cksProvider)(nil)
	_ provider.ProviderWithValidateConfig     = (*cksProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*cksProvider)(nil)
	_ provider.ProviderWithListResources      = (*cksProvider)(nil)
)

type cksProvider struct {
	version string
	configSources
}

func newProvider(version string) *cksProvider {
	return &cksProvider{version: version, configSources: osConfigSources()}
}

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return newProvider(version)
	}
}

func (p *cksProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "cks"
	resp.Version = p.version
}

func (p *cksProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerSchema()
}

// ValidateConfig checks what can be checked before any value is resolved, so
// that `terraform validate` already reports a malformed URL.
func (p *cksProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Hand-written: the validators module has no URL validator.
	if known(model.APIURL) {
		if err := validateAPIURL(model.APIURL.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("api_url"), "Invalid CloudStack API URL", err.Error())
		}
	}
	// insecure = true is reported once, by Configure (insecureWarning):
	// Terraform validates the configuration several times per run.
}

func (p *cksProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if model.hasUnknown() {
		// Values that are only known after apply (for example a URL read from
		// another resource) postpone configuration; reads then wait for apply.
		tflog.Debug(ctx, "provider configuration has unknown values, deferring client setup")
		return
	}
	settings, diags := p.resolve(model)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if settings.insecure {
		// Configure runs once per provider per run, so the warning shows once
		// however many resources and data sources the configuration has.
		resp.Diagnostics.Append(insecureWarning(settings))
	}
	data, err := newProviderData(settings)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Create CloudStack Client", err.Error())
		return
	}
	tflog.Info(ctx, "configured CloudStack client", map[string]any{
		"api_url":             settings.apiURL,
		"credentials_source":  settings.source,
		"insecure":            settings.insecure,
		"http_get_only":       settings.httpGetOnly,
		"etcd_ssh_start_port": settings.etcdSSHStartPort,
	})
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.EphemeralResourceData = data
	resp.ListResourceData = data
}

func (p *cksProvider) Resources(_ context.Context) []func() resource.Resource {
	return resourceConstructors
}

func (p *cksProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return dataSourceConstructors
}

func (p *cksProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return ephemeralConstructors
}

// ListResources answers terraform query (Terraform 1.14+).
func (p *cksProvider) ListResources(_ context.Context) []func() list.ListResource {
	return listConstructors
}

// insecureWarning is the one warning of a run whose provider skips TLS
// verification, against the insecure attribute.
func insecureWarning(s settings) diag.Diagnostic {
	detail := fmt.Sprintf("insecure = true: the provider does not verify the TLS certificate of the CloudStack API at %s, so "+
		"anything on the way can pose as the management server and read or change every request, including the signed "+
		"commands that create and delete clusters. Use ca_file to trust a private certificate authority instead.", s.apiURL)
	if s.caFile != "" {
		detail += " ca_file has no effect while insecure is true."
	}
	return diag.NewAttributeWarningDiagnostic(path.Root("insecure"), "TLS Verification Disabled", detail)
}
