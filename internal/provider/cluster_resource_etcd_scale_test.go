package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// TestAccCluster_scaleSequenceKeepsEverySSHPath scales, on every server
// profile, clusters with separate etcd nodes 1→2→1→2→1 through the
// provider, then three times through the plain API as another client (the
// UI, cmk, the autoscaler) would: every scale succeeds, every SSH path
// works after each one, the state is what CloudStack reports, and the plan
// after every apply is empty. On 4.22.1.1 the plain API alone breaks such
// a cluster at its second scale. The shapes (three etcd nodes or one, on
// the cluster's own network or a user's, without node offerings, which
// CloudStack records at the first scale, or with them) are four clusters
// of one configuration per profile, each checked on its own after every
// step: one CLI run serves the four.
func TestAccCluster_scaleSequenceKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name          string
		etcd          int
		userNetwork   bool
		roleOfferings bool
	}{{"etcd3", 3, false, false}, {"etcd1", 1, false, false}, {"etcd3_user_network", 3, true, false}, {"etcd3_role_offerings", 3, false, true}}
	for _, profile := range simulator.Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, simtest.WithProfile(profile))
			clusters := make([]clusterConfig, len(shapes))
			for i, shape := range shapes {
				cluster := env.etcdCluster(shape.etcd, 1).named(shape.name).set("name", "cks-"+strings.ReplaceAll(shape.name, "_", "-"))
				if i > 0 {
					cluster = cluster.through("")
				}
				if shape.userNetwork {
					cluster = cluster.on(env.Info.IsolatedNetworkID)
				}
				if shape.roleOfferings {
					cluster = cluster.set("control_offering_id", env.Info.LargeServiceOfferingID).
						set("worker_offering_id", env.Info.ServiceOfferingID).set("etcd_offering_id", env.Info.ServiceOfferingID)
				}
				clusters[i] = cluster
			}
			config := func(size int) string {
				var b strings.Builder
				for _, cluster := range clusters {
					b.WriteString(cluster.size(size).String())
				}
				return b.String()
			}
			check := func(size int) resource.TestCheckFunc {
				var checks []resource.TestCheckFunc
				for _, shape := range shapes {
					addr := "cks_cluster." + shape.name
					checks = append(checks,
						resource.TestCheckResourceAttr(addr, "size", strconv.Itoa(size)),
						resource.TestCheckResourceAttr(addr, "ssh_rules_in_sync", "true"),
						env.checkCluster(t, addr, int64(size), etcdFirewalls(size, shape.etcd)),
						env.expectStateMatchesCloudStack(addr))
				}
				return resource.ComposeAggregateTestCheckFunc(checks...)
			}
			ids := map[string]string{}
			steps := []resource.TestStep{}
			for i, size := range []int{1, 2, 1, 2, 1} {
				step := resource.TestStep{Config: config(size), ConfigPlanChecks: emptyPlanAfterApply, Check: check(size)}
				if i == 0 {
					checkSize := step.Check
					step.Check = func(s *terraform.State) error {
						for _, shape := range shapes {
							rs, ok := s.RootModule().Resources["cks_cluster."+shape.name]
							if !ok {
								return fmt.Errorf("cks_cluster.%s is not in state", shape.name)
							}
							ids[shape.name] = rs.Primary.ID
						}
						return checkSize(s)
					}
				}
				steps = append(steps, step)
			}
			steps = append(steps, resource.TestStep{
				PreConfig: func() {
					for _, shape := range shapes {
						id := ids[shape.name]
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
								t.Fatalf("%s: after another client's scale to %d: %v", shape.name, size, err)
							}
						}
					}
				},
				Config: config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			})
			accTest(t, resource.TestCase{CheckDestroy: env.expectNothingLeft, Steps: steps})
		})
	}
}
