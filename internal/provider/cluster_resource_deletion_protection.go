package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// deletion_protection lives only in the state: CloudStack has no such
// setting, so a refresh keeps it and an import starts with the default.

var pathDeletionProtection = path.Root("deletion_protection")

// refuseDeletion, deferred at the top of ModifyPlan, fails a plan that
// would delete a cluster whose state has deletion_protection = true: a
// destroy (no planned state), or an update that CloudStack cannot make in
// place, so that Terraform replaces the cluster.
func (r *clusterResource) refuseDeletion(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return // create
	}
	var protected types.Bool
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, pathDeletionProtection, &protected)...)
	if !protected.ValueBool() {
		return
	}
	id := stateID(ctx, req)
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddAttributeError(pathDeletionProtection, "Cluster Is Protected From Deletion",
			fmt.Sprintf("Cluster %s has deletion_protection = true, so it is not destroyed. Set deletion_protection = false "+
				"and apply, then destroy it.", id))
		return
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	replacing := append(replacingAttributes(ctx, s.Schema, req, &resp.Diagnostics), resp.RequiresReplace...)
	if len(replacing) == 0 {
		return
	}
	names := make([]string, 0, len(replacing))
	for _, p := range replacing {
		names = append(names, p.String())
	}
	sort.Strings(names)
	var planned types.Bool
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, pathDeletionProtection, &planned)...)
	how := "Undo the change, or set deletion_protection = false and apply first."
	if planned.Equal(types.BoolValue(false)) {
		// The configuration already lifts it, but only an apply records
		// that, and this plan's apply would delete first.
		how = fmt.Sprintf("deletion_protection = false in the configuration takes effect once an apply records it, and "+
			"this plan would replace the cluster first. Undo the change of %s for one apply, which records "+
			"deletion_protection = false and changes nothing else, then make the change again.", strings.Join(names, ", "))
	}
	resp.Diagnostics.AddAttributeError(pathDeletionProtection, "Cluster Is Protected From Deletion",
		fmt.Sprintf("The change of %s replaces cluster %s, which deletes it, and it has deletion_protection = true. %s",
			strings.Join(names, ", "), id, how))
}

// refuseProtectedDelete fails a delete of a protected cluster that no plan
// refused, such as one forced with -replace.
func refuseProtectedDelete(state *clusterResourceModel, diags *diag.Diagnostics) bool {
	if !state.DeletionProtection.ValueBool() {
		return false
	}
	diags.AddAttributeError(pathDeletionProtection, "Cluster Is Protected From Deletion",
		fmt.Sprintf("Cluster %s has deletion_protection = true, so it was not deleted. Set deletion_protection = false and "+
			"apply, then delete or replace it.", state.ID.ValueString()))
	return true
}

func stateID(ctx context.Context, req resource.ModifyPlanRequest) string {
	var id types.String
	req.State.GetAttribute(ctx, path.Root("id"), &id)
	return id.ValueString()
}

// replacingAttributes runs the plan modifiers of the schema's top-level
// attributes on the final plan and returns those that ask for a
// replacement. Terraform hands the resource's ModifyPlan only the
// replacements it asks for itself, not the attributes' own; the modifiers
// decide on values the plan already holds, so running them again gives
// the framework's answer.
func replacingAttributes(ctx context.Context, s schema.Schema, req resource.ModifyPlanRequest, diags *diag.Diagnostics) path.Paths {
	var out path.Paths
	for name, a := range s.Attributes {
		p := path.Root(name)
		if replaces(ctx, a, p, req, diags) {
			out = append(out, p)
		}
	}
	return out
}

// replaces reports whether one of a's plan modifiers asks for a
// replacement. modifiedKinds lists the kinds it evaluates.
func replaces(ctx context.Context, a schema.Attribute, p path.Path, req resource.ModifyPlanRequest, diags *diag.Diagnostics) bool {
	switch a := a.(type) {
	case schema.StringAttribute:
		return anyReplaces(ctx, req, p, diags, a.PlanModifiers, func(m planmodifier.String, cfg, plan, state types.String) bool {
			r := &planmodifier.StringResponse{PlanValue: plan}
			m.PlanModifyString(ctx, planmodifier.StringRequest{Path: p, PathExpression: p.Expression(), Config: req.Config,
				ConfigValue: cfg, Plan: req.Plan, PlanValue: plan, State: req.State, StateValue: state, Private: req.Private}, r)
			return r.RequiresReplace
		})
	case schema.Int64Attribute:
		return anyReplaces(ctx, req, p, diags, a.PlanModifiers, func(m planmodifier.Int64, cfg, plan, state types.Int64) bool {
			r := &planmodifier.Int64Response{PlanValue: plan}
			m.PlanModifyInt64(ctx, planmodifier.Int64Request{Path: p, PathExpression: p.Expression(), Config: req.Config,
				ConfigValue: cfg, Plan: req.Plan, PlanValue: plan, State: req.State, StateValue: state, Private: req.Private}, r)
			return r.RequiresReplace
		})
	case schema.BoolAttribute:
		return anyReplaces(ctx, req, p, diags, a.PlanModifiers, func(m planmodifier.Bool, cfg, plan, state types.Bool) bool {
			r := &planmodifier.BoolResponse{PlanValue: plan}
			m.PlanModifyBool(ctx, planmodifier.BoolRequest{Path: p, PathExpression: p.Expression(), Config: req.Config,
				ConfigValue: cfg, Plan: req.Plan, PlanValue: plan, State: req.State, StateValue: state, Private: req.Private}, r)
			return r.RequiresReplace
		})
	case schema.MapAttribute:
		return anyReplaces(ctx, req, p, diags, a.PlanModifiers, func(m planmodifier.Map, cfg, plan, state types.Map) bool {
			r := &planmodifier.MapResponse{PlanValue: plan}
			m.PlanModifyMap(ctx, planmodifier.MapRequest{Path: p, PathExpression: p.Expression(), Config: req.Config,
				ConfigValue: cfg, Plan: req.Plan, PlanValue: plan, State: req.State, StateValue: state, Private: req.Private}, r)
			return r.RequiresReplace
		})
	}
	return false
}

