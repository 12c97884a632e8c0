package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// The create glue: it maps the plan onto clusterops.CreateRequest, lets
// the engine create and adopt (clusterops.Engine.Create), and turns the
// typed result into the state and diagnostics, naming the attributes.
//
// How a create is reported. Terraform marks a newly created resource
// tainted whenever Create returns an error diagnostic, and also when the
// state it returns differs from the plan in a value the plan knew
// ("inconsistent result after apply"); a tainted cluster is destroyed and
// re-created by the next apply. So:
//
//   - A cluster that failed (its job failed, or it was read in Error or
//     Alert) is deleted by the engine, or, when that is impossible, recorded
//     with an error: tainted, the next apply replaces it.
//   - A cluster that works is never tainted. When a step after the create
//     failed (the rule layout, the autoscaler, a Stopped state), or the
//     create was interrupted or ran out of time while CloudStack went on,
//     Create records it with a warning and no error. A step CloudStack
//     refused (autoscaling.max_size above cloud.kubernetes.cluster.max.size)
//     would fail the same way on a new cluster, so tainting would destroy a
//     healthy cluster and loop on every apply.
//   - The state records every value CloudStack reports, except a value the
//     plan knew and CloudStack does not show yet (autoscaling, state), which
//     Terraform requires to equal the plan: that keeps the planned value, and
//     the warning names it. The refresh before the next plan reads the
//     cluster and records what CloudStack reports (the autoscaler off, the
//     cluster running), so that plan shows the difference and the next apply
//     tries the step again in Update, which reports its error without
//     tainting anything.

// Create creates the cluster through the engine (clusterops.Engine.Create:
// no twin, the create sent once, a lost answer adopted only when provably
// ours, a failed cluster deleted only once read and found failed, then the
// steps after the create) and records what it made; reportCreate explains
// which outcomes taint the cluster and why a working one never is.
func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer func() { resp.Diagnostics.Append(identityFromState(ctx, resp.State, resp.Identity)...) }()
	op, diags := newCreateOp(ctx, req.Plan, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	timeout, deleteTimeout, diags := createTimeouts(ctx, op.plan)
	resp.Diagnostics.Append(diags...)
	creq, diags := createRequest(ctx, op, deleteTimeout)
	resp.Diagnostics.Append(diags...)
	// network_id may have been unknown at plan time: ssh_cidrs and
	// api_cidrs on a VPC tier are refused before anything is created.
	r.checkCreateNetwork(ctx, op.plan, &resp.Diagnostics)
	resp.Diagnostics.Append(op.recordCIDRs(ctx, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	opCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := r.engine().Create(opCtx, creq)
	r.reportCreate(ctx, req.Plan, op, timeout, res, err, resp)
	if err == nil && res.SetupErr == nil {
		resp.Diagnostics.Append(op.forgetUnusedCIDRs(ctx, res.Observation, resp.Private)...)
	}
}

// reportCreate turns the engine's create into the state and diagnostics.
func (r *clusterResource) reportCreate(ctx context.Context, plan tfsdk.Plan, op *clusterOp, timeout time.Duration,
	res clusterops.CreateResult, err error, resp *resource.CreateResponse,
) {
	m := op.plan
	if err != nil {
		r.reportCreateError(ctx, plan, op, err, resp)
		return
	}
	ctx = tflog.SetField(ctx, "cluster_id", res.ClusterID)
	tflog.Info(ctx, "created Kubernetes cluster", map[string]any{"outcome": res.Outcome.String(), "adopted": res.Adopted})
	kept := recordCreated(ctx, plan, m, res.ClusterID, res.Observation, resp)
	if res.Adopted {
		resp.Diagnostics.AddWarning("Cluster Adopted After a Lost Answer", fmt.Sprintf("%s. The provider looked for the "+
			"cluster and adopted %s: the one new cluster named %q whose every create parameter matches. The create was "+
			"sent once.", sentence(fmt.Sprintf("The answer to createKubernetesCluster was lost: %s", res.LostErr)), res.ClusterID,
			m.Name.ValueString()))
	}
	switch res.Outcome {
	case clusterops.CreateInterrupted, clusterops.CreateTimedOut, clusterops.CreateUnconfirmed:
		resp.Diagnostics.AddWarning(cutShortText(res, timeout))
		return
	}
	addCreateReport(ctx, &resp.Diagnostics, res.Report)
	if res.Report.Admin != nil {
		resp.Diagnostics.AddWarning("Cluster Needs an Administrator", adminText(res.Report.Admin))
	}
	if res.WaitErr != nil {
		resp.Diagnostics.AddWarning("Cluster Created Despite a Failed Job", fmt.Sprintf("The create job of cluster %s "+
			"reported a failure (%s), but the cluster came up (state %s), so it is kept.", res.ClusterID, res.WaitErr, stateOf(res)))
	}
	if len(res.Twins) > 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("name"), "Another Cluster Has This Name",
			fmt.Sprintf("Cluster %s was created as %q, and CloudStack now also has %s of that name, which another client "+
				"created meanwhile (two applies with separate states, for instance). Nothing was deleted: keep one of them "+
				"and delete the other, or import it into the state that should own it.", res.ClusterID, m.Name.ValueString(),
				clusterops.DescribeClusters(res.Twins)))
	}
	for _, healed := range res.Healed {
		resp.Diagnostics.AddWarning("Cluster Set-Up Step Retried", fmt.Sprintf("While setting up cluster %s a step "+
			"failed, and trying it again cured it (the cluster now shows it done): %s. Nothing is left to do.", res.ClusterID, healed))
	}
	switch {
	case res.SetupErr != nil:
		resp.Diagnostics.AddWarning("Cluster Created, Set-Up Incomplete", setUpIncompleteText(res, kept))
	case res.Observation == nil:
		resp.Diagnostics.AddWarning("Cluster Created, Not Read Back", fmt.Sprintf("Cluster %s was created, but reading it "+
			"back failed: %s. It is recorded in state with its id and not tainted; the next refresh reads the rest, and the "+
			"next apply finishes any remaining step.", res.ClusterID, res.ReadErr))
	case len(kept) > 0:
		resp.Diagnostics.AddWarning("Cluster Not As Planned", fmt.Sprintf("Every step of the create of cluster %s "+
			"succeeded, but CloudStack does not report the planned %s yet. The state keeps the planned values until the "+
			"next refresh; the next plan shows what is left to do.", res.ClusterID, strings.Join(kept, ", ")))
	}
}

