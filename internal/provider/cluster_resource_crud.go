package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Create creates the cluster and waits for CloudStack to provision it. A
// failed create leaves a cluster in Error or Alert behind (spec §3.1); it is
// deleted, or, when that fails too, kept in state as tainted so that the next
// apply replaces it. The create call itself is never retried.
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
	timeout, diags := plan.Timeouts.Create(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	as, _, diags := autoscalingOf(ctx, plan.Autoscaling)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	params := createParams(plan, as)
	c, err := r.createCluster(ctx, params)
	if err != nil {
		var failed *createFailedError
		if errors.As(err, &failed) {
			r.cleanUpFailedCreate(ctx, &plan, failed, resp)
			return
		}
		var unread *createdUnreadError
		if errors.As(err, &unread) {
			r.recordUnread(ctx, &plan, unread, resp)
			return
		}
		resp.Diagnostics.AddError("Unable to Create Cluster", err.Error())
		return
	}
	ctx = tflog.SetField(ctx, "cluster_id", c.ID)
	tflog.Info(ctx, "created Kubernetes cluster", map[string]any{"state": c.State})

	if err := r.finishCreate(ctx, c, plan, as); err != nil {
		// The cluster exists and works; only a follow-up step failed. Record
		// it (Terraform marks it tainted because of the error).
		r.recordCreated(ctx, &plan, c.ID, resp)
		summary, detail := describeFailure(fmt.Sprintf("Cluster %s was created, but setting it up", c.ID), err)
		resp.Diagnostics.AddError(summary, detail+" The cluster is kept in state and marked tainted, so the next apply replaces it; "+
			"to keep it instead, run `terraform untaint` and apply again.")
		return
	}
	final, err := r.readBack(ctx, c.ID)
	if err != nil {
		// Record the cluster as last read so that it is not lost; the error
		// marks it tainted.
		resp.Diagnostics.AddError("Unable to Read Created Cluster", fmt.Sprintf("Cluster %s was created, but reading it back "+
			"failed: %s. It is kept in state and marked tainted; run `terraform untaint` to keep it.", c.ID, err))
		final = c
	}
	planned := plan
	refreshDiags := r.refreshModel(ctx, &plan, final, nil, resp.Private)
	resp.Diagnostics.Append(refreshDiags...)
	if refreshDiags.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if unmet := unmetPlan(planned, plan); len(unmet) > 0 {
		resp.Diagnostics.AddError("Cluster Not As Planned", fmt.Sprintf("Cluster %s was created, but CloudStack reports %s. "+
			"It is kept in state and marked tainted, so the next apply replaces it; to keep it instead, run `terraform untaint`.",
			final.ID, strings.Join(unmet, ", ")))
	}
}

// finishCreate applies what createKubernetesCluster cannot take: the
// autoscaler and a Stopped state.
func (r *clusterResource) finishCreate(ctx context.Context, c *cloudstack.Cluster, plan clusterResourceModel, as autoscalingModel) error {
	if as.enabled() {
		if err := r.setAutoscaling(ctx, c.ID, as); err != nil {
			return err
		}
	}
	if plan.State.ValueString() == clusterStopped {
		if err := r.runJob(ctx, "stopKubernetesCluster", func() (cloudstack.AsyncRef, error) {
			return r.data.client.StopKubernetesCluster(ctx, c.ID)
		}); err != nil {
			return fmt.Errorf("stopping the new cluster: %w", err)
		}
	}
	return nil
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
	c, err := r.data.client.GetKubernetesCluster(ctx, id)
	if cloudstack.IsNotFound(err) || (err == nil && c.State == "Destroyed") {
		tflog.Warn(ctx, "cluster no longer exists; removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Cluster", fmt.Sprintf("Reading cluster %s failed: %s", id, err))
		return
	}
	resp.Diagnostics.Append(r.refreshModel(ctx, &state, c, req.Private, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Delete deletes the cluster and waits until CloudStack has destroyed it,
// then deletes the CKS rules CloudStack leaves behind on a network the user
// supplied (spec §2.8), with a warning naming them. A cluster that is
// already gone is not an error.
func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
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
	if err := r.deleteCluster(ctx, &state, id, &resp.Diagnostics); err != nil {
		summary, detail := describeFailure("Deleting cluster "+id, err)
		resp.Diagnostics.AddError(summary, detail)
	}
}

// deleteCluster deletes a cluster once no other operation runs on it (a
// delete is refused in transitional states other than Destroying, which a
// failed delete leaves behind) through the rule engine, which waits for the
// job and removes the CKS rules CloudStack leaves behind; what it removed
// becomes a warning.
func (r *clusterResource) deleteCluster(ctx context.Context, m *clusterResourceModel, id string, diags *diag.Diagnostics) error {
	deletable := func(state string) bool { return state == clusterDestroying || settled(state) }
	if _, err := r.waitSettled(ctx, id, deletable); err != nil {
		if cloudstack.IsNotFound(err) {
			return nil
		}
		return err
	}
	rep, err := r.engine(m).Delete(ctx, id)
	addReportWarnings(diags, rep)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	return err
}

// saveRealState records the cluster as CloudStack reports it, never the
// planned values, so that the next plan shows what is left to do.
// It reports whether it could.
func (r *clusterResource) saveRealState(ctx context.Context, m *clusterResourceModel, id string, next privateState, state *tfsdk.State, diags *diag.Diagnostics) bool {
	c, err := r.readBack(ctx, id)
	if err != nil {
		diags.AddError("Unable to Read Cluster After Failure",
			fmt.Sprintf("Reading cluster %s to record its real state failed: %s", id, err))
		return false
	}
	// The operation's own context may have run out (a timeout is one way to
	// get here); recording what CloudStack has must not depend on it.
	fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	var d diag.Diagnostics
	d.Append(r.refreshModel(fresh, m, c, nil, next)...)
	diags.Append(d...)
	if d.HasError() {
		return false
	}
	diags.Append(state.Set(ctx, m)...)
	return true
}
