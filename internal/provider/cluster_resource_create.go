package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// adoptWindow is how far the created time of a cluster found after a lost
// create response may lie from the moment the request was sent (clock skew
// between the client and the management server included).
const adoptWindow = 5 * time.Minute

// cloudStackTimeLayout is CloudStack's date format (yyyy-MM-dd'T'HH:mm:ssZ).
const cloudStackTimeLayout = "2006-01-02T15:04:05-0700"

// createFailedError is a create whose cluster exists but did not come up:
// the job failed (CloudStack keeps the cluster in Error or Alert) or the
// wait ran out of time.
type createFailedError struct {
	ClusterID string
	Err       error
	TimedOut  bool
}

func (e *createFailedError) Error() string {
	return fmt.Sprintf("creating cluster %s failed: %s", e.ClusterID, e.Err)
}

func (e *createFailedError) Unwrap() error { return e.Err }

// createdUnreadError is a create whose job succeeded but whose cluster could
// not be read back: the cluster exists and is healthy, so it must be
// recorded, not deleted or tainted.
type createdUnreadError struct {
	ClusterID string
	Err       error
}

func (e *createdUnreadError) Error() string {
	return fmt.Sprintf("cluster %s was created, but reading it back failed: %s", e.ClusterID, e.Err)
}

func (e *createdUnreadError) Unwrap() error { return e.Err }

// createParams maps the plan onto createKubernetesCluster. With the
// autoscaler on, the cluster starts with min_size workers.
func createParams(m clusterResourceModel, as autoscalingModel) cloudstack.CreateClusterParams {
	p := cloudstack.CreateClusterParams{
		Ownership: cloudstack.Ownership{
			Account:   knownString(m.Account),
			DomainID:  knownString(m.DomainID),
			ProjectID: knownString(m.ProjectID),
		},
		Name:                m.Name.ValueString(),
		Description:         knownString(m.Description),
		ZoneID:              m.ZoneID.ValueString(),
		KubernetesVersionID: m.KubernetesVersionID.ValueString(),
		ServiceOfferingID:   knownString(m.ServiceOfferingID),
		ControlNodes:        m.ControlNodes.ValueInt64(),
		EtcdNodes:           m.EtcdNodes.ValueInt64(),
		NodeRootDiskSize:    m.NodeRootDiskSize.ValueInt64(),
		Keypair:             knownString(m.Keypair),
		NetworkID:           knownString(m.NetworkID),
		Hypervisor:          knownString(m.Hypervisor),
	}
	switch {
	case known(m.Size):
		p.Size = m.Size.ValueInt64()
	case as.enabled():
		p.Size = as.MinSize.ValueInt64()
	}
	offerings := map[string]string{}
	for role, v := range map[string]string{
		"control": knownString(m.ControlOfferingID),
		"worker":  knownString(m.WorkerOfferingID),
		"etcd":    knownString(m.EtcdOfferingID),
	} {
		if v != "" {
			offerings[role] = v
		}
	}
	if len(offerings) > 0 {
		p.NodeOfferings = offerings
	}
	return p
}

// createCluster sends createKubernetesCluster once and waits for the
// cluster to come up. When the response was lost in transit, the cluster is
// looked up instead of sending the create again.
func (r *clusterResource) createCluster(ctx context.Context, p cloudstack.CreateClusterParams) (*cloudstack.Cluster, error) {
	sentAt := time.Now()
	ref, err := r.data.client.CreateKubernetesCluster(ctx, p)
	switch {
	case err == nil && ref.ID != "":
		tflog.Debug(ctx, "createKubernetesCluster accepted", map[string]any{"cluster_id": ref.ID, "cloudstack_job_id": ref.JobID})
		opts := clusterJobWait
		opts.Command = "createKubernetesCluster"
		_, jobErr := cloudstack.WaitForJob(ctx, r.data.client, ref.JobID, opts)
		if jobErr != nil {
			return r.createJobFailed(ctx, ref.ID, jobErr)
		}
		c, readErr := r.readBack(ctx, ref.ID)
		if readErr != nil {
			return nil, &createdUnreadError{ClusterID: ref.ID, Err: readErr}
		}
		return c, nil
	case err == nil:
		return nil, errors.New("createKubernetesCluster returned no cluster id; check CloudStack for a new cluster named " + p.Name)
	case cloudstack.IsTransient(err):
		found, adoptErr := r.adoptLostCreate(ctx, p, sentAt, err)
		if adoptErr != nil {
			return nil, adoptErr
		}
		c, waitErr := r.engine().WaitSettled(ctx, found.ID, createFinished)
		if waitErr != nil {
			return nil, &createFailedError{ClusterID: found.ID, Err: waitErr, TimedOut: errors.Is(waitErr, context.DeadlineExceeded)}
		}
		if c.State != clusterRunning {
			return nil, &createFailedError{ClusterID: c.ID, Err: fmt.Errorf("the cluster ended in state %s", c.State)}
		}
		return c, nil
	default:
		return nil, fmt.Errorf("CloudStack refused to create cluster %q: %w", p.Name, err)
	}
}

