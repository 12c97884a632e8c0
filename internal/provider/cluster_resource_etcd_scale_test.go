package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// TestAccCluster_scaleSequenceKeepsEverySSHPath scales, on every server
// profile, a cluster with separate etcd nodes 1→2→1→2→1 through the
// provider, then three times through the plain API as another client (the
// UI, cmk, the autoscaler) would: every scale succeeds, every SSH path
// works after each one, the state is what CloudStack reports, and the plan
// after every apply is empty. On 4.22.1.1 the plain API alone breaks such
// a cluster at its second scale. Clusters are configured without node
// offerings (CloudStack records the worker offering at the first scale)
// and with them.
func TestAccCluster_scaleSequenceKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name          string
		etcd          int
		userNetwork   bool
		roleOfferings bool
	}{{"etcd3", 3, false, false}, {"etcd1", 1, false, false}, {"etcd3-user-network", 3, true, false}, {"etcd3-role-offerings", 3, false, true}}
	for _, profile := range simulator.Profiles() {
		for _, shape := range shapes {
			t.Run(profile+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				env := newSimEnv(t, simtest.WithProfile(profile))
				cluster := env.etcdCluster(shape.etcd, 1)
				if shape.userNetwork {
					cluster = cluster.on(env.Info.IsolatedNetworkID)
				}
				if shape.roleOfferings {
					cluster = cluster.set("control_offering_id", env.Info.LargeServiceOfferingID).
						set("worker_offering_id", env.Info.ServiceOfferingID).set("etcd_offering_id", env.Info.ServiceOfferingID)
				}
				var id string
				steps := []resource.TestStep{}
				for i, size := range []int{1, 2, 1, 2, 1} {
					step := resource.TestStep{
						Config:           cluster.size(size).String(),
						ConfigPlanChecks: emptyPlanAfterApply,
						ConfigStateChecks: []statecheck.StateCheck{
							expectAttr("size", knownvalue.Int64Exact(int64(size))),
							expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
						},
						Check: resource.ComposeTestCheckFunc(env.checkCluster(t, clusterAddr, int64(size), etcdFirewalls(size, shape.etcd)),
							env.expectStateMatchesCloudStack(clusterAddr)),
					}
					if i == 0 {
						check := step.Check
						step.Check = func(s *terraform.State) error {
							var err error
							if id, err = clusterID(s); err != nil {
								return err
							}
							return check(s)
						}
					}
					steps = append(steps, step)
				}
				steps = append(steps, resource.TestStep{
					PreConfig: func() {
						for _, size := range []int64{2, 1, 2} {
							if shape.roleOfferings {
								// As the UI does: every node type at its offering,
								// which keeps CloudStack from moving the control
								// nodes to the service offering (KVM refuses it).
								env.scaleOutOfBandNamingOfferings(t, id, size)
							} else {
								env.scaleOutOfBand(t, id, size)
							}
							c, err := env.API.GetKubernetesCluster(context.Background(), id)
							if err != nil {
								t.Fatal(err)
							}
							if err := env.checkRulesAndSSH(t, c, etcdFirewalls(int(size), shape.etcd)); err != nil {
								t.Fatalf("after another client's scale to %d: %v", size, err)
							}
						}
					},
					Config: cluster.size(2).String(),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
				})
				accTest(t, resource.TestCase{CheckDestroy: env.expectNothingLeft, Steps: steps})
			})
		}
	}
}
