package clusterops

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Every transitional state of KubernetesCluster.State is stuck when no job
// of the cluster runs, and the error says what moves it on in that state.
func TestStuckErrorNamesWhatEndsEachState(t *testing.T) {
	t.Parallel()
	for state, want := range map[string][]string{
		clusterstate.Starting:              {"A stop ends it", "moves the cluster to Stopped"},
		clusterstate.Stopping:              {"Nothing in CloudStack moves a cluster on from Stopping", "SET state = 'Alert'"},
		clusterstate.Scaling:               {"A stop ends it", "back to Running with its VMs stopped"},
		clusterstate.ScalingStoppedCluster: {"A stop ends it", "moves the cluster to Stopped"},
		clusterstate.Upgrading:             {"A stop ends it", "back to Running"},
		clusterstate.Importing:             {"A stop ends it", "back to Running"},
		clusterstate.RemovingNodes:         {"A stop ends it", "back to Running"},
		clusterstate.Recovering:            {"A stop ends it", "back to Running"},
		clusterstate.Destroying:            {"Only a delete moves a cluster on from Destroying", "garbage collector"},
	} {
		if !clusterstate.Transitional(state) {
			t.Errorf("%s is not transitional", state)
		}
		e := &StuckError{ClusterID: "c-1", State: state}
		for _, w := range want {
			if !strings.Contains(e.Error(), w) {
				t.Errorf("%s: %q lacks %q", state, e.Error(), w)
			}
		}
		if stoppable := state != clusterstate.Stopping && state != clusterstate.Destroying; e.Stoppable() != stoppable {
			t.Errorf("%s: Stoppable() = %v", state, e.Stoppable())
		}
	}
}

// The engine finds a cluster stuck in any transitional state without a
// job, and never one in a settled state.
func TestStuckInEveryTransitionalState(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("stuck", 0, 1)
	eng := env.engine()
	for _, state := range []string{clusterstate.Starting, clusterstate.Stopping, clusterstate.Scaling,
		clusterstate.ScalingStoppedCluster, clusterstate.Upgrading, clusterstate.Importing, clusterstate.RemovingNodes,
		clusterstate.Recovering, clusterstate.Destroying, clusterstate.Running, clusterstate.Alert, clusterstate.Stopped} {
		if err := env.Sim.SetClusterState(id, state); err != nil {
			t.Fatal(err)
		}
		stuck, err := eng.Stuck(env.ctx(), &cloudstack.Cluster{ID: id, State: state})
		if err != nil || stuck != clusterstate.Transitional(state) {
			t.Errorf("%s: stuck = %v, %v", state, stuck, err)
		}
	}
}
