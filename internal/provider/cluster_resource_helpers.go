package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// readBackTimeout bounds the read that records the real state after an
// operation failed or ran out of time (its own context may be over).
const readBackTimeout = 2 * time.Minute

// privateNetworkKind caches the cluster's network kind, which never changes,
// so that a refresh needs one API call.
const privateNetworkKind = "network_kind"

// transitionalStates are the cluster states an operation is still running in
// (spec §3.9); the provider waits for them to end before acting.
var transitionalStates = map[string]bool{
	"Starting": true, "Stopping": true, "Scaling": true, "ScalingStoppedCluster": true, "Upgrading": true,
	"Importing": true, "RemovingNodes": true, "Recovering": true, "Destroying": true,
}

// runJob starts an async CKS command and waits for its job within ctx.
func (r *clusterResource) runJob(ctx context.Context, command string, start func() (cloudstack.AsyncRef, error)) error {
	ref, err := start()
	if err != nil {
		return err
	}
	tflog.Debug(ctx, "waiting for CloudStack job", map[string]any{"command": command, "cloudstack_job_id": ref.JobID})
	opts := clusterJobWait
	opts.Command = command
	_, err = cloudstack.WaitForJob(ctx, r.data.client, ref.JobID, opts)
	return err
}

// waitSettled polls the cluster until it leaves the states in which
// CloudStack is still working on it (done reports whether a state is final),
// on the same schedule as a job.
func (r *clusterResource) waitSettled(ctx context.Context, id string, done func(state string) bool) (*cloudstack.Cluster, error) {
	start := time.Now()
	interval := clusterJobWait.NextInterval(0, 0)
	for {
		c, err := r.data.client.GetKubernetesCluster(ctx, id)
		if err != nil {
			return nil, err
		}
		if done(c.State) {
			return c, nil
		}
		tflog.Debug(ctx, "waiting for the cluster to settle", map[string]any{"cluster_id": id, "state": c.State})
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return c, fmt.Errorf("gave up waiting for cluster %s to leave state %s: %w", id, c.State, ctx.Err())
		case <-timer.C:
		}
		interval = clusterJobWait.NextInterval(time.Since(start), interval)
	}
}

// settled is the done test of waitSettled for operations on an existing cluster.
func settled(state string) bool { return !transitionalStates[state] }

// readBack reads the cluster after an operation, also when the operation's
// context is over, so that the state can hold what CloudStack reports.
func (r *clusterResource) readBack(ctx context.Context, id string) (*cloudstack.Cluster, error) {
	if ctx.Err() == nil {
		return r.data.client.GetKubernetesCluster(ctx, id)
	}
	fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	return r.data.client.GetKubernetesCluster(fresh, id)
}

// networkKind returns the cluster's network kind, from private state when
// a previous operation cached it.
func (r *clusterResource) networkKind(ctx context.Context, c *cloudstack.Cluster, cached []byte) (rules.NetworkKind, []byte, error) {
	var kind rules.NetworkKind
	if len(cached) > 0 && json.Unmarshal(cached, &kind) == nil && kind != "" {
		return kind, cached, nil
	}
	kind, err := clusterops.NetworkKindOf(ctx, r.data.client, c)
	if err != nil {
		return "", nil, fmt.Errorf("reading network %s of cluster %s: %w", c.NetworkID, c.ID, err)
	}
	raw, err := json.Marshal(kind)
	if err != nil {
		return "", nil, err
	}
	return kind, raw, nil
}

// privateState is the part of the framework's private state the resource
// uses (resource responses' Private fields implement it).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// refreshModel sets m's observed attributes from c, keeping the inputs the
// API does not return. prior is the private state to read the network kind
// from, next the one to write it to (either may be nil).
func (r *clusterResource) refreshModel(ctx context.Context, m *clusterResourceModel, c *cloudstack.Cluster, prior, next privateState) diag.Diagnostics {
	var diags diag.Diagnostics
	var cached []byte
	if prior != nil {
		var d diag.Diagnostics
		cached, d = prior.GetKey(ctx, privateNetworkKind)
		diags.Append(d...)
	}
	kind, raw, err := r.networkKind(ctx, c, cached)
	switch {
	case err != nil:
		// Only the nodes' SSH ports depend on it: guess from the cluster's
		// own fields (without caching the guess) rather than lose the state.
		kind = rules.NetworkDirect
		if c.IPAddressID != "" {
			kind = rules.NetworkIsolated
		}
		diags.AddWarning("Cluster Network Not Read", fmt.Sprintf("The SSH ports of the nodes assume a %s network: %s", kind, err))
	case next != nil:
		diags.Append(next.SetKey(ctx, privateNetworkKind, raw)...)
	}
	diags.Append(m.refresh(ctx, c, kind, r.data.etcdSSHStartPort)...)
	r.refreshSSHRulesInSync(ctx, m, c, kind)
	as, d := refreshedAutoscaling(ctx, m.Autoscaling, c)
	diags.Append(d...)
	m.Autoscaling = as
	if m.RecreateUserHazardRules.IsNull() || m.RecreateUserHazardRules.IsUnknown() {
		m.RecreateUserHazardRules = types.BoolValue(false)
	}
	if m.AllowRestartForRecovery.IsNull() || m.AllowRestartForRecovery.IsUnknown() {
		m.AllowRestartForRecovery = types.BoolValue(false)
	}
	return diags
}

// addReportWarnings turns what the rule engine changed into one warning.
func addReportWarnings(diags *diag.Diagnostics, rep clusterops.Report) {
	var changed, blocked []string
	for _, s := range rep.Steps {
		switch s.Kind {
		case clusterops.StepScaled, clusterops.StepNote:
		case clusterops.StepBlocked:
			blocked = append(blocked, s.Message)
		default:
			changed = append(changed, s.Message)
		}
	}
	if len(changed) > 0 {
		diags.AddWarning("Cluster SSH Rules Changed",
			fmt.Sprintf("While working on cluster %s the provider changed or checked its network rules:\n- %s",
				rep.ClusterID, strings.Join(changed, "\n- ")))
	}
	if len(blocked) > 0 {
		// Separate, so that what needs a person is not lost among routine changes.
		diags.AddWarning("Cluster SSH Rules Need Attention",
			fmt.Sprintf("While working on cluster %s the provider could not do the following; check these rules yourself:\n- %s",
				rep.ClusterID, strings.Join(blocked, "\n- ")))
	}
}

// describeFailure explains an operation's error for a diagnostic, pointing
// to the opt-in when the rule engine asks for one.
func describeFailure(what string, err error) (summary, detail string) {
	var hazard *clusterops.HazardError
	var recovery *clusterops.RecoveryNeededError
	switch {
	case errors.As(err, &hazard):
		return "Unsafe Cluster Scale", sentence(err.Error())
	case errors.As(err, &recovery):
		return "Cluster Needs Recovery", sentence(err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return "Cluster Operation Timed Out", fmt.Sprintf("%s did not finish within the configured timeout: %s. "+
			"CloudStack may still be working on it; raise timeouts if the cluster needs longer.", what, err)
	default:
		return "Cluster Operation Failed", sentence(fmt.Sprintf("%s failed: %s", what, err))
	}
}

// sentence ends s with a period, so that more sentences can follow.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
