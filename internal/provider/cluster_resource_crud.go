package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// Create creates the cluster through the engine (clusterops.Engine.Create:
// no twin, the create sent once, a lost answer adopted only when provably
// ours, a failed cluster deleted only once read and found failed, then the
// steps after the create) and records what it made; reportCreate explains
// which outcomes taint the cluster and why a working one never is.
func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clusterResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, deleteTimeout, diags := createTimeouts(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	creq, diags := createRequest(ctx, &plan, deleteTimeout)
	resp.Diagnostics.Append(diags...)
	// Write-only: the password is only in the configuration, never in the plan.
	var password types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("docker_registry_password"), &password)...)
	creq.Params.DockerRegistryPassword = knownString(password)
	if resp.Diagnostics.HasError() {
		return
	}
	opCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := r.engine().Create(opCtx, creq)
	r.reportCreate(ctx, req.Plan, &plan, timeout, res, err, resp)
}

// Read refreshes every attribute from CloudStack and removes the resource
// when the cluster no longer exists.
func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	id := state.ID.ValueString()
	ctx = tflog.SetField(ctx, "cluster_id", id)
	in, diags := intentOf(ctx, &state, nil, cachedNetwork(ctx, req.Private))
	resp.Diagnostics.Append(diags...)
	obs, err := r.engine().Observe(ctx, id, in)
	if cloudstack.IsNotFound(err) || (err == nil && obs.Cluster.State == clusterstate.Destroyed) {
		tflog.Warn(ctx, "cluster no longer exists; removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Cluster", fmt.Sprintf("Reading cluster %s failed: %s", id, err))
		return
	}
	resp.Diagnostics.Append(refreshModel(ctx, &state, obs, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(adoptImported(ctx, &state, obs, req.Private, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	if obs.Stuck != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("cloudstack_state"), "Cluster Stuck in "+obs.Stuck.State,
			sentence(obs.Stuck.Error())+" Until then an apply that changes it, and a destroy, stop with this message.")
	}
}

// Delete deletes the cluster and waits until CloudStack has destroyed it,
// then deletes the CKS rules CloudStack leaves behind on a network the user
// supplied, with a warning naming them. A cluster that is already gone is
// not an error.
func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if refuseProtectedDelete(&state, &resp.Diagnostics) {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := state.ID.ValueString()
	ctx = tflog.SetField(ctx, "cluster_id", id)
	if err := r.deleteCluster(ctx, &state, id, req.Private, &resp.Diagnostics); err != nil {
		summary, detail := describeFailure("Deleting cluster "+id, err)
		resp.Diagnostics.AddError(summary, detail)
	}
}

// deleteCluster deletes a cluster once no other operation runs on it (a
// delete is refused in transitional states other than Destroying, which a
// failed delete leaves behind) through the engine, which waits for the job
// and removes the CKS rules CloudStack leaves behind; what it removed
// becomes a warning.
func (r *clusterResource) deleteCluster(ctx context.Context, m *clusterResourceModel, id string, prior privateState, diags *diag.Diagnostics) error {
	eng := r.engine()
	deletable := func(state string) bool { return state == clusterstate.Destroying || clusterstate.Settled(state) }
	if _, err := eng.WaitActionable(ctx, id, deletable); err != nil {
		if cloudstack.IsNotFound(err) {
			return nil
		}
		return err
	}
	in, d := intentOf(ctx, m, nil, cachedNetwork(ctx, prior))
	diags.Append(d...)
	rep, err := eng.Delete(ctx, id, in)
	addReportWarnings(diags, rep)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	return err
}
