package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
)

var (
	_ resource.ResourceWithConfigure   = (*cniConfigurationResource)(nil)
	_ resource.ResourceWithImportState = (*cniConfigurationResource)(nil)
	_ resource.ResourceWithIdentity    = (*cniConfigurationResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*cniConfigurationResource)(nil)
	_ resource.ResourceWithMoveState   = (*cniConfigurationResource)(nil)
)

// cniConfigurationResource manages a CNI configuration (CloudStack 4.21+).
type cniConfigurationResource struct {
	data *providerData
}

func newCNIConfigurationResource() resource.Resource {
	return &cniConfigurationResource{}
}

func (r *cniConfigurationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cni_configuration"
}

func (r *cniConfigurationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

func (r *cniConfigurationResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema("CNI configuration")
}

// ImportState imports a CNI configuration by id or identity, in any
// account or project the caller can see; the read fills in every attribute.
func (r *cniConfigurationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByIDOrIdentity(ctx, req, resp)
}

func (r *cniConfigurationResource) engine() *catalogops.Engine { return r.data.catalog }