// stateOf is the cluster's state as last read, or "unknown".
func stateOf(res clusterops.CreateResult) string {
	if res.Observation == nil {
		return "unknown"
	}
	return res.Observation.Cluster.State
}

// cutShortText words the warning of a create whose wait ended early after
// what ended it: an interrupt is not a timeout.
func cutShortText(res clusterops.CreateResult, timeout time.Duration) (summary, detail string) {
	kept := "It is recorded in state and not tainted, because nothing is wrong with it: the next refresh reads it, and " +
		"the next apply finishes the set-up (SSH rule layout, autoscaler, state) once it is up. If CloudStack's create " +
		"fails, the next plan replaces it."
	read := fmt.Sprintf("CloudStack reports it in state %s.", stateOf(res))
	if res.Observation == nil {
		read = fmt.Sprintf("Reading it now failed (%s); the next refresh reads it.", res.ReadErr)
	}
	switch res.Outcome {
	case clusterops.CreateInterrupted:
		return "Cluster Creation Interrupted", fmt.Sprintf("Terraform was interrupted while CloudStack was creating cluster "+
			"%s; CloudStack goes on creating it. %s %s", res.ClusterID, read, kept)
	case clusterops.CreateTimedOut:
		return "Cluster Creation Timed Out", fmt.Sprintf("Cluster %s did not come up within timeouts.create (%s); "+
			"CloudStack goes on creating it. %s %s Raise timeouts.create if clusters need longer.", res.ClusterID, timeout, read, kept)
	default:
		return "Cluster Creation Not Confirmed", fmt.Sprintf("The wait for the create job of cluster %s ended without "+
			"learning how the job ended (%s), and the cluster could not be read (%s). It was not deleted: nothing shows that "+
			"it failed. %s", res.ClusterID, res.WaitErr, res.ReadErr, kept)
	}
}

