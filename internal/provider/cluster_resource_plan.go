package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// ModifyPlan completes an update plan: it judges a size change with the
// engine's pre-flight and a version change with CKS's upgrade rule (both
// reads), says which SSH rules apply will change and with which CIDRs,
// handles a cluster whose VM map disagrees with its size, and decides which
// computed values may change.
//
// What it refuses it refuses as a warning: Terraform plans a destroy, and
// a -replace, after a normal plan of the same configuration (the
// pre-destroy refresh), which an error would fail, although none of these
// checks concerns a destroy or a replacement. Update makes the same checks
// again and refuses with errors before changing anything.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// The plan's checks read what the refresh just read; Update reads
	// fresh and checks again before it changes anything.
	ctx = readShared(ctx)
	defer r.refuseDeletion(ctx, req, resp) // cluster_resource_deletion_protection.go
	switch {
	case req.Plan.Raw.IsNull():
		// A destroy: a version or CNI configuration this plan deletes after
		// the cluster may go (planned_deletions.go).
		if r.data != nil {
			r.data.deletions.addCluster(stateID(ctx, req))
		}
		r.planDestroyExternalNodes(ctx, req, &resp.Diagnostics) // cluster_resource_external_nodes.go
		op, diags := newStateOp(ctx, req.State, req.Private)
		if resp.Diagnostics.Append(diags...); !diags.HasError() {
			r.warnDestroyOnVPC(ctx, op, &resp.Diagnostics) // destroy: what it does to a shared network ACL list
		}
		return
	case req.State.Raw.IsNull():
		r.modifyCreatePlan(ctx, req, resp)
		return
	}
	op, diags := newUpdateOp(ctx, req.Plan, req.State, req.Config, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	if planReplacement(ctx, op.plan, op.state, resp) || len(replacingAttributes(ctx, s.Schema, req, &resp.Diagnostics)) > 0 {
		// A new cluster: nothing of an update applies.
		destroy, diags := op.destroying(ctx)
		resp.Diagnostics.Append(diags...)
		r.warnDestroyOnVPC(ctx, destroy, &resp.Diagnostics)
		return
	}
	if op.config.AllowRestartForRecovery.ValueBool() {
		resp.Diagnostics.AddAttributeWarning(pathAllowRestart, "Attribute Has No Effect", allowRestartNoEffect)
	}
	var refusals diag.Diagnostics
	u := r.checkUpdate(ctx, op, &refusals)
	resp.Diagnostics.Append(refusalsAsWarnings(refusals)...)
	if resp.Diagnostics.HasError() {
		return
	}
	planComputed(ctx, op, u, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, op.plan)...)
}

// planComputed plans the computed values an update may move: the node
// offerings a size change makes CloudStack record, the nodes, the state
// and the capacity CloudStack reports.
func planComputed(ctx context.Context, op *clusterOp, u updateCheck, diags *diag.Diagnostics) {
	plan, state, cfg := op.plan, op.state, op.config
	ch, bad, as, asKnown := u.changes, u.bad, u.autoscaling, u.autoscalingKnown
	if ch.size && bad == nil && (!asKnown || !as.enabled()) {
		planScaleOfferings(u.scale, plan, state, cfg, diags)
	}
	switch {
	case ch.nodesMayChange(bad) || ch.unknownInputs(plan, cfg):
		plan.Nodes = plannedNodes(ctx, ch, plan, state, bad)
		plan.CloudStackState = types.StringUnknown()
		plan.Cores, plan.Memory = types.Int64Unknown(), types.Int64Unknown()
	case repairsRules(plan, state):
		// Ports may come back, and the nodes are listed by port:
		// describeRuleSync planned them from the rules it read.
	case localOnly(ch, plan, state, cfg):
		// Nothing for CloudStack to do (deletion_protection, timeouts):
		// what it reports stays as the state has it.
		plan.CloudStackState, plan.SSHRulesInSync, plan.Nodes = state.CloudStackState, state.SSHRulesInSync, state.Nodes
	case plan.SSHRulesInSync.IsUnknown():
		plan.Nodes = types.ListUnknown(nodeObjectType)
	default:
		plan.Nodes = state.Nodes
	}
}

// planReplacement replaces a cluster in Error or Destroying: CloudStack
// only allows deleting a cluster in Error, and a failed delete leaves it
// Destroying. When the plan turns off the deletion_protection the state
// has on, the replacement waits: this plan records deletion_protection =
// false and nothing else, which is what lets the next plan replace it.
func planReplacement(ctx context.Context, plan, state *clusterResourceModel, resp *resource.ModifyPlanResponse) bool {
	if !mustBeReplaced(state) {
		return false
	}
	s := state.CloudStackState.ValueString()
	if liftsProtection(plan, state) {
		plan.CloudStackState, plan.Nodes, plan.SSHRulesInSync = state.CloudStackState, state.Nodes, state.SSHRulesInSync
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		resp.Diagnostics.AddAttributeWarning(pathDeletionProtection, "Cluster Replacement Deferred",
			fmt.Sprintf("Cluster %s is in state %s, from which CloudStack only allows deleting it, and the state still has "+
				"deletion_protection = true. This apply records deletion_protection = false and changes nothing in CloudStack; "+
				"the next plan replaces the cluster. Any other change in this plan waits for that replacement (the apply "+
				"names it in an error).", state.ID.ValueString(), s))
		return true
	}
	plan.CloudStackState = types.StringUnknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("cloudstack_state"))
	resp.Diagnostics.AddAttributeWarning(path.Root("cloudstack_state"), "Cluster Must Be Replaced",
		fmt.Sprintf("Cluster %s is in state %s, from which CloudStack only allows deleting it; it will be replaced.", state.ID.ValueString(), s))
	return true
}

