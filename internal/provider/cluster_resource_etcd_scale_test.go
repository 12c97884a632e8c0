package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccCluster_scaleSequenceKeepsEverySSHPath scales, on every server
// profile, clusters with separate etcd nodes 1→2→1→2→1 through the
// provider, then three times through the plain API as another client (the
// UI, cmk, the autoscaler) would: every scale succeeds, every SSH path
// works after each one, the state is what CloudStack reports, and the plan
// after every apply is empty. On 4.22.1.1 the plain API alone breaks such
// a cluster at its second scale. The shapes are three etcd nodes or one,
// on the cluster's own network or a user's, without node offerings (which
// CloudStack records at the first scale) or with them. Every profile's
// shapes are clusters of one configuration, each through its profile's
// simulator and each checked on its own after every step: one CLI run
// serves them all.
func TestAccCluster_scaleSequenceKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name          string
		etcd          int
		userNetwork   bool
		roleOfferings bool
	}{{"etcd3", 3, false, false}, {"etcd1", 1, false, false}, {"etcd3_user_network", 3, true, false}, {"etcd3_role_offerings", 3, false, true}}
	envs := newProfileEnvs(t)
	type member struct {
		scaledCluster
		cluster       clusterConfig
		roleOfferings bool
	}
	var members []member
	for _, p := range envs {
		for _, shape := range shapes {
			address := p.label + "_" + shape.name
			cluster := p.etcdCluster(shape.etcd, 1).named(address).via(p).set("name", "cks-"+strings.ReplaceAll(shape.name, "_", "-"))
			if shape.userNetwork {
				cluster = cluster.on(p.Info.IsolatedNetworkID)
			}
			if shape.roleOfferings {
				cluster = cluster.set("control_offering_id", p.Info.LargeServiceOfferingID).
					set("worker_offering_id", p.Info.ServiceOfferingID).set("etcd_offering_id", p.Info.ServiceOfferingID)
			}
			members = append(members, member{scaledCluster: scaledCluster{env: p.simEnv, addr: "cks_cluster." + address, etcd: shape.etcd},
				cluster: cluster, roleOfferings: shape.roleOfferings})
		}
	}
	config := func(size int) string {
		var b strings.Builder
		b.WriteString(profileProviders(envs))
		for _, m := range members {
			b.WriteString(m.cluster.size(size).String())
		}
		return b.String()
	}
	clusters := make([]scaledCluster, len(members))
	for i, m := range members {
		clusters[i] = m.scaledCluster
	}
	steps := scaleSteps(t, clusters, []int{1, 2, 1, 2, 1}, config)
	ids := map[string]string{}
	checkFirst := steps[0].Check
	steps[0].Check = func(s *terraform.State) error {
		for _, m := range members {
			id, err := idAt(s, m.addr)
			if err != nil {
				return err
			}
			ids[m.addr] = id
		}
		return checkFirst(s)
	}
	steps = append(steps, resource.TestStep{
		PreConfig: func() {
			for _, m := range members {
				id := ids[m.addr]
				for _, size := range []int64{2, 1, 2} {
					if m.roleOfferings {
						// As the UI does: every node type at its offering,
						// which keeps CloudStack from moving the control
						// nodes to the service offering (KVM refuses it).
						m.env.scaleOutOfBandNamingOfferings(t, id, size)
					} else {
						m.env.scaleOutOfBand(t, id, size)
					}
					c, err := m.env.API.GetKubernetesCluster(context.Background(), id)
					if err != nil {
						t.Fatal(err)
					}
					if err := m.env.checkRulesAndSSH(t, c, etcdFirewalls(int(size), m.etcd)); err != nil {
						t.Fatalf("%s: after another client's scale to %d: %v", m.addr, size, err)
					}
				}
			}
		},
		Config: config(2),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectEmptyPlan(),
		}},
	})
	accTest(t, profileTestCase(envs, resource.TestCase{CheckDestroy: expectNothingLeftOn(envs), Steps: steps}))
}