// setUpIncompleteText explains a step after the create that failed.
func setUpIncompleteText(res clusterops.CreateResult, kept []string) string {
	step, err := "A step after the create", res.SetupErr
	var se *clusterops.StepError
	if errors.As(err, &se) {
		step, err = se.Step, se.Err
	}
	_, failure := describeFailure(step, err)
	text := fmt.Sprintf("Cluster %s was created and is kept, not tainted. %s Replacing the cluster would not help: a new "+
		"one would need the same step. ", res.ClusterID, failure)
	if res.Observation != nil {
		if closed := res.Observation.ClosedSSH(); len(closed) > 0 {
			text += fmt.Sprintf("SSH does not reach these nodes now: %s. ", strings.Join(closed, ", "))
		}
	}
	if len(kept) > 0 {
		text += fmt.Sprintf("The state keeps the configuration's %s until the next refresh, which records what CloudStack "+
			"reports, ", strings.Join(kept, ", "))
	} else {
		text += "The state holds the cluster as CloudStack reports it, "
	}
	return text + "so the next plan shows what is left to do and the next apply tries the step again (fix the cause first)."
}

// reportCreateError turns a create that made no cluster, or a failed one,
// into diagnostics; a failed cluster that still exists is recorded (and
// tainted through the error).
func (r *clusterResource) reportCreateError(ctx context.Context, plan tfsdk.Plan, op *clusterOp, err error, resp *resource.CreateResponse) {
	var (
		taken   *clusterops.NameTakenError
		lost    *clusterops.LostCreateError
		notSent *clusterops.CreateNotSentError
		failed  *clusterops.CreateFailedError
	)
	name := op.plan.Name.ValueString()
	switch {
	case errors.As(err, &taken):
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cluster Name Already Taken", sentence(taken.Error())+
			" If one of them is the cluster this resource describes, import it instead of creating another. "+importHint(taken.Clusters)+
			"If the existing cluster is the one this resource replaces with create_before_destroy, give the new one another "+
			"name. Otherwise rename this cluster, or delete the other one.")
	case errors.As(err, &lost):
		detail := sentence(lost.Error()) + requestTimeoutHint(lost.Err)
		if candidates := lost.Candidates(); len(candidates) > 0 {
			detail += " If one of these clusters is the one this resource describes, import it; delete the ones that are " +
				"nobody's. " + importHint(candidates) + fmt.Sprintf("Until no other cluster named %q exists, the next apply "+
				"refuses to create one.", name)
		} else if lost.LookupErr != nil {
			detail += fmt.Sprintf(" Check CloudStack for a cluster named %q before applying again: the next apply refuses to "+
				"create a second one, and asks to import it instead.", name)
		} else {
			detail += fmt.Sprintf(" The next apply creates the cluster, unless one named %q appears meanwhile: then it refuses "+
				"to create a second one and asks to import it.", name)
		}
		resp.Diagnostics.AddError("Unable to Create Cluster", detail)
	case errors.As(err, &notSent):
		resp.Diagnostics.AddError("Unable to Create Cluster", sentence(notSent.Error())+
			" Check api_url and that the management server is reachable, then apply again.")
	case errors.As(err, &failed):
		r.reportFailedCreate(ctx, plan, op, failed, resp)
	default:
		// Refused, or the check before the create failed: nothing was made.
		resp.Diagnostics.AddError("Unable to Create Cluster", sentence(err.Error())+requestTimeoutHint(err))
	}
}

// requestTimeoutHint names request_timeout when a call ran out of it.
func requestTimeoutHint(err error) string {
	if !cloudstack.IsRequestTimeout(err) {
		return ""
	}
	return " The answer did not come within the provider's request_timeout (one HTTP request, not the resource's " +
		"timeouts); raise it if the management server answers slowly."
}

// importHint shows how to import each cluster.
func importHint(clusters []cloudstack.Cluster) string {
	var b strings.Builder
	for _, c := range clusters {
		fmt.Fprintf(&b, "To import %s: `terraform import <this resource's address> %s`, or an import block:\n\n"+
			"import {\n  to = <this resource's address>\n  id = %q\n}\n\n", c.ID, c.ID, c.ID)
	}
	return b.String()
}

