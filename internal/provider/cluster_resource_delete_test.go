package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// TestAccCluster_destroyOnUserNetwork destroys a cluster with separate etcd
// nodes on a network the user supplied (the seeded isolated network, which
// CloudStack does not destroy with the cluster), on every profile. CloudStack's destroy
// (KubernetesClusterDestroyWorker) revokes one SSH firewall rule and
// leaves the etcd SSH range behind; the provider deletes it, so no CKS rule
// is left, and keeps the user's rule on the same IP. Every profile's
// cluster is in one configuration, through its profile's simulator.
func TestAccCluster_destroyOnUserNetwork(t *testing.T) {
	t.Parallel()
	envs := newProfileEnvs(t)
	userRules := map[string]string{}
	config := func(size int) string {
		hcl := profileProviders(envs)
		for _, p := range envs {
			hcl += p.etcdCluster(3, size).on(p.Info.IsolatedNetworkID).named(p.label).via(p).String()
		}
		return hcl
	}
	var addUserRules, checkScaled []resource.TestCheckFunc
	for _, p := range envs {
		addr := "cks_cluster." + p.label
		addUserRules = append(addUserRules, withIDAt(addr, func(id string) {
			userRules[p.profile] = p.addFirewall(t, p.Cluster(id).IPAddressID, 8443, 8443, "203.0.113.0/24")
		}))
		checkScaled = append(checkScaled, p.checkCluster(t, addr, 2, []string{"2222-2224", "50000-50002", "6443", "8443"}))
	}
	accTest(t, profileTestCase(envs, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, p := range envs {
				if err := onlyUserRuleLeft(p.Sim.DumpState(), userRules[p.profile]); err != nil {
					return fmt.Errorf("%s: %w", p.profile, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: config(1), Check: resource.ComposeAggregateTestCheckFunc(addUserRules...)},
			{Config: config(2), Check: resource.ComposeAggregateTestCheckFunc(checkScaled...)},
		},
	}))
}

// onlyUserRuleLeft checks a simulator after a destroy: no cluster, no VM
// and no rule is left but the user's rule.
func onlyUserRuleLeft(d simulator.DumpState, userRule string) error {
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
}
