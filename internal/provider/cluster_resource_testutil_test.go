package provider

import (
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Jobs of the simulator finish in milliseconds; poll them accordingly so
// that the acceptance tests stay fast.
func init() {
	clusterJobWait = cloudstack.WaitOptions{Unit: 20 * time.Millisecond}
	lostCreateRechecks = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}
}

const clusterAddr = "cks_cluster.test"

// clusterID returns the id of the cluster in state.
func clusterID(s *terraform.State) (string, error) { return idAt(s, clusterAddr) }

// idAt is the id of the resource at addr in the state.
func idAt(s *terraform.State, addr string) (string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return "", fmt.Errorf("%s is not in state", addr)
	}
	return rs.Primary.ID, nil
}

// withIDAt is a Check that hands the id of the resource at addr to use.
func withIDAt(addr string, use func(id string)) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := idAt(s, addr)
		if err == nil {
			use(id)
		}
		return err
	}
}

// recordClusterID is a Check that keeps the cluster's id for the PreConfig
// of later steps, which inject faults into that cluster.
func recordClusterID(id *string) resource.TestCheckFunc {
	return func(s *terraform.State) (err error) {
		*id, err = clusterID(s)
		return err
	}
}

// nodeRoles is a statecheck value for the nodes' roles in map order.
func nodeRoles(roles ...string) knownvalue.Check {
	elems := make([]knownvalue.Check, 0, len(roles))
	for _, r := range roles {
		elems = append(elems, knownvalue.ObjectPartial(map[string]knownvalue.Check{"role": knownvalue.StringExact(r)}))
	}
	return knownvalue.ListExact(elems)
}

// expectAttr is statecheck.ExpectKnownValue on cks_cluster.test.
func expectAttr(attr string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(clusterAddr, tfjsonpath.New(attr), check)
}

func regexpMust(expr string) *regexp.Regexp { return regexp.MustCompile(expr) }

func tfjsonpathOf(attr string) tfjsonpath.Path { return tfjsonpath.New(attr) }
