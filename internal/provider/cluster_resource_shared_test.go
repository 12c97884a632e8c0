package provider

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCluster_sharedNetworkWithExternalLB creates a cluster on the
// simulator's Shared network behind an external load balancer address:
// no public IP, no rules, nodes reached directly (ssh_port null), the
// endpoint on the load balancer, drift in sync through the kubeconfig, a
// scale 1 -> 2 -> 1 with no rule changes, import, and a clean destroy.
func TestAccCluster_sharedNetworkWithExternalLB(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	prefix := netip.MustParsePrefix(env.Info.SharedNetworkCIDR).Addr().As4()
	prefix[3] = 201 // outside the network's guest IP range (.2-.199)
	lb := netip.AddrFrom4(prefix).String()
	config := func(size int) string {
		return env.clusterHCL("shared", fmt.Sprintf(`
  kubernetes_version_id     = %q
  size                      = %d
  network_id                = %q
  external_load_balancer_ip = %q
}

data "cks_cluster_drift" "test" {
  cluster_id  = cks_cluster.test.id
  node_source = "kubeconfig"
`, env.VersionID("1.33.13"), size, env.Info.SharedNetworkID, lb))
	}
	noRules := func(*terraform.State) error {
		if d := env.Sim.DumpState(); len(d.Rules) != 0 {
			return fmt.Errorf("%d rules on a Shared network cluster: %+v", len(d.Rules), d.Rules)
		}
		return nil
	}
	checks := func(nodes int) []statecheck.StateCheck {
		out := []statecheck.StateCheck{
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("endpoint"), knownvalue.StringExact("https://"+lb+":6443/")),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ip_address_id"), knownvalue.Null()),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("external_load_balancer_ip"), knownvalue.StringExact(lb)),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(nodes)),
			statecheck.ExpectKnownValue("data.cks_cluster_drift.test", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
		}
		for i := range nodes {
			// Direct access: CKS gives no public SSH port; each node is
			// reached on its own address, port 22.
			out = append(out, statecheck.ExpectKnownValue(clusterAddr,
				tfjsonpath.New("nodes").AtSliceIndex(i).AtMapKey("ssh_port"), knownvalue.Null()))
		}
		return out
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config(1), Check: noRules, ConfigStateChecks: checks(2)},
			{Config: config(2), Check: noRules, ConfigStateChecks: checks(3)},
			{Config: config(1), Check: noRules, ConfigStateChecks: checks(2)},
			{
				// CloudStack stores the address as a cluster detail but never
				// returns it.
				ResourceName:            clusterAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: append([]string{"external_load_balancer_ip"}, notReturnedInputs...),
			},
			{Config: config(1), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
