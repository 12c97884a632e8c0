package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ValidateConfig checks the rules that span attributes, so that a bad
// configuration fails at validate/plan time with the attribute at fault and
// before any API call.
func (r *clusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg clusterResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateSizeAndAutoscaling(ctx, cfg, &resp.Diagnostics)
	validateOfferings(cfg, &resp.Diagnostics)
	if at, msg, ignored := etcdTemplateIgnored(cfg.NodeTemplates, cfg.EtcdNodes); ignored {
		resp.Diagnostics.AddAttributeWarning(at, "ETCD Template Ignored", msg)
	}
}

// validateSizeAndAutoscaling is hand-written: each rule depends on the value
// of autoscaling.enabled, which no framework validator reads.
func validateSizeAndAutoscaling(ctx context.Context, cfg clusterResourceModel, diags *diag.Diagnostics) {
	if cfg.Autoscaling.IsUnknown() {
		return
	}
	as, _, d := autoscalingOf(ctx, cfg.Autoscaling)
	if d.HasError() || as.Enabled.IsUnknown() {
		return
	}
	asPath := path.Root("autoscaling")
	if !as.enabled() {
		if cfg.Size.IsNull() {
			diags.AddAttributeError(path.Root("size"), "Missing Cluster Size",
				"size (the number of worker nodes, at least 1) is required unless autoscaling is enabled.")
		}
		return
	}
	if !cfg.Size.IsNull() {
		diags.AddAttributeError(path.Root("size"), "Size Conflicts With Autoscaling",
			"size must not be set while autoscaling is enabled: the autoscaler owns the worker count "+
				"(CloudStack refuses size together with autoscalingenabled). Remove size, or disable autoscaling.")
	}
	if as.MinSize.IsNull() {
		diags.AddAttributeError(asPath.AtName("min_size"), "Missing Autoscaling Minimum",
			"autoscaling.min_size (at least 1) is required when autoscaling is enabled.")
	}
	if as.MaxSize.IsNull() {
		diags.AddAttributeError(asPath.AtName("max_size"), "Missing Autoscaling Maximum",
			"autoscaling.max_size (greater than min_size) is required when autoscaling is enabled.")
	}
	if known(as.MinSize) && known(as.MaxSize) && as.MaxSize.ValueInt64() <= as.MinSize.ValueInt64() {
		diags.AddAttributeError(asPath.AtName("max_size"), "Invalid Autoscaling Range",
			fmt.Sprintf("autoscaling.max_size must be greater than min_size, got max_size %d and min_size %d.",
				as.MaxSize.ValueInt64(), as.MinSize.ValueInt64()))
	}
}

// validateOfferings requires an offering for every node type: CloudStack
// takes service_offering_id for each type without an offering of its own.
// Hand-written: whether etcd needs one depends on the value of etcd_nodes.
func validateOfferings(cfg clusterResourceModel, diags *diag.Diagnostics) {
	if !cfg.ServiceOfferingID.IsNull() {
		return
	}
	var missing []string
	for _, o := range []struct {
		name  string
		value types.String
	}{{"control_offering_id", cfg.ControlOfferingID}, {"worker_offering_id", cfg.WorkerOfferingID}} {
		if o.value.IsNull() {
			missing = append(missing, o.name)
		}
	}
	etcdNeeded := cfg.EtcdNodes.IsUnknown() || (!cfg.EtcdNodes.IsNull() && cfg.EtcdNodes.ValueInt64() > 0)
	if etcdNeeded && cfg.EtcdOfferingID.IsNull() {
		missing = append(missing, "etcd_offering_id")
	}
	if len(missing) > 0 {
		diags.AddAttributeError(path.Root("service_offering_id"), "Missing Compute Offering",
			"service_offering_id is required unless every node type has its own offering; missing: "+strings.Join(missing, ", ")+".")
	}
}

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
