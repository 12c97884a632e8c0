package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// The operations of cks_cluster_node: the plan check, join, refresh,
// record and removal.

// ModifyPlan refuses, at plan, a join CloudStack would drop or skip: the
// VM's network, template or state, the cluster's state or network, a rule
// on the node's port. Values known only after apply are checked by Create.
func (r *clusterNodeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || r.data == nil {
		return
	}
	var plan clusterNodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !known(plan.ClusterID) || !known(plan.VMID) {
		return
	}
	problems, err := r.engine().CheckJoin(ctx, plan.joinRequest())
	if err != nil {
		resp.Diagnostics.AddWarning("Join Not Checked", fmt.Sprintf("The join of VM %s to cluster %s could not be checked "+
			"at plan: %s. The apply checks it again before any change.", plan.VMID.ValueString(), plan.ClusterID.ValueString(), err))
		return
	}
	addJoinProblems(&resp.Diagnostics, problems)
}

// addJoinProblems adds each problem as an error on its attribute.
func addJoinProblems(diags *diag.Diagnostics, problems []clusterops.NodeProblem) {
	for _, p := range problems {
		attr := path.Root("vm_id")
		if p.Field == clusterops.FieldCluster {
			attr = path.Root("cluster_id")
		}
		diags.AddAttributeError(attr, "VM Cannot Join the Cluster", sentence(p.Message))
	}
}

// loadNode reads the node's model from a plan or a state (get), and
// refuses an operation of a provider that is not configured.
func (r *clusterNodeResource) loadNode(ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) (clusterNodeModel, bool) {
	var m clusterNodeModel
	diags.Append(get(ctx, &m)...)
	if diags.HasError() {
		return m, false
	}
	if r.data == nil {
		notConfigured(diags)
		return m, false
	}
	return m, true
}

func (m *clusterNodeModel) joinRequest() clusterops.JoinRequest {
	return clusterops.JoinRequest{ClusterID: m.ClusterID.ValueString(), VMID: m.VMID.ValueString(),
		ManualUpgrade: m.ManualUpgrade.ValueBool(), MountCKSISOOnVR: m.MountCKSISOOnVR.ValueBool()}
}

// Create joins the VM once. When CloudStack took the VM but a step after it
// failed (its tags, the cluster's rules), the node is recorded with the
// error, so that the state holds what CloudStack has.
func (r *clusterNodeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := r.loadNode(ctx, req.Plan.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultNodeTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = tflog.SetField(ctx, "cluster_id", plan.ClusterID.ValueString())
	rep, err := r.engine().JoinNode(ctx, plan.joinRequest())
	addReportWarnings(&resp.Diagnostics, rep)
	var refused *clusterops.JoinError
	if errors.As(err, &refused) {
		addJoinProblems(&resp.Diagnostics, refused.Problems)
		return
	}
	plan.ID = types.StringValue(plan.ClusterID.ValueString() + "/" + plan.VMID.ValueString())
	node, rerr := r.engine().ReadExternalNode(ctx, plan.ClusterID.ValueString(), plan.VMID.ValueString())
	if rerr != nil {
		summary, detail := describeFailure("Joining VM "+plan.VMID.ValueString(), errors.Join(err, rerr))
		resp.Diagnostics.AddError(summary, detail)
		return // not joined: nothing to record
	}
	plan.refresh(node)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if err != nil {
		summary, detail := describeFailure("Joining VM "+plan.VMID.ValueString(), err)
		resp.Diagnostics.AddError(summary, detail+" The VM is an external node of the cluster; the next apply replaces it.")
	}
}

// refresh records what CloudStack and the provider's tag say of the node.
// manual_upgrade keeps its value when the VM carries no tag (a node joined
// by another client and imported: CloudStack does not tell).
func (m *clusterNodeModel) refresh(n *clusterops.ExternalNode) {
	m.Name = types.StringValue(n.Name)
	m.SSHPort = types.Int64Null()
	if n.SSHPort > 0 {
		m.SSHPort = types.Int64Value(int64(n.SSHPort))
	}
	m.KubernetesVersion = stringOrNull(n.KubernetesVersion)
	if n.Tagged {
		m.ManualUpgrade = types.BoolValue(n.ManualUpgrade)
	}
}

// Read removes the node from state when the cluster is gone or the VM is
// no longer an external node of it.
func (r *clusterNodeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := r.loadNode(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	node, err := r.engine().ReadExternalNode(ctx, state.ClusterID.ValueString(), state.VMID.ValueString())
	if cloudstack.IsNotFound(err) {
		tflog.Warn(ctx, "the VM is no longer an external node of the cluster; removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Cluster Node", fmt.Sprintf("Reading external node %s of cluster %s failed: %s",
			state.VMID.ValueString(), state.ClusterID.ValueString(), err))
		return
	}
	state.refresh(node)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update records values CloudStack keeps nowhere after an import (the
// other attributes replace the node): manual_upgrade goes into the VM's
// tag, mount_cks_iso_on_vr only into the state.
func (r *clusterNodeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state clusterNodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	if known(plan.ManualUpgrade) && !plan.ManualUpgrade.Equal(state.ManualUpgrade) {
		if err := r.engine().RecordManualUpgrade(ctx, plan.ClusterID.ValueString(), plan.VMID.ValueString(), plan.ManualUpgrade.ValueBool()); err != nil {
			resp.Diagnostics.AddError("Unable to Record manual_upgrade", sentence(err.Error()))
			return
		}
	}
	node, err := r.engine().ReadExternalNode(ctx, plan.ClusterID.ValueString(), plan.VMID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Cluster Node", sentence(err.Error()))
		return
	}
	plan.ID = state.ID
	plan.refresh(node)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete takes the VM out of the cluster; the VM keeps running. A node that
// is already gone is not an error.
func (r *clusterNodeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := r.loadNode(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultNodeTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rep, err := r.engine().RemoveNode(ctx, state.ClusterID.ValueString(), state.VMID.ValueString())
	addReportWarnings(&resp.Diagnostics, rep)
	if err != nil {
		summary, detail := describeFailure("Removing external node "+state.VMID.ValueString(), err)
		resp.Diagnostics.AddError(summary, detail)
	}
}
