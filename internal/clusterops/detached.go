package clusterops

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// cleanupTimeout bounds the work that must not be cut short by the caller's
// deadline: the verification and restore after a scale, the re-creation of
// a rule the engine has just deleted, the removal of the rules a deleted
// cluster left behind. Stopping half-way there loses rules or their ids for
// good, so it runs on a context detached from the caller's.
const cleanupTimeout = 3 * time.Minute

// scalingWaitTimeout bounds the wait for a scale that outlived the caller's
// deadline to end before the rules are verified.
const scalingWaitTimeout = 2 * time.Minute

// detached returns a context that keeps ctx's values but not its deadline
// or cancellation, bounded by cleanupTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// scaling reports whether CloudStack is still running a scale of the cluster.
func scaling(state string) bool {
	return state == stateScaling || state == stateScalingStopped
}

// waitScalingEnds polls the cluster until it leaves Scaling, at most
// scalingWaitTimeout: the server's rebuild of the rules must be over
// before the engine repairs them or restores the user rules it deletes.
func (e *Engine) waitScalingEnds(ctx context.Context, clusterID string) (*cloudstack.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, scalingWaitTimeout)
	defer cancel()
	start := time.Now()
	var interval time.Duration
	for {
		c, err := e.api.GetKubernetesCluster(ctx, clusterID)
		if err != nil {
			return nil, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
		}
		if !scaling(c.State) {
			return c, nil
		}
		interval = e.opts.Wait.NextInterval(time.Since(start), interval)
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return c, fmt.Errorf("the cluster %s is still %s after %s: %w", clusterID, c.State, scalingWaitTimeout, ctx.Err())
		case <-t.C:
		}
	}
}
