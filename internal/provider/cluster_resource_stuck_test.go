package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// TestAccCluster_stuckInEveryTransitionalState: CloudStack left the cluster
// in each transitional state of KubernetesCluster.State with no job
// running. A refresh warns, naming the state; an apply that changes the
// cluster and a destroy stop at once (not after the hour of the default
// timeouts) with what moves that state on: a stop, or only an
// administrator for Stopping. A cluster left in Destroying is deleted by a
// destroy, which CloudStack allows there.
func TestAccCluster_stuckInEveryTransitionalState(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	rec := &diagRecorder{}
	var id string
	setState := func(state string) func() {
		return func() {
			if err := env.Sim.SetClusterState(id, state); err != nil {
				t.Fatal(err)
			}
			rec.reset()
		}
	}
	steps := []resource.TestStep{{Config: env.etcdCluster(0, 1).String(), Check: recordClusterID(&id)}}
	for state, remedy := range map[string]string{
		clusterstate.Starting:              "A stop ends it",
		clusterstate.Stopping:              "Nothing in CloudStack moves a cluster on from Stopping",
		clusterstate.Scaling:               "A stop ends it",
		clusterstate.ScalingStoppedCluster: "A stop ends it",
		clusterstate.Upgrading:             "A stop ends it",
		clusterstate.Importing:             "A stop ends it",
		clusterstate.RemovingNodes:         "A stop ends it",
		clusterstate.Recovering:            "A stop ends it",
	} {
		stuck := errorFragments("Cluster Stuck in "+state, "no CloudStack job of it is running", remedy)
		steps = append(steps,
			resource.TestStep{
				PreConfig:   setState(state),
				Config:      env.etcdCluster(0, 2).String(),
				ExpectError: stuck,
			},
			resource.TestStep{
				PreConfig: func() {
					if len(rec.find("Cluster Stuck in "+state, remedy)) == 0 {
						t.Fatalf("no refresh warning for a cluster stuck in %s:\n%s", state, rec)
					}
				},
				Config:      env.etcdCluster(0, 2).String(),
				Destroy:     true,
				ExpectError: stuck,
			},
		)
	}
	steps = append(steps, resource.TestStep{
		// Destroying: the destroy deletes it; CheckDestroy finds nothing.
		PreConfig: setState(clusterstate.Destroying),
		Config:    env.etcdCluster(0, 1).String(),
		Destroy:   true,
	})
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: rec.factories(),
		CheckDestroy:             env.expectNothingLeft,
		Steps:                    steps,
	})
}
