package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// Deleting a cluster.

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
	if r.refuseDeleteWithExternalNodes(ctx, id, &resp.Diagnostics) {
		return
	}
	if err := r.deleteCluster(ctx, &state, id, req.Private, resp.Private, &resp.Diagnostics); err != nil {
		summary, detail := describeFailure("Deleting cluster "+id, err)
		resp.Diagnostics.AddError(summary, detail)
	}
}

// deleteCluster deletes a cluster once no other operation runs on it (a
// delete is refused in transitional states other than Destroying, which a
// failed delete leaves behind) through the engine, which waits for the job
// and removes the CKS rules CloudStack leaves behind; what it removed
// becomes a warning.
func (r *clusterResource) deleteCluster(ctx context.Context, m *clusterResourceModel, id string, prior, next privateState,
	diags *diag.Diagnostics,
) error {
	eng := r.engine()
	deletable := func(state string) bool { return state == clusterstate.Destroying || clusterstate.Settled(state) }
	if _, err := eng.WaitActionable(ctx, id, deletable); err != nil {
		if cloudstack.IsNotFound(err) {
			return nil
		}
		return err
	}
	in, d := intentOf(ctx, m, nil, prior)
	diags.Append(d...)
	in.EarlierDelete = deleteMemo(ctx, prior)
	rep, err := eng.Delete(ctx, id, in)
	addReportWarnings(diags, rep)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	if err != nil {
		// The cluster stays: the next attempt must know the rules this
		// one saw, which its destroy may have made unrecognisable or taken.
		memo := rep.Memo
		if memo.Empty() {
			memo = in.EarlierDelete // the delete stopped before it looked
		}
		diags.Append(saveDeleteMemo(ctx, next, memo)...)
	}
	return err
}
