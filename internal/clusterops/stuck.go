package clusterops

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// stoppable are the transitional states a stop ends: the state machine of
// KubernetesCluster.State moves Scaling and Upgrading to Running on the
// stop worker's OperationSucceeded, and Starting, through Stopping, to
// Stopped.
func stoppable(state string) bool {
	switch state {
	case clusterstate.Scaling, clusterstate.Upgrading, clusterstate.Starting, clusterstate.ScalingStoppedCluster:
		return true
	}
	return false
}

// Stuck reports whether the cluster is in a transitional state that a
// stop ends while no job of it is pending among the jobs the credentials
// can see (an administrator's see every account's).
func (e *Engine) Stuck(ctx context.Context, c *cloudstack.Cluster) (bool, error) {
	if !stoppable(c.State) {
		return false, nil
	}
	jobs, err := e.api.ListAsyncJobs(ctx)
	if err != nil {
		return false, fmt.Errorf("listing the async jobs of cluster %s: %w", c.ID, err)
	}
	for _, j := range jobs {
		if j.Status == cloudstack.JobPending && strings.EqualFold(j.InstanceID, c.ID) {
			return false, nil
		}
	}
	return true, nil
}

// stuckConfirmations is how many reads in a row, a poll interval apart,
// must find a cluster stuck before it counts as stuck: a job that has just
// ended and moved the cluster on is then seen.
const stuckConfirmations = 2

// WaitActionable is WaitSettled for an operation that needs the cluster
// out of its transitional state, which gives up at once with a
// *StuckError when no job of the cluster is running.
func (e *Engine) WaitActionable(ctx context.Context, clusterID string, done func(state string) bool) (*cloudstack.Cluster, error) {
	seenStuck := 0
	return e.waitState(ctx, clusterID, done, func(c *cloudstack.Cluster) error {
		if stuck, err := e.Stuck(ctx, c); err == nil && stuck {
			if seenStuck++; seenStuck >= stuckConfirmations {
				return &StuckError{ClusterID: clusterID, State: c.State}
			}
		} else {
			seenStuck = 0
		}
		return nil
	})
}
