package clusterops

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// cleanupTimeout bounds the work that must not be cut short by the caller's
// deadline: the verification and restore after a scale, the rule plan once
// its first change is made, the removal of the rules a deleted cluster left
// behind. Stopping half-way there loses rules or their ids for good, so it
// runs on a context detached from the caller's.
const cleanupTimeout = 3 * time.Minute

// scalingWaitTimeout bounds the wait for a scale that outlived the caller's
// deadline to end before the rules are verified.
const scalingWaitTimeout = 2 * time.Minute

// detached returns a context that keeps ctx's values but not its deadline
// or cancellation, bounded by cleanupTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// WaitSettled polls the cluster on the job schedule until done(state)
// holds, logging progress, and returns it; at ctx's end it returns the
// cluster as last read with the context's error.
func (e *Engine) WaitSettled(ctx context.Context, clusterID string, done func(state string) bool) (*cloudstack.Cluster, error) {
	return e.waitState(ctx, clusterID, done, nil)
}

// waitState is WaitSettled's loop; giveUp, when set, looks at each read that
// is not done and ends the wait with its error.
func (e *Engine) waitState(ctx context.Context, clusterID string, done func(state string) bool,
	giveUp func(*cloudstack.Cluster) error) (*cloudstack.Cluster, error) {
	start := time.Now()
	for {
		c, err := e.api.GetKubernetesCluster(ctx, clusterID)
		if err != nil {
			return nil, err
		}
		if done(c.State) {
			return c, nil
		}
		if giveUp != nil {
			if err := giveUp(c); err != nil {
				return c, err
			}
		}
		e.logf(ctx, "waiting for the cluster to settle", map[string]any{"cluster_id": clusterID, "state": c.State,
			"elapsed": time.Since(start).Round(time.Second).String()})
		if !cloudstack.Sleep(ctx, e.opts.Wait.NextInterval(time.Since(start))) {
			return c, fmt.Errorf("gave up waiting for cluster %s to leave state %s: %w", clusterID, c.State, ctx.Err())
		}
	}
}

// waitScaleOver waits, at most scalingWaitTimeout, until a scale whose
// wait was cut short is over: the server's rebuild of the rules must be
// over before the engine repairs them or restores the user rules it
// deletes. The job comes first when its id is known, because the cluster
// enters Scaling only once the job runs (KubernetesClusterScaleWorker's
// scaleUpKubernetesClusterSize and scaleDownKubernetesClusterSize make the
// transition), so a cluster still Running right after the call says
// nothing. Then, or when the job cannot be followed, the cluster must have
// left Scaling.
func (e *Engine) waitScaleOver(ctx context.Context, clusterID, jobID string, rep *Report) (*cloudstack.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, scalingWaitTimeout)
	defer cancel()
	if jobID != "" {
		switch _, err := e.wait(ctx, "scaleKubernetesCluster", jobID); {
		case err == nil:
			e.step(ctx, rep, StepScaled, "the scale job went on after the wait for it ended, and succeeded")
		case cloudstack.IsJobFailure(err):
			e.step(ctx, rep, StepScaled, fmt.Sprintf("the scale job went on after the wait for it ended, and failed: %v", err))
		}
	}
	return e.WaitSettled(ctx, clusterID, func(state string) bool {
		return state != clusterstate.Scaling && state != clusterstate.ScalingStoppedCluster
	})
}
