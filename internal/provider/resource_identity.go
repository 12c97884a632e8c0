package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The resource identity of every resource of the provider (Terraform 1.12+):
// the CloudStack id, which is unique and never changes. import blocks can
// name a resource by identity, and terraform query reports it.

// idIdentitySchema is the identity schema: the id alone.
func idIdentitySchema(what string) identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"id": identityschema.StringAttribute{
			RequiredForImport: true,
			Description:       "Id of the " + what + " in CloudStack.",
		},
	}}
}

// setIdentity records the id as the resource's identity. Read calls it
// before anything else, so that a resource it removes still has one (the
// framework refuses a read that leaves the identity null).
func setIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, id types.String) diag.Diagnostics {
	if identity == nil || id.IsNull() || id.IsUnknown() {
		return nil
	}
	return identity.SetAttribute(ctx, path.Root("id"), id)
}

// importByIDOrIdentity imports by the id given to terraform import or an
// import block's id, or by the identity of an import block.
func importByIDOrIdentity(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("id"), req, resp)
}

// identityFromState records the id of the state an operation leaves as the
// identity; Create and Update defer it, so that every path that records a
// state records the identity too.
func identityFromState(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	if state.Raw.IsNull() || !state.Raw.IsKnown() {
		return nil
	}
	var id types.String
	if diags := state.GetAttribute(ctx, path.Root("id"), &id); diags.HasError() {
		return diags
	}
	return setIdentity(ctx, identity, id)
}
