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
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
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

	obs, err := r.finishCreate(ctx, c, plan, &resp.Diagnostics)
	if err != nil {
		// The cluster exists and works; only a follow-up step failed. Record
		// it (Terraform marks it tainted because of the error).
		r.recordCreated(ctx, &plan, c.ID, resp)
		summary, detail := describeFailure(fmt.Sprintf("Cluster %s was created, but setting it up", c.ID), err)
		resp.Diagnostics.AddError(summary, detail+" The cluster is kept in state and marked tainted, so the next apply replaces it; "+
			"to keep it instead, run `terraform untaint` and apply again.")
		return
	}
	planned := plan
	refreshDiags := refreshModel(ctx, &plan, obs, resp.Private)
	resp.Diagnostics.Append(refreshDiags...)
	if refreshDiags.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if unmet := unmetPlan(planned, plan); len(unmet) > 0 {
		resp.Diagnostics.AddError("Cluster Not As Planned", fmt.Sprintf("Cluster %s was created, but CloudStack reports %s. "+
			"It is kept in state and marked tainted, so the next apply replaces it; to keep it instead, run `terraform untaint`.",
			c.ID, strings.Join(unmet, ", ")))
	}
}

// finishCreate does what createKubernetesCluster cannot: it replaces CKS's
// single-port etcd SSH rules with the provider's layout (only now, once CKS
// has created its own), narrows them to ssh_cidrs, and sets up the
// autoscaler and a Stopped state. It returns the cluster as it ends.
func (r *clusterResource) finishCreate(ctx context.Context, c *cloudstack.Cluster, plan clusterResourceModel, diags *diag.Diagnostics) (*clusterops.Observation, error) {
	upd, d := updateRequest(ctx, &plan, &plan, "")
	diags.Append(d...)
	upd.Size = nil
	rep, err := r.engine().Update(ctx, c.ID, upd)
	addReportWarnings(diags, rep)
	if err != nil {
		return nil, err
	}
	if obs := observationOf(rep); obs != nil {
		return obs, nil
	}
	obs, od := r.observe(ctx, &plan, c.ID, nil)
	diags.Append(od...)
	if od.HasError() {
		return nil, fmt.Errorf("reading cluster %s back failed", c.ID)
	}
	return obs, nil
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
	if cloudstack.IsNotFound(err) || (err == nil && obs.Cluster.State == cloudstack.ClusterDestroyed) {
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
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
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
	deletable := func(state string) bool { return state == cloudstack.ClusterDestroying || clusterops.Settled(state) }
	if _, err := eng.WaitSettled(ctx, id, deletable); err != nil {
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

// saveRealState records the cluster as CloudStack reports it, never the
// planned values, so that the next plan shows what is left to do. It
// reports whether it could.
func (r *clusterResource) saveRealState(ctx context.Context, m *clusterResourceModel, id string, next privateState, state *tfsdk.State, diags *diag.Diagnostics) bool {
	obs, d := r.observe(ctx, m, id, nil)
	if d.HasError() {
		diags.AddError("Unable to Read Cluster After Failure", fmt.Sprintf("Reading cluster %s to record its real state failed: %s",
			id, d.Errors()[0].Detail()))
		return false
	}
	// The operation's own context may have run out (a timeout is one way to
	// get here); recording what CloudStack has must not depend on it.
	fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	var rd diag.Diagnostics
	rd.Append(refreshModel(fresh, m, obs, next)...)
	diags.Append(rd...)
	if rd.HasError() {
		return false
	}
	diags.Append(state.Set(ctx, m)...)
	return true
}
