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
	op, diags := newStateOp(ctx, req.State, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || refuseProtectedDelete(op.state, &resp.Diagnostics) {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := op.state.Timeouts.Delete(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := op.id()
	ctx = tflog.SetField(ctx, "cluster_id", id)
	if r.refuseDeleteWithExternalNodes(ctx, id, &resp.Diagnostics) {
		return
	}
	if err := r.deleteCluster(ctx, op, resp.Private, &resp.Diagnostics); err != nil {
		summary, detail := describeFailure("Deleting cluster "+id, err)
		resp.Diagnostics.AddError(summary, detail)
	}
}

// deleteCluster deletes a cluster once no other operation runs on it (a
// delete is refused in transitional states other than Destroying, which a
// failed delete leaves behind) through the engine, which waits for the job
// and removes the CKS rules CloudStack leaves behind; what it removed
// becomes a warning.
func (r *clusterResource) deleteCluster(ctx context.Context, op *clusterOp, next privateState, diags *diag.Diagnostics) error {
	eng, id := r.engine(), op.id()
	deletable := func(state string) bool { return state == clusterstate.Destroying || clusterstate.Settled(state) }
	if _, err := eng.WaitActionable(ctx, id, deletable); err != nil {
		if cloudstack.IsNotFound(err) {
			return nil
		}
		return err
	}
	rep, err := eng.Delete(ctx, id, op.intent)
	addReportWarnings(diags, rep)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	if err != nil {
		// The cluster stays: the next attempt must know the rules this
		// one saw, which its destroy may have made unrecognisable or taken.
		memo := rep.Memo
		if memo.Empty() {
			memo = op.intent.EarlierDelete // the delete stopped before it looked
		}
		diags.Append(saveDeleteMemo(ctx, next, memo)...)
	}
	return err
}
