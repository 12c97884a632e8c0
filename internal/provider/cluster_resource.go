package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

var (
	_ resource.ResourceWithConfigure      = (*clusterResource)(nil)
	_ resource.ResourceWithImportState    = (*clusterResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*clusterResource)(nil)
	_ resource.ResourceWithValidateConfig = (*clusterResource)(nil)
	_ resource.ResourceWithIdentity       = (*clusterResource)(nil)
)

// defaultClusterTimeout matches the server's own limits
// (cloud.kubernetes.cluster.start/scale/upgrade.timeout, 3600 s).
const defaultClusterTimeout = 60 * time.Minute

// clusterResource manages a CKS cluster.
type clusterResource struct {
	data *providerData
}

func newClusterResource() resource.Resource {
	return &clusterResource{}
}

func (r *clusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (r *clusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

// ImportState imports a cluster by id, or by identity. Read fills in everything the API
// returns, and on this first read the node templates the VM map shows; the
// inputs the API does not report (node_root_disk_size, hypervisor, ...) stay
// null.
func (r *clusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByIDOrIdentity(ctx, req, resp)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, []byte(`true`))...)
}

// IdentitySchema is the cluster's identity: its id (resource_identity.go).
func (r *clusterResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = idIdentitySchema("Kubernetes cluster")
}

// engine returns the operations engine over the provider's client.
func (r *clusterResource) engine() *clusterops.Engine { return r.data.engine() }
