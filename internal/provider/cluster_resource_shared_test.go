package provider

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCluster_sharedNetwork creates clusters on the simulator's Shared
// network, behind an external load balancer address and without one: no
// public IP, no rules, nodes reached directly (ssh_port null), the endpoint
// on the load balancer or else on the first VM, drift in sync through the
// kubeconfig and over SSH (where CloudStack reaches the cluster: the load
// balancer's 2222, else the first VM's 22), a scale 1 -> 2 -> 1 with no rule
// changes, import, and a clean destroy.
func TestAccCluster_sharedNetwork(t *testing.T) {
	t.Parallel()
	for _, withLB := range []bool{true, false} {
		name := map[bool]string{true: "behind an external load balancer", false: "reached on the first VM"}[withLB]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testSharedNetworkCluster(t, withLB)
		})
	}
}

func testSharedNetworkCluster(t *testing.T, withLB bool) {
	env := newSimEnv(t)
	cluster := env.cluster("shared").on(env.Info.SharedNetworkID).keypair()
	lb := ""
	if withLB {
		prefix := netip.MustParsePrefix(env.Info.SharedNetworkCIDR).Addr().As4()
		prefix[3] = 201 // outside the network's guest IP range (.2-.199)
		lb = netip.AddrFrom4(prefix).String()
		cluster = cluster.set("external_load_balancer_ip", lb)
	}
	config := func(size int) string {
		return cluster.size(size).with(fmt.Sprintf(`
data "cks_cluster_drift" "test" {
  cluster_id  = cks_cluster.test.id
  node_source = "kubeconfig"
}

data "cks_cluster_drift" "ssh" {
  cluster_id  = cks_cluster.test.id
  node_source = "ssh"
  ssh = {
    private_key_file         = %q
    insecure_ignore_host_key = true
  }
}
`, env.KeyFile)).String()
	}
	noRules := func(*terraform.State) error {
		if d := env.Sim.DumpState(); len(d.Rules) != 0 {
			return fmt.Errorf("%d rules on a Shared network cluster: %+v", len(d.Rules), d.Rules)
		}
		return nil
	}
	var endpoint knownvalue.Check = knownvalue.StringRegexp(regexp.MustCompile(`^https://` + regexp.QuoteMeta(
		strings.TrimSuffix(env.Info.SharedNetworkCIDR, "0/24")) + `\d+:6443/$`))
	var lbValue knownvalue.Check = knownvalue.Null()
	if withLB {
		endpoint, lbValue = knownvalue.StringExact("https://"+lb+":6443/"), knownvalue.StringExact(lb)
	}
	checks := func(nodes int) []statecheck.StateCheck {
		out := []statecheck.StateCheck{
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("endpoint"), endpoint),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ip_address_id"), knownvalue.Null()),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("external_load_balancer_ip"), lbValue),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("ssh_rules_in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(nodes)),
			statecheck.ExpectKnownValue("data.cks_cluster_drift.test", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("data.cks_cluster_drift.ssh", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue("data.cks_cluster_drift.ssh", tfjsonpath.New("nodes_checked"), knownvalue.Bool(true)),
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
				// CloudStack never returns the load balancer address; the
				// import reads it from the endpoint.
				ResourceName:            clusterAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: notReturnedInputs,
			},
			{Config: config(1), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
