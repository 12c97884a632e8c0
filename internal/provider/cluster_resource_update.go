package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// Update changes the cluster in place, in this order: recovery (a cluster in
// Alert or with a stale size) or else a repair of SSH rules found out of
// sync, start or stop, offerings, Kubernetes version,
// size, autoscaling. A stop waits until the end when a later step needs a
// running cluster. After a failure the state holds the cluster as CloudStack
// reports it, so the next plan shows what is left to do.
func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior clusterResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The response starts as the planned state, which Terraform records
	// even after an error; until CloudStack is read back, keep the prior one.
	resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := prior.ID.ValueString()
	ctx = tflog.SetField(ctx, "cluster_id", id)

	u := &clusterUpdate{r: r, id: id, plan: plan, prior: prior, engine: r.engine(&plan), diags: &resp.Diagnostics}
	if step, err := u.run(ctx); err != nil {
		u.repairAfterFailure(ctx, err)
		if !r.saveRealState(ctx, &plan, id, resp.Private, &resp.State, &resp.Diagnostics) {
			// Without a read-back the prior state is the best record.
			resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
		}
		summary, detail := describeFailure(step, err)
		resp.Diagnostics.AddError(summary, detail+" The state now holds the cluster as CloudStack reports it; the next plan shows what is left to do.")
		return
	}

	c, err := r.readBack(ctx, id)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Updated Cluster", fmt.Sprintf("Cluster %s was updated, but reading it back "+
			"failed: %s. The state keeps its prior values until the next refresh.", id, err))
		resp.Diagnostics.Append(resp.State.Set(ctx, &prior)...)
		return
	}
	planned := plan
	resp.Diagnostics.Append(r.refreshModel(ctx, &plan, c, req.Private, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Values planned from the prior state are kept: a VM state or an
	// autoscaler size that changed since the plan shows at the next refresh.
	if !planned.Nodes.IsUnknown() {
		plan.Nodes = planned.Nodes
	}
	if !planned.Size.IsUnknown() && u.autoscaling.enabled() {
		plan.Size = planned.Size
	}
	if unmet := unmetPlan(planned, plan); len(unmet) > 0 {
		// Record what CloudStack reports and say so, rather than let
		// Terraform reject the result as inconsistent with the plan.
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		resp.Diagnostics.AddError("Cluster Not As Planned", fmt.Sprintf("Every step of the update of cluster %s succeeded, "+
			"but CloudStack now reports %s. The state holds what CloudStack reports; the next plan shows what is left to do.",
			id, strings.Join(unmet, ", ")))
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// unmetPlan lists the planned values that CloudStack does not report after
// an operation that seemed to succeed.
func unmetPlan(planned, got clusterResourceModel) []string {
	var out []string
	for _, a := range []struct {
		name         string
		planned, got attr.Value
	}{
		{"state", planned.State, got.State},
		{"size", planned.Size, got.Size},
		{"kubernetes_version_id", planned.KubernetesVersionID, got.KubernetesVersionID},
		{"service_offering_id", planned.ServiceOfferingID, got.ServiceOfferingID},
		{"control_offering_id", planned.ControlOfferingID, got.ControlOfferingID},
		{"worker_offering_id", planned.WorkerOfferingID, got.WorkerOfferingID},
		{"etcd_offering_id", planned.EtcdOfferingID, got.EtcdOfferingID},
		{"autoscaling", planned.Autoscaling, got.Autoscaling},
		{"ssh_rules_in_sync", planned.SSHRulesInSync, got.SSHRulesInSync},
	} {
		if !a.planned.IsUnknown() && !a.planned.Equal(a.got) {
			out = append(out, fmt.Sprintf("%s %s (planned %s)", a.name, a.got, a.planned))
		}
	}
	return out
}

// clusterUpdate is one in-place update of a cluster.
type clusterUpdate struct {
	r      *clusterResource
	id     string
	plan   clusterResourceModel
	prior  clusterResourceModel
	engine *clusterops.Engine
	diags  *diag.Diagnostics

	autoscaling      autoscalingModel
	priorAutoscaling autoscalingModel
	cluster          *cloudstack.Cluster
}

// run applies the steps; it returns the failed step's description and error.
func (u *clusterUpdate) run(ctx context.Context) (string, error) {
	var d diag.Diagnostics
	u.autoscaling, _, d = autoscalingOf(ctx, u.plan.Autoscaling)
	u.diags.Append(d...)
	u.priorAutoscaling, _, d = autoscalingOf(ctx, u.prior.Autoscaling)
	u.diags.Append(d...)

	if err := u.refresh(ctx, true); err != nil {
		return "Reading cluster " + u.id, err
	}
	switch {
	case clusterops.NeedsRecovery(u.cluster):
		// A recovery repairs the SSH rules too.
		rep, err := u.engine.Recover(ctx, u.id, u.desiredSize())
		addReportWarnings(u.diags, rep)
		if err != nil {
			return "Recovering cluster " + u.id, err
		}
		if err := u.refresh(ctx, false); err != nil {
			return "Reading cluster " + u.id, err
		}
	case u.prior.SSHRulesInSync.Equal(types.BoolValue(false)):
		// The refresh found CKS's SSH rules out of sync (see ModifyPlan).
		rep, err := u.engine.Repair(ctx, u.id)
		addReportWarnings(u.diags, rep)
		if err != nil {
			return "Repairing the SSH rules of cluster " + u.id, err
		}
	}

	wantStopped := u.plan.State.ValueString() == clusterStopped
	versionChange := known(u.plan.KubernetesVersionID) && u.plan.KubernetesVersionID.ValueString() != u.cluster.KubernetesVersionID
	sizeChange := !u.autoscaling.enabled() && known(u.plan.Size) && u.plan.Size.ValueInt64() != u.cluster.Size
	autoscalingChange := u.autoscalingChanged()
	needsRunning := versionChange || sizeChange || autoscalingChange

	if u.cluster.State == clusterStopped && (!wantStopped || needsRunning) {
		if err := u.job(ctx, "startKubernetesCluster", u.r.data.client.StartKubernetesCluster); err != nil {
			return "Starting cluster " + u.id, err
		}
	}
	if wantStopped && !needsRunning && u.cluster.State != clusterStopped {
		if err := u.job(ctx, "stopKubernetesCluster", u.r.data.client.StopKubernetesCluster); err != nil {
			return "Stopping cluster " + u.id, err
		}
	}
	if offerings := u.offeringChanges(); offerings != nil {
		if err := u.r.runJob(ctx, "scaleKubernetesCluster", func() (cloudstack.AsyncRef, error) {
			return u.r.data.client.ScaleKubernetesCluster(ctx, *offerings)
		}); err != nil {
			return "Changing the offerings of cluster " + u.id, err
		}
	}
	if versionChange {
		version := u.plan.KubernetesVersionID.ValueString()
		if err := u.r.runJob(ctx, "upgradeKubernetesCluster", func() (cloudstack.AsyncRef, error) {
			return u.r.data.client.UpgradeKubernetesCluster(ctx, u.id, version)
		}); err != nil {
			return fmt.Sprintf("Upgrading cluster %s to Kubernetes version %s", u.id, version), err
		}
	}
	// Turning the autoscaler off comes before a size change: CloudStack
	// does not take a size while the autoscaler owns it.
	if autoscalingChange && !u.autoscaling.enabled() {
		if err := u.r.setAutoscaling(ctx, u.id, u.autoscaling); err != nil {
			return "Disabling the autoscaler of cluster " + u.id, err
		}
	}
	if sizeChange {
		size := u.plan.Size.ValueInt64()
		rep, err := u.engine.Scale(ctx, u.id, size)
		addReportWarnings(u.diags, rep)
		if err != nil {
			return fmt.Sprintf("Scaling cluster %s to %d workers", u.id, size), err
		}
	}
	if autoscalingChange && u.autoscaling.enabled() {
		if err := u.r.setAutoscaling(ctx, u.id, u.autoscaling); err != nil {
			return "Configuring the autoscaler of cluster " + u.id, err
		}
	}
	if wantStopped && needsRunning {
		if err := u.job(ctx, "stopKubernetesCluster", u.r.data.client.StopKubernetesCluster); err != nil {
			return "Stopping cluster " + u.id, err
		}
	}
	return "", nil
}

// refresh reads the cluster, first waiting for a running operation to end
// when wait is set.
func (u *clusterUpdate) refresh(ctx context.Context, wait bool) error {
	var (
		c   *cloudstack.Cluster
		err error
	)
	if wait {
		c, err = u.r.waitSettled(ctx, u.id, settled)
	} else {
		c, err = u.r.data.client.GetKubernetesCluster(ctx, u.id)
	}
	if err != nil {
		return err
	}
	u.cluster = c
	return nil
}

// job runs a start or stop and refreshes the cluster.
func (u *clusterUpdate) job(ctx context.Context, command string, start func(context.Context, string) (cloudstack.AsyncRef, error)) error {
	if err := u.r.runJob(ctx, command, func() (cloudstack.AsyncRef, error) { return start(ctx, u.id) }); err != nil {
		return err
	}
	return u.refresh(ctx, false)
}

// desiredSize is the worker count a recovery aims at: the configured size,
// or with the autoscaler on the workers the VM map has.
func (u *clusterUpdate) desiredSize() int64 {
	if !u.autoscaling.enabled() && known(u.plan.Size) {
		return u.plan.Size.ValueInt64()
	}
	return clusterops.MapWorkerCount(u.cluster)
}

// offeringChanges returns the scale parameters of the offering changes, or
// nil when there are none.
func (u *clusterUpdate) offeringChanges() *cloudstack.ScaleClusterParams {
	p := cloudstack.ScaleClusterParams{ID: u.id}
	if changedString(u.plan.ServiceOfferingID, u.prior.ServiceOfferingID) {
		p.ServiceOfferingID = u.plan.ServiceOfferingID.ValueString()
	}
	offerings := map[string]string{}
	for _, o := range []struct {
		role        string
		plan, prior interface {
			IsNull() bool
			IsUnknown() bool
			ValueString() string
		}
	}{
		{"control", u.plan.ControlOfferingID, u.prior.ControlOfferingID},
		{"worker", u.plan.WorkerOfferingID, u.prior.WorkerOfferingID},
		{"etcd", u.plan.EtcdOfferingID, u.prior.EtcdOfferingID},
	} {
		if v := knownString(o.plan); v != "" && v != knownString(o.prior) {
			offerings[o.role] = v
		}
	}
	if len(offerings) > 0 {
		p.NodeOfferings = offerings
	}
	if p.ServiceOfferingID == "" && p.NodeOfferings == nil {
		return nil
	}
	return &p
}

// autoscalingChanged compares the planned autoscaler with CloudStack's.
func (u *clusterUpdate) autoscalingChanged() bool {
	want := u.autoscaling
	if want.enabled() != u.cluster.AutoscalingEnabled {
		return true
	}
	return want.enabled() && (want.MinSize.ValueInt64() != u.cluster.MinSize || want.MaxSize.ValueInt64() != u.cluster.MaxSize)
}

// repairAfterFailure lets the rule engine verify and repair the cluster's
// SSH rules after a failed step; its own failure only adds a warning. The
// engine's refusals changed nothing and need no repair.
func (u *clusterUpdate) repairAfterFailure(ctx context.Context, cause error) {
	var hazard *clusterops.HazardError
	var recovery *clusterops.RecoveryNeededError
	if ctx.Err() != nil || errors.As(cause, &hazard) || errors.As(cause, &recovery) {
		return
	}
	rep, err := u.engine.Repair(ctx, u.id)
	addReportWarnings(u.diags, rep)
	if err != nil {
		u.diags.AddWarning("Cluster SSH Rules Not Verified",
			fmt.Sprintf("After the failure, verifying the SSH rules of cluster %s failed too: %s", u.id, err))
	}
}

// setAutoscaling turns the autoscaler on with its range, or off.
func (r *clusterResource) setAutoscaling(ctx context.Context, id string, as autoscalingModel) error {
	enabled := as.enabled()
	p := cloudstack.ScaleClusterParams{ID: id, AutoscalingEnabled: &enabled}
	if enabled {
		minSize, maxSize := as.MinSize.ValueInt64(), as.MaxSize.ValueInt64()
		p.MinSize, p.MaxSize = &minSize, &maxSize
	}
	err := r.runJob(ctx, "scaleKubernetesCluster", func() (cloudstack.AsyncRef, error) {
		return r.data.client.ScaleKubernetesCluster(ctx, p)
	})
	return err
}
