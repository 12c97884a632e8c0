package provider

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
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
	clusterJobWait = cloudstack.WaitOptions{InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, Multiplier: 1.5}
	lostCreateRechecks = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}
}

const clusterAddr = "cks_cluster.test"

// clusterHCL is the configuration of cks_cluster.test; body holds the
// attributes beyond name, zone and offering.
func (e *simEnv) clusterHCL(name, body string) string {
	return e.ProviderConfig(fmt.Sprintf(`
resource "cks_cluster" "test" {
  name                = %q
  zone_id             = %q
  service_offering_id = %q
%s
}
`, name, e.Info.ZoneID, e.Info.ServiceOfferingID, body))
}

// clusterID returns the id of the cluster in state.
func clusterID(s *terraform.State) (string, error) {
	rs, ok := s.RootModule().Resources[clusterAddr]
	if !ok {
		return "", fmt.Errorf("%s is not in state", clusterAddr)
	}
	return rs.Primary.ID, nil
}

// recordClusterID is a Check that keeps the cluster's id for the PreConfig
// of later steps, which inject faults into that cluster.
func recordClusterID(id *string) resource.TestCheckFunc {
	return func(s *terraform.State) (err error) {
		*id, err = clusterID(s)
		return err
	}
}

// expectNothingLeft is a CheckDestroy: the simulator has no cluster, no VM
// and no network rule left.
func (e *simEnv) expectNothingLeft(*terraform.State) error {
	d := e.Sim.DumpState()
	var left []string
	for _, c := range d.Clusters {
		if !c.Removed {
			left = append(left, fmt.Sprintf("cluster %s (%s)", c.Name, c.State))
		}
	}
	for _, v := range d.VMs {
		if !v.Expunged {
			left = append(left, fmt.Sprintf("VM %s (%s)", v.Name, v.State))
		}
	}
	for _, r := range d.Rules {
		left = append(left, fmt.Sprintf("%s rule %d-%d (%s)", r.Purpose, r.StartPort, r.EndPort, r.State))
	}
	if len(left) > 0 {
		return fmt.Errorf("left behind after destroy: %s", strings.Join(left, ", "))
	}
	return nil
}

// liveClusters counts the clusters that are not removed.
func (e *simEnv) liveClusters() int {
	n := 0
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed {
			n++
		}
	}
	return n
}

// ruleSet is what the API lists on the cluster's IP: firewall ranges and
// forwards with their target VMs.
type ruleSet struct {
	Firewalls []string
	Forwards  map[int]string // public port -> VM id
}

func (e *simEnv) rulesOf(t *testing.T, c *cloudstack.Cluster) ruleSet {
	t.Helper()
	fws, pfs := e.FirewallRulesOn(c.IPAddressID), e.ForwardsOn(c.IPAddressID)
	rs := ruleSet{Forwards: map[int]string{}}
	for _, fw := range fws {
		if fw.StartPort == fw.EndPort {
			rs.Firewalls = append(rs.Firewalls, fmt.Sprint(fw.StartPort))
		} else {
			rs.Firewalls = append(rs.Firewalls, fmt.Sprintf("%d-%d", fw.StartPort, fw.EndPort))
		}
	}
	sort.Strings(rs.Firewalls)
	for _, pf := range pfs {
		if pf.PrivatePort != 22 {
			t.Errorf("forward %d goes to private port %d, want 22", pf.PublicPort, pf.PrivatePort)
		}
		rs.Forwards[pf.PublicPort] = pf.VirtualMachineID
	}
	return rs
}

// expectEtcdClusterRules checks the rules of a cluster with one control node,
// three etcd nodes and one worker: firewall 2222-2223, 6443, 50000-50002,
// and a forward per node to the right VM.
func (e *simEnv) expectEtcdClusterRules(t *testing.T, c *cloudstack.Cluster) {
	t.Helper()
	got := e.rulesOf(t, c)
	wantFW := []string{"2222-2223", "50000-50002", "6443"}
	if !slices.Equal(got.Firewalls, wantFW) {
		t.Errorf("firewall rules = %v, want %v", got.Firewalls, wantFW)
	}
	if err := checkForwardTargets(c, got.Forwards); err != nil {
		t.Error(err)
	}
}

// expectSSH checks that SSH as cloud works on every given port of ip: the
// session runs kubectl, which answers on the control node (2222) and is
// refused locally on the others.
func (e *simEnv) expectSSH(t *testing.T, ip string, ports ...int) {
	t.Helper()
	for _, port := range ports {
		addr := net.JoinHostPort(ip, fmt.Sprint(port))
		out, status, err := e.RunSSH(addr, nil, "sudo /opt/bin/kubectl get nodes -o name")
		switch {
		case err != nil:
			t.Errorf("SSH to %s: %v", addr, err)
		case port == 2222 && (status != 0 || !strings.Contains(out, "node/")):
			t.Errorf("SSH to the control node at %s: kubectl exited %d with %q", addr, status, out)
		case port != 2222 && status == 127:
			t.Errorf("SSH to %s: the session did not run kubectl: %q", addr, out)
		}
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

// expectNothingLeftNow fails the test unless the simulator has no cluster,
// VM or rule left.
func (e *simEnv) expectNothingLeftNow(t *testing.T) {
	t.Helper()
	if err := e.expectNothingLeft(nil); err != nil {
		t.Fatal(err)
	}
}