// anyReplaces reads the attribute's configured, planned and prior values
// and reports whether run finds a modifier that replaces.
func anyReplaces[M any, V any](ctx context.Context, req resource.ModifyPlanRequest, p path.Path, diags *diag.Diagnostics,
	modifiers []M, run func(m M, cfg, plan, state V) bool) bool {
	if len(modifiers) == 0 {
		return false
	}
	var cfg, plan, state V
	if !readValues(ctx, req, p, &cfg, &plan, &state, diags) {
		return false
	}
	for _, m := range modifiers {
		if run(m, cfg, plan, state) {
			return true
		}
	}
	return false
}

// modifiedKinds are the attribute kinds whose plan modifiers replaces
// evaluates; a test fails when the schema gives modifiers to another kind.
var modifiedKinds = []string{"String", "Int64", "Bool", "Map"}

func readValues[T any](ctx context.Context, req resource.ModifyPlanRequest, p path.Path, cfg, plan, state *T, diags *diag.Diagnostics) bool {
	var d diag.Diagnostics
	d.Append(req.Config.GetAttribute(ctx, p, cfg)...)
	d.Append(req.Plan.GetAttribute(ctx, p, plan)...)
	d.Append(req.State.GetAttribute(ctx, p, state)...)
	diags.Append(d...)
	return !d.HasError()
}

// liftsProtection tells whether the plan turns off the deletion_protection
// the state has on.
func liftsProtection(plan, state *clusterResourceModel) bool {
	return state.DeletionProtection.ValueBool() && known(plan.DeletionProtection) && !plan.DeletionProtection.ValueBool()
}

// mustBeReplaced tells whether the cluster is in a state from which
// CloudStack only allows deleting it: Error (KubernetesCluster.State has
// only DestroyRequested from it), or Destroying after a failed delete.
func mustBeReplaced(state *clusterResourceModel) bool {
	s := state.CloudStackState.ValueString()
	return s == clusterstate.Error || s == clusterstate.Destroying
}

// withLocalValues is the prior state with the plan's values of the
// attributes that live only in the state and ask nothing of CloudStack: the
// consents, the timeouts, and the create-only inputs CloudStack returns
// nowhere, which an import leaves null and the next apply records in place.
func withLocalValues(prior, plan *clusterResourceModel) clusterResourceModel {
	rec := *prior
	rec.DeletionProtection = plan.DeletionProtection
	rec.RecreateUserHazardRules = plan.RecreateUserHazardRules
	rec.AllowRestartForRecovery = plan.AllowRestartForRecovery
	rec.Timeouts = plan.Timeouts
	rec.NodeRootDiskSize = knownOr(plan.NodeRootDiskSize, prior.NodeRootDiskSize)
	rec.Hypervisor = knownOr(plan.Hypervisor, prior.Hypervisor)
	rec.CNIConfigDetails = knownOr(plan.CNIConfigDetails, prior.CNIConfigDetails)
	rec.ASNumber = knownOr(plan.ASNumber, prior.ASNumber)
	rec.DockerRegistryURL = knownOr(plan.DockerRegistryURL, prior.DockerRegistryURL)
	rec.DockerRegistryUsername = knownOr(plan.DockerRegistryUsername, prior.DockerRegistryUsername)
	rec.ExternalLoadBalancerIP = knownOr(plan.ExternalLoadBalancerIP, prior.ExternalLoadBalancerIP)
	return rec
}

// knownOr is the planned value when the plan knows it, else the prior one.
func knownOr[T interface{ IsUnknown() bool }](planned, prior T) T {
	if planned.IsUnknown() {
		return prior
	}
	return planned
}

// differingAttributes names the top-level attributes whose planned value
// is known and differs from the state's.
func differingAttributes(planned, state tftypes.Value) []string {
	var want, got map[string]tftypes.Value
	if planned.As(&want) != nil || state.As(&got) != nil {
		return nil
	}
	var out []string
	for name, p := range want {
		if p.IsFullyKnown() && !p.Equal(got[name]) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
