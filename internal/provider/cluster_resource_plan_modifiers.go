package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Plan modifiers of cks_cluster attributes.

const replaceUnlessImportedDescription = "Changing the value replaces the cluster, unless the prior value is null " +
	"(the API does not report it, so an imported cluster has none): then the value is only recorded."

// replaceUnlessImported replaces the cluster when a create-only input that
// the API does not return changes, but not when it was unknown before (after
// an import).
func replaceUnlessImported(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

// sizeFollowsAutoscaler keeps the refreshed size while the autoscaler is
// on, so that its changes never cause a diff. When the autoscaling settings
// change, the size is left unknown: CloudStack may adjust it.
type sizeFollowsAutoscaler struct{}

func (sizeFollowsAutoscaler) Description(context.Context) string {
	return "While autoscaling is enabled the size is the one CloudStack reports."
}

func (m sizeFollowsAutoscaler) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (sizeFollowsAutoscaler) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !req.ConfigValue.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	var planned, prior types.Object
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("autoscaling"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("autoscaling"), &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	as, known, diags := autoscalingOf(ctx, planned)
	resp.Diagnostics.Append(diags...)
	if !known || !as.enabled() {
		return
	}
	if planned.Equal(prior) {
		resp.PlanValue = req.StateValue
	}
}

// replaceStringUnlessImported and replaceMapUnlessImported are
// replaceUnlessImported for strings and maps.
func replaceStringUnlessImported(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceBoolUnlessImported(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

func replaceMapUnlessImported(_ context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull()
}

// versionFollowsID keeps kubernetes_version while kubernetes_version_id
// stays, and leaves it unknown when an upgrade changes the version.
type versionFollowsID struct{}

func (versionFollowsID) Description(context.Context) string {
	return "Known from the state unless kubernetes_version_id changes."
}

func (m versionFollowsID) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (versionFollowsID) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	var planned, prior types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("kubernetes_version_id"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("kubernetes_version_id"), &prior)...)
	if !resp.Diagnostics.HasError() && planned.Equal(prior) {
		resp.PlanValue = req.StateValue
	}
}
