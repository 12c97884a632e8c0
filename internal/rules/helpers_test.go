package rules

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

const (
	snatIP  = "ip-snat"
	otherIP = "ip-other"
	netID   = "net-281"
)

func firewall(id string, start, end int, cidr ...string) Rule {
	if len(cidr) == 0 {
		cidr = []string{AnyCIDR}
	}
	return Rule{ID: id, Kind: KindFirewall, Protocol: ProtocolTCP, StartPort: start, EndPort: end,
		CIDRs: cidr, IPAddressID: snatIP, NetworkID: netID}
}

func forward(id string, public, private int, vm string) Rule {
	return Rule{ID: id, Kind: KindPortForward, Protocol: ProtocolTCP, StartPort: public, EndPort: public,
		PrivatePort: private, PrivateEndPort: private, VMID: vm, IPAddressID: snatIP, NetworkID: netID}
}

func apiLB(id string) Rule {
	return Rule{ID: id, Kind: KindLoadBalancer, Protocol: ProtocolTCP, StartPort: APIPort, EndPort: APIPort,
		PrivatePort: APIPort, PrivateEndPort: APIPort, IPAddressID: snatIP, NetworkID: netID}
}

func node(id string, role naming.Role) Node {
	return Node{ID: id, Name: id + "-name", Role: role}
}

// seedLayout is the cluster of seed 000: 3 etcd VMs, 1 control and the
// given workers, in map order.
func seedLayout(workers ...string) Layout {
	l := Layout{Network: NetworkIsolated, IPAddressID: snatIP, NetworkID: netID, Nodes: []Node{
		node("etcd1", naming.RoleEtcd), node("etcd2", naming.RoleEtcd), node("etcd3", naming.RoleEtcd),
		node("control", naming.RoleControl),
	}}
	for _, w := range workers {
		l.Nodes = append(l.Nodes, node(w, naming.RoleWorker))
	}
	return l
}

// server is a test model of CloudStack's rule store and of the CKS rule
// choreography (spec §2.3, §2.6), just enough to replay seed 000.
type server struct {
	next  int
	rules []Rule
}

func newServer(firstID int) *server { return &server{next: firstID} }

// create persists a rule with the next id; a conflict consumes the id and
// keeps nothing, as the server's rolled-back transaction does.
func (s *server) create(r Rule) error {
	r.ID = strconv.Itoa(s.next)
	s.next++
	if c, ok := DetectConflict(s.onIP(r.IPAddressID), r); ok {
		return fmt.Errorf("the range specified, %d-%d, conflicts with rule %s which has %d-%d",
			r.StartPort, endPort(r), c.ID, c.StartPort, endPort(c))
	}
	s.rules = append(s.rules, r)
	return nil
}

func (s *server) delete(id string) {
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool { return r.ID == id })
}

func (s *server) onIP(ip string) []Rule {
	var out []Rule
	for _, r := range s.rules {
		if r.IPAddressID == ip {
			out = append(out, r)
		}
	}
	return out
}

func (s *server) networkForwards() []Rule {
	var out []Rule
	for _, r := range s.rules {
		if r.Kind == KindPortForward {
			out = append(out, r)
		}
	}
	return out
}

func (s *server) ids() []string {
	var out []string
	for _, r := range s.rules {
		out = append(out, r.ID)
	}
	return out
}

func (s *server) apply(t *testing.T, actions []Action) {
	t.Helper()
	for _, a := range actions {
		switch a.Op {
		case OpDelete:
			s.delete(a.Rule.ID)
		case OpCreate:
			if err := s.create(a.Rule); err != nil {
				t.Fatalf("apply %s %s: %v", a.Op, a.Purpose, err)
			}
		}
	}
}

// provision is the create-time choreography: every expected rule in order.
func (s *server) provision(t *testing.T, l Layout) {
	t.Helper()
	for _, e := range Expected(l) {
		if err := s.create(e.Rule(l)); err != nil {
			t.Fatalf("provision %s: %v", e, err)
		}
	}
}

// expunge revokes a VM's own forwards, as expunging a VM does.
func (s *server) expunge(vmID string) {
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool { return r.Kind == KindPortForward && r.VMID == vmID })
}

// scaleRules is scaleKubernetesClusterIsolatedNetworkRules with the given
// removeSshFirewallRule implementation.
func (s *server) scaleRules(l Layout, pick func([]Rule) (Rule, bool)) error {
	var candidates []Rule
	for _, r := range s.onIP(snatIP) {
		if r.Kind == KindFirewall {
			candidates = append(candidates, r)
		}
	}
	fw, ok := pick(append(candidates, s.networkForwards()...))
	if !ok {
		return fmt.Errorf("firewall rule for node SSH access can't be provisioned")
	}
	s.delete(fw.ID)
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool {
		return r.Kind == KindPortForward && r.StartPort >= NodeSSHStartPort && r.StartPort <= endPort(fw)
	})
	for _, e := range Expected(l) {
		switch e.Purpose {
		case PurposeNodeSSHRange, PurposeExternalSSHFirewall, PurposeNodeSSHForward:
			if err := s.create(e.Rule(l)); err != nil {
				return err
			}
		}
	}
	return nil
}

func hazardIDs(hs []Hazard) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, h.Rule.ID)
	}
	return out
}

func purposes(es []Expectation) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s/%d", e.Purpose, e.Index))
	}
	return out
}

// ownedShape reduces the CKS rules on the IP to comparable strings, ids left out.
func ownedShape(l Layout, rules []Rule) []string {
	var out []string
	for _, cr := range Classify(l, rules).Rules {
		if cr.Owned() {
			r := cr.Rule
			out = append(out, fmt.Sprintf("%s %s %d-%d->%d %s", cr.Purpose, r.Kind, r.StartPort, endPort(r), r.PrivatePort, r.VMID))
		}
	}
	slices.Sort(out)
	return out
}

func expectedShape(l Layout) []string {
	var out []string
	for _, e := range Expected(l) {
		r := e.Rule(l)
		out = append(out, fmt.Sprintf("%s %s %d-%d->%d %s", e.Purpose, r.Kind, r.StartPort, endPort(r), r.PrivatePort, r.VMID))
	}
	slices.Sort(out)
	return out
}
