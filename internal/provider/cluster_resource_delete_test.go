package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// userNetworkConfig is a cluster with separate etcd nodes on the seeded isolated network,
// which CloudStack does not destroy with the cluster.
func userNetworkConfig(e *simEnv, size int) string {
	return e.etcdCluster(3, size).on(e.Info.IsolatedNetworkID).String()
}

// TestAccCluster_destroyOnUserNetwork destroys a cluster on a network the
// user supplied. CloudStack's destroy (KubernetesClusterDestroyWorker)
// revokes one SSH firewall rule and leaves the etcd SSH range behind; the
// provider deletes it, so no CKS rule is left, and keeps the user's rule
// on the same IP.
func TestAccCluster_destroyOnUserNetwork(t *testing.T) {
	t.Parallel()
	for _, profile := range simulator.Profiles() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			env := newSimEnv(t, simtest.WithProfile(profile))
			var userRule string
			accTest(t, resource.TestCase{
				CheckDestroy: func(*terraform.State) error {
					d := env.Sim.DumpState()
					for _, c := range d.Clusters {
						if !c.Removed {
							return fmt.Errorf("cluster %s (%s) is left", c.Name, c.State)
						}
					}
					for _, v := range d.VMs {
						if !v.Expunged {
							return fmt.Errorf("VM %s (%s) is left", v.Name, v.State)
						}
					}
					var kept bool
					for _, r := range d.Rules {
						if r.ID != userRule {
							return fmt.Errorf("%s rule %d-%d (%s) is left after destroy", r.Purpose, r.StartPort, r.EndPort, r.ID)
						}
						kept = true
					}
					if !kept {
						return fmt.Errorf("the user rule %s on the cluster's IP is gone", userRule)
					}
					return nil
				},
				Steps: []resource.TestStep{
					{
						Config: userNetworkConfig(env, 1),
						Check: func(s *terraform.State) error {
							id, err := clusterID(s)
							if err == nil {
								userRule = env.addFirewall(t, env.Cluster(id).IPAddressID, 8443, 8443, "203.0.113.0/24")
							}
							return err
						},
					},
					{
						Config: userNetworkConfig(env, 2),
						Check:  env.checkCluster(t, clusterAddr, 2, []string{"2222-2224", "50000-50002", "6443", "8443"}),
					},
				},
			})
		})
	}
}