// createJobFailed decides what a failed wait for the create job means: the
// job failed or the wait ran out of time (the cluster exists either way), or
// only polling failed and the cluster is in fact running.
func (r *clusterResource) createJobFailed(ctx context.Context, id string, jobErr error) (*cloudstack.Cluster, error) {
	if errors.Is(jobErr, context.DeadlineExceeded) || ctx.Err() != nil {
		return nil, &createFailedError{ClusterID: id, Err: jobErr, TimedOut: true}
	}
	if cloudstack.KindOf(jobErr) == cloudstack.KindBusiness {
		// The job itself failed: CloudStack keeps the cluster in Error or Alert.
		return nil, &createFailedError{ClusterID: id, Err: jobErr}
	}
	// Only polling failed; the cluster may still be coming up. Decide on the
	// state it settles in, never on a guess.
	c, err := r.engine().WaitSettled(ctx, id, createFinished)
	switch {
	case err != nil:
		return nil, &createFailedError{ClusterID: id, Err: fmt.Errorf("%w (and watching the cluster failed: %v)", jobErr, err), TimedOut: true}
	case c.State == clusterRunning:
		tflog.Warn(ctx, "polling the create job failed but the cluster is running; keeping it", map[string]any{
			"cluster_id": id, "error": jobErr.Error(),
		})
		return c, nil
	}
	return nil, &createFailedError{ClusterID: id, Err: fmt.Errorf("%w; the cluster ended in state %s", jobErr, c.State)}
}

// createFinished is the done test of waitSettled for a create in progress.
func createFinished(state string) bool {
	return state != cloudstack.ClusterCreated && clusterops.Settled(state)
}

// adoptLostCreate looks for the cluster a create whose response was lost
// may have made: the same name, zone and owner, created in the last few
// minutes. Exactly one such cluster is adopted; otherwise the create fails
// without being sent again, because a blind retry could make a second
// cluster.
func (r *clusterResource) adoptLostCreate(ctx context.Context, p cloudstack.CreateClusterParams, sentAt time.Time, sendErr error) (*cloudstack.Cluster, error) {
	var found []cloudstack.Cluster
	for attempt := 0; ; attempt++ {
		clusters, err := r.data.client.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{Ownership: p.Ownership, Name: p.Name})
		if err != nil {
			return nil, fmt.Errorf("the response to createKubernetesCluster was lost (%v), and looking for the cluster it may have "+
				"created failed too: %w. The create was not sent again; check CloudStack for a cluster named %q before applying again",
				sendErr, err, p.Name)
		}
		for _, c := range clusters {
			if c.Name == p.Name && c.ZoneID == p.ZoneID && createdAround(c.Created, sentAt) {
				found = append(found, c)
			}
		}
		// A server that timed out may still be inserting the cluster: look
		// again a few times before concluding that the request never arrived.
		if len(found) > 0 || attempt >= len(lostCreateRechecks) || !sleepOrDone(ctx, lostCreateRechecks[attempt]) {
			break
		}
	}
	switch len(found) {
	case 1:
		tflog.Warn(ctx, "adopted the cluster created by a create request whose response was lost", map[string]any{
			"cluster_id": found[0].ID, "error": sendErr.Error(),
		})
		return &found[0], nil
	case 0:
		return nil, fmt.Errorf("createKubernetesCluster got no answer (%v), and no cluster named %q created since %s exists in zone %s, "+
			"so the request most likely never reached CloudStack. The create was not sent again: check CloudStack for it before "+
			"applying again, since a slow server may still add it",
			sendErr, p.Name, sentAt.Add(-adoptWindow).UTC().Format(time.RFC3339), p.ZoneID)
	default:
		ids := make([]string, 0, len(found))
		for _, c := range found {
			ids = append(ids, c.ID)
		}
		return nil, fmt.Errorf("createKubernetesCluster got no answer (%v), and %d clusters named %q were created in zone %s in the "+
			"last minutes (%s), so the provider cannot tell which one this create made. Import the right one with "+
			"`terraform import` and delete the others", sendErr, len(found), p.Name, p.ZoneID, strings.Join(ids, ", "))
	}
}

// lostCreateRechecks are the pauses before looking again for the cluster of
// a create whose response was lost.
var lostCreateRechecks = []time.Duration{2 * time.Second, 5 * time.Second}

