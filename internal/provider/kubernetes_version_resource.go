package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
)

var (
	_ resource.ResourceWithConfigure   = (*kubernetesVersionResource)(nil)
	_ resource.ResourceWithImportState = (*kubernetesVersionResource)(nil)
	_ resource.ResourceWithIdentity    = (*kubernetesVersionResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kubernetesVersionResource)(nil)
	_ resource.ResourceWithMoveState   = (*kubernetesVersionResource)(nil)
)

// defaultVersionChangeTimeout bounds a state change and the delete job.
const defaultVersionChangeTimeout = 10 * time.Minute

// kubernetesVersionResource manages a CKS Kubernetes version.
type kubernetesVersionResource struct {
	data *providerData
}

func newKubernetesVersionResource() resource.Resource {
	return &kubernetesVersionResource{}
}

func (r *kubernetesVersionResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_version"
}

func (r *kubernetesVersionResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

func (r *kubernetesVersionResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema("Kubernetes version")
}

// ImportState imports a version by id or identity. The read that follows
// fills in everything but checksum, which CloudStack returns without its
// algorithm.
func (r *kubernetesVersionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByIDOrIdentity(ctx, req, resp)
}

func (r *kubernetesVersionResource) engine() *catalogops.Engine { return r.data.catalog }