// reportFailedCreate explains a failed create: deleted, gone, or kept
// (recorded and tainted through the error, so that the next apply
// replaces it).
func (r *clusterResource) reportFailedCreate(ctx context.Context, plan tfsdk.Plan, op *clusterOp, failed *clusterops.CreateFailedError, resp *resource.CreateResponse) {
	addReportWarnings(&resp.Diagnostics, failed.Report)
	id := failed.ClusterID
	switch {
	case failed.Deleted:
		resp.Diagnostics.AddError("Cluster Creation Failed", fmt.Sprintf("Creating cluster %s failed: %s. CloudStack keeps a "+
			"failed cluster (in Error or Alert); the provider read it in state %s, so the provider deleted it; nothing is left "+
			"behind and the next apply creates the cluster afresh.", id, failed.Err, failed.State))
		return
	case failed.Gone:
		resp.Diagnostics.AddError("Cluster Creation Failed", fmt.Sprintf("Creating cluster %s failed: %s. The cluster no "+
			"longer exists, so nothing is left behind; the next apply creates it afresh.", id, failed.Err))
		return
	}
	var why string
	switch {
	case failed.DeleteErr != nil:
		why = fmt.Sprintf("CloudStack keeps a failed cluster (in Error or Alert). Deleting the half-made cluster failed too: %s.",
			failed.DeleteErr)
	case failed.ReadErr != nil:
		why = fmt.Sprintf("Reading the cluster to confirm the failure failed (%s), so it was not deleted.", failed.ReadErr)
	case failed.CutShort:
		why = "The wait was cut short (interrupted or out of time) when the failure was found, so no delete was started."
	default:
		why = "It was not deleted."
	}
	var obs *clusterops.Observation
	if failed.ReadErr == nil {
		obs, _ = r.observe(ctx, op, id)
	}
	recordCreated(ctx, plan, op.plan, id, obs, resp)
	resp.Diagnostics.AddError("Cluster Creation Failed", fmt.Sprintf("Creating cluster %s failed: %s. %s It is kept in "+
		"state and marked tainted, so the next apply deletes and replaces it.", id, failed.Err, why))
}

// recordCreated puts a cluster Create made into state: as CloudStack
// reports it when obs is set, else by its id and the planned values
// (unknown ones null). Planned values that Terraform requires and
// CloudStack does not show yet are kept (see the comment at the top); it
// returns their attribute names.
func recordCreated(ctx context.Context, plan tfsdk.Plan, m *clusterResourceModel, id string, obs *clusterops.Observation,
	resp *resource.CreateResponse,
) []string {
	if obs != nil {
		rec := *m
		d := refreshModel(ctx, &rec, obs, resp.Private)
		if !d.HasError() {
			resp.Diagnostics.Append(d...)
			resp.Diagnostics.Append(resp.State.Set(ctx, &rec)...)
			kept, err := keepPlannedValues(plan.Raw, &resp.State)
			if err != nil {
				resp.Diagnostics.AddError("Unable to Record Cluster", fmt.Sprintf("Recording cluster %s failed: %s. This is a "+
					"bug in the provider; the next refresh reads the cluster.", id, err))
			}
			return kept
		}
		tflog.Warn(ctx, "could not record the cluster as read; recording the planned values", map[string]any{
			"error": d.Errors()[0].Detail()})
	}
	raw, err := nullUnknowns(plan.Raw)
	if err == nil {
		resp.State.Raw = raw
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
		return nil
	}
	resp.Diagnostics.AddError("Unable to Record Cluster", fmt.Sprintf("Recording cluster %s failed: %s. This is a bug in "+
		"the provider; the cluster exists in CloudStack.", id, err))
	return nil
}

// keepPlannedValues gives every top-level attribute whose planned value
// was wholly known that value in state, and returns the names of those it
// changed: Terraform refuses, and taints, a created resource whose state
// differs from such a value.
func keepPlannedValues(planned tftypes.Value, state *tfsdk.State) ([]string, error) {
	var want, got map[string]tftypes.Value
	if err := planned.As(&want); err != nil {
		return nil, err
	}
	if err := state.Raw.As(&got); err != nil {
		return nil, err
	}
	var kept []string
	for name, p := range want {
		if !p.IsFullyKnown() || p.Equal(got[name]) {
			continue
		}
		got[name] = p
		kept = append(kept, name)
	}
	if len(kept) == 0 {
		return nil, nil
	}
	slices.Sort(kept)
	state.Raw = tftypes.NewValue(state.Raw.Type(), got)
	return kept, nil
}

// nullUnknowns replaces every unknown value in v by null.
func nullUnknowns(v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
}