// sleepOrDone waits d, or returns false early when ctx ends.
func sleepOrDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// createdAround reports whether a CloudStack created time lies within
// adoptWindow of sentAt (or later, up to adoptWindow past now).
func createdAround(created string, sentAt time.Time) bool {
	t, err := time.Parse(cloudStackTimeLayout, created)
	if err != nil {
		return false
	}
	return !t.Before(sentAt.Add(-adoptWindow)) && !t.After(time.Now().Add(adoptWindow))
}

// cleanUpFailedCreate deletes the half-made cluster of a failed create, or
// records it in state (tainted, through the error) when it cannot be deleted
// or is still being created, and says which.
func (r *clusterResource) cleanUpFailedCreate(ctx context.Context, plan *clusterResourceModel, failed *createFailedError, resp *resource.CreateResponse) {
	id := failed.ClusterID
	if failed.TimedOut {
		r.recordCreated(ctx, plan, id, resp)
		resp.Diagnostics.AddError("Cluster Creation Timed Out", fmt.Sprintf("Cluster %s did not come up within the create timeout (%s). "+
			"CloudStack may still be creating it, so it was not deleted: it is kept in state and marked tainted, and the next apply "+
			"deletes and replaces it once CloudStack has finished. Raise timeouts.create if clusters need longer.", id, failed.Err))
		return
	}
	timeout, diags := plan.Timeouts.Delete(ctx, defaultClusterTimeout)
	resp.Diagnostics.Append(diags...)
	delCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	delErr := r.deleteCluster(delCtx, plan, id, nil, &resp.Diagnostics)
	if delErr == nil {
		resp.Diagnostics.AddError("Cluster Creation Failed", fmt.Sprintf("Creating cluster %s failed: %s. CloudStack keeps a failed "+
			"cluster (in Error or Alert), so the provider deleted it; nothing is left behind and the next apply creates the cluster afresh.",
			id, failed.Err))
		return
	}
	r.recordCreated(ctx, plan, id, resp)
	resp.Diagnostics.AddError("Cluster Creation Failed", fmt.Sprintf("Creating cluster %s failed: %s. Deleting the half-made cluster "+
		"failed too: %s. It is kept in state and marked tainted, so the next apply deletes and replaces it.", id, failed.Err, delErr))
}

// knownString is the value of a known string, else "".
func knownString(v interface {
	IsNull() bool
	IsUnknown() bool
	ValueString() string
},
) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

// recordUnread records a healthy cluster whose read-back after the create
// failed. It is not tainted: nothing is wrong with it, and the next refresh
// fills in what could not be read; follow-up steps (stop, autoscaling) run
// on the next apply.
func (r *clusterResource) recordUnread(ctx context.Context, plan *clusterResourceModel, unread *createdUnreadError, resp *resource.CreateResponse) {
	var readDiags diag.Diagnostics
	if !r.saveRealState(ctx, plan, unread.ClusterID, resp.Private, &resp.State, &readDiags) {
		recordPlanned(ctx, plan, unread.ClusterID, resp)
	}
	resp.Diagnostics.AddWarning("Cluster Created, Not Read Back", fmt.Sprintf("%s. The cluster is recorded in state with its "+
		"id; the next refresh reads the rest, and the next apply finishes any remaining step.", unread))
}

// recordCreated puts a cluster that Create made into state, as CloudStack
// reports it or, when it cannot be read, with its id and the planned values,
// so that it is never lost: the create's error marks it tainted.
func (r *clusterResource) recordCreated(ctx context.Context, plan *clusterResourceModel, id string, resp *resource.CreateResponse) {
	if r.saveRealState(ctx, plan, id, resp.Private, &resp.State, &resp.Diagnostics) {
		return
	}
	recordPlanned(ctx, plan, id, resp)
}

// recordPlanned records a created cluster by its id and the planned values,
// unknown ones as null, when CloudStack cannot be read.
func recordPlanned(ctx context.Context, plan *clusterResourceModel, id string, resp *resource.CreateResponse) {
	m := *plan
	m.ID = types.StringValue(id)
	for _, v := range []*types.String{&m.Description, &m.ServiceOfferingID, &m.ControlOfferingID, &m.WorkerOfferingID,
		&m.EtcdOfferingID, &m.NetworkID, &m.Account, &m.DomainID, &m.ProjectID, &m.Endpoint, &m.IPAddress, &m.IPAddressID, &m.Created} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	if m.Size.IsUnknown() {
		m.Size = types.Int64Null()
	}
	if m.Nodes.IsUnknown() {
		m.Nodes = types.ListNull(nodeObjectType)
	}
	if m.SSHRulesInSync.IsUnknown() {
		m.SSHRulesInSync = types.BoolNull()
	}
	if m.CloudStackState.IsUnknown() {
		m.CloudStackState = types.StringNull()
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
