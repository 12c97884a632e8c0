package clusterops

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// What moves a cluster out of each transitional state once the job that put
// it there is gone, read in KubernetesCluster.State's state machine, the
// workers and KubernetesClusterManagerImpl (stopKubernetesCluster,
// startKubernetesCluster, the state scanner and the garbage collector):
//
//   - stopKubernetesCluster runs its worker in every state but Stopped and
//     Stopping (which it takes as a stop under way and answers with
//     success). The worker's StopRequested only moves Starting (to
//     Stopping); elsewhere the transition is missing, which stateTransitTo
//     only logs, and the worker stops the VMs and sends OperationSucceeded:
//     Starting and ScalingStoppedCluster end in Stopped, Scaling,
//     Upgrading, Importing, RemovingNodes and Recovering in Running with the
//     VMs stopped (where the scanner moves it to Alert, then Stopped).
//   - Nothing moves Stopping: the stop is a no-op there, the scanner passes
//     Running, Stopped and Alert clusters only, and the destroy worker
//     refuses it (KubernetesClusterDestroyWorker.validateClusterSate).
//   - Destroying accepts a delete, which runs the destroy again; the garbage
//     collector retries, every 5 minutes, a destroy that failed and flagged
//     the cluster (checkForGc), and the scanner's first pass after a
//     management server start retries every Destroying cluster.
//   - The scanner's first pass also fails Starting clusters created more than
//     10 minutes before (to Alert).

// stoppable are the transitional states a stop ends (see above).
func stoppable(state string) bool {
	switch state {
	case clusterstate.Starting, clusterstate.Scaling, clusterstate.ScalingStoppedCluster, clusterstate.Upgrading,
		clusterstate.Importing, clusterstate.RemovingNodes, clusterstate.Recovering:
		return true
	}
	return false
}

// Stuck reports whether the cluster is in a transitional state while no
// job of it is pending among the jobs the credentials can see (an
// administrator's see every account's).
func (e *Engine) Stuck(ctx context.Context, c *cloudstack.Cluster) (bool, error) {
	if !clusterstate.Transitional(c.State) {
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

// Way out of a stuck state, as StuckError says it.
func stuckRemedy(id, state string) string {
	switch {
	case state == clusterstate.Stopping:
		return "Nothing in CloudStack moves a cluster on from Stopping without its job: a stop of a Stopping cluster " +
			"is taken as one under way and does nothing (KubernetesClusterManagerImpl.stopKubernetesCluster), the state " +
			"scanner passes only Running, Stopped and Alert clusters, and a delete is refused " +
			"(KubernetesClusterDestroyWorker.validateClusterSate). An administrator must set its state, best to Alert " +
			"(`UPDATE kubernetes_cluster SET state = 'Alert' WHERE uuid = '" + id + "'`): the scanner then moves it, " +
			"within 30 seconds, to Stopped when its VMs are stopped or to Running when they run and it is healthy"
	case state == clusterstate.Destroying:
		return "Only a delete moves a cluster on from Destroying: CloudStack refuses every other operation on it. " +
			"Delete it (terraform destroy, or `cmk delete kubernetescluster id=" + id + "`), which runs the destroy again; " +
			"CloudStack's garbage collector also retries it every 5 minutes when the failed destroy flagged it, and the " +
			"state scanner's first pass after a management server start"
	case stoppable(state):
		return fmt.Sprintf("A stop ends it: stopKubernetesCluster runs in %s, stops the VMs and moves the cluster %s "+
			"(KubernetesClusterStopWorker.stop, KubernetesCluster.State), `cmk stop kubernetescluster id=%s`, or "+
			"state = \"Stopped\" here; start or delete it after", state, stopEnd(state), id)
	}
	return "An administrator must look at it"
}

// stopEnd says where a stop leaves a stuck cluster.
func stopEnd(state string) string {
	switch state {
	case clusterstate.Starting, clusterstate.ScalingStoppedCluster:
		return "to Stopped"
	}
	return "back to Running with its VMs stopped, where a second stop, or the state scanner, takes it to Stopped"
}