// plannedNodes is the nodes a plan shows. A size change alone keeps every
// node that stays known (clusterops.NodesAfterResize), and only the workers
// it adds are unknown. When the nodes do not show unambiguously which
// workers a scale-down removes, or anything else changes, the nodes are
// unknown.
func plannedNodes(ctx context.Context, ch planChanges, plan, state *clusterResourceModel, bad *vmmap.Inconsistency) types.List {
	unknown := types.ListUnknown(nodeObjectType)
	if !ch.size || ch.offering || ch.version || ch.state || ch.autoscaling || bad != nil || !known(plan.Size) || !known(state.Size) {
		return unknown
	}
	var models []nodeModel
	if state.Nodes.IsNull() || state.Nodes.IsUnknown() || state.Nodes.ElementsAs(ctx, &models, false).HasError() {
		return unknown
	}
	nodes := make([]clusterops.Node, 0, len(models))
	for _, m := range models {
		if m.Role.ValueString() == roleExternal {
			// CloudStack's scale gives the external nodes the ports after
			// its new node range: theirs change with any size change.
			return unknown
		}
		nodes = append(nodes, clusterops.Node{ID: m.ID.ValueString(), Name: m.Name.ValueString(),
			Role: naming.Role(m.Role.ValueString()), SSHPort: int(m.SSHPort.ValueInt64())})
	}
	keep, added, ok := clusterops.NodesAfterResize(nodes, state.Size.ValueInt64(), plan.Size.ValueInt64())
	if !ok {
		return unknown
	}
	elems := make([]attr.Value, 0, len(keep)+int(added))
	for _, i := range keep {
		v, d := types.ObjectValueFrom(ctx, nodeAttrTypes, models[i])
		if d.HasError() {
			return unknown
		}
		elems = append(elems, v)
	}
	for range added {
		elems = append(elems, types.ObjectUnknown(nodeAttrTypes))
	}
	list, d := types.ListValue(nodeObjectType, elems)
	if d.HasError() {
		return unknown
	}
	return list
}

// modifyCreatePlan checks at plan time, for a cluster to be created, what
// would make a step after the create fail (clusterops.CheckCreate): an
// autoscaler the Kubernetes version does not support fails the plan; an
// autoscaler maximum above CloudStack's default cluster size limit, which
// only an admin can read, is a warning.
func (r *clusterResource) modifyCreatePlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil {
		return
	}
	op, diags := newCreateOp(ctx, req.Plan, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan := op.plan
	if op.config.NetworkID.IsNull() {
		// CKS creates an isolated network: its rules are on the network's
		// source NAT address, an IPv4 address.
		for name, list := range map[string]types.List{"ssh_cidrs": plan.SSHCIDRs, "api_cidrs": plan.APICIDRs} {
			cidrFamilyErrors(ctx, &resp.Diagnostics, name, list, "0.0.0.0", func(cidr string) string {
				return "CloudStack creates an isolated network for this cluster and keeps its rules on the network's " +
					"source NAT address, an IPv4 address: the IPv6 source CIDR " + cidr + " would admit no client. Use " +
					"IPv4 CIDRs in " + name + "."
			})
		}
	}
	r.checkCreateNetwork(ctx, plan, &resp.Diagnostics)
	if plan.EnableCSI.ValueBool() {
		if version := r.engine().CSIUnsupported(ctx); version != "" {
			resp.Diagnostics.AddAttributeError(path.Root("enable_csi"), "CSI Not Supported",
				fmt.Sprintf("enable_csi = true needs CloudStack 4.22 or later, whose CKS sets up its CSI driver; this management "+
					"server is %s, which would ignore it and create the cluster without one. Remove enable_csi.", version))
		}
	}
	as, asKnown, diags := autoscalingOf(ctx, plan.Autoscaling)
	resp.Diagnostics.Append(diags...)
	if !asKnown || !as.enabled() || !known(plan.ZoneID) || !known(plan.KubernetesVersionID) || !known(plan.ControlNodes) {
		return
	}
	creq, diags := createRequest(ctx, op, 0)
	resp.Diagnostics.Append(diags...)
	problems, err := r.engine().CheckCreate(ctx, creq)
	if err != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("autoscaling"), "Unable to Check Autoscaling",
			"Listing the Kubernetes versions to check that this one supports the autoscaler failed: "+err.Error()+
				". CloudStack checks it when the autoscaler is configured, after the create.")
	}
	for _, p := range problems {
		attr := path.Root("autoscaling")
		if p.Field == clusterops.FieldAutoscalerMaximum {
			attr = attr.AtName("max_size")
		}
		if p.Certain {
			resp.Diagnostics.AddAttributeError(attr, "Autoscaling Not Possible", sentence(p.Message)+
				" Remove autoscaling or pick a version that supports it.")
			continue
		}
		resp.Diagnostics.AddAttributeWarning(attr, "Autoscaling Maximum May Exceed the Server Limit", sentence(p.Message)+
			" Lower autoscaling.max_size if the limit is the default.")
	}
}
