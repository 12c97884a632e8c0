package rules

import (
	"fmt"
	"math/rand/v2"
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

// etcdLayout is a cluster with separate etcd nodes: 3 etcd VMs, 1 control and the
// given workers, in map order.
func etcdLayout(workers ...string) Layout {
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
// choreography, just enough to replay the scale-down failure of clusters with
// separate etcd nodes and to check layouts against it.
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
			r.StartPort, r.End(), c.ID, c.StartPort, c.End())
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

// provisionCKS is CKS's create-time choreography
// (KubernetesClusterStartWorker.startKubernetesClusterOnCreate): node range,
// external ports, API firewall, node forwards, API LB, then a single-port
// firewall rule and a forward per etcd VM, all open to 0.0.0.0/0.
func (s *server) provisionCKS(t *testing.T, l Layout) {
	t.Helper()
	open := l
	open.SSHCIDRs = nil
	for _, e := range Expected(open) {
		switch e.Purpose {
		case PurposeEtcdForward, PurposeEtcdSSHRange:
			continue
		}
		if err := s.create(e.Rule(open)); err != nil {
			t.Fatalf("provision %s: %v", e, err)
		}
	}
	start := l.etcdStart()
	for j, n := range l.etcdNodes() {
		for _, r := range []Rule{firewall("", start+j, start+j), forward("", start+j, SSHPort, n.ID)} {
			if err := s.create(r); err != nil {
				t.Fatalf("provision etcd %d: %v", j, err)
			}
		}
	}
}

// sync applies a PlanSync plan wave by wave, as the engine does.
func (s *server) sync(t *testing.T, l Layout) Plan {
	t.Helper()
	p := PlanSync(l, Classify(l, s.onIP(snatIP)))
	for _, w := range p.Waves {
		s.apply(t, w)
	}
	return p
}

// expunge revokes a VM's own forwards, as expunging a VM does.
func (s *server) expunge(vmID string) {
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool { return r.Kind == KindPortForward && r.VMID == vmID })
}

// scaleRules is scaleKubernetesClusterIsolatedNetworkRules with the given
// removeSshFirewallRule implementation: revoke the picked rule, delete the
// network's forwards from 2222 to its end, create the node range (open to
// 0.0.0.0/0) and the node forwards.
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
		return r.Kind == KindPortForward && r.StartPort >= NodeSSHStartPort && r.StartPort <= fw.End()
	})
	open := l
	open.SSHCIDRs = nil
	for _, e := range Expected(open) {
		switch e.Purpose {
		case PurposeNodeSSHRange, PurposeExternalSSHFirewall, PurposeNodeSSHForward:
			if err := s.create(e.Rule(open)); err != nil {
				return err
			}
		}
	}
	return nil
}

// pickInOrder is the selector evaluating the firewall rules in the given
// order of their positions (a permutation of the rules' indexes), for
// checking that a layout is safe whatever order the server reads them in.
func pickInOrder(order []int) func([]Rule) (Rule, bool) {
	return orderedPick(order, BuggyPick)
}

// orderedPick is a selector (pick) reading the firewall rules in the given
// order of their positions.
func orderedPick(order []int, pick func([]Rule) (Rule, bool)) func([]Rule) (Rule, bool) {
	return func(all []Rule) (Rule, bool) {
		var fws []Rule
		for _, r := range all {
			if r.Kind == KindFirewall {
				fws = append(fws, r)
			}
		}
		rest := slices.DeleteFunc(slices.Clone(all), func(r Rule) bool { return r.Kind == KindFirewall })
		var ordered []Rule
		for _, i := range order {
			if i < len(fws) {
				ordered = append(ordered, fws[i])
			}
		}
		for i := len(order); i < len(fws); i++ {
			ordered = append(ordered, fws[i])
		}
		return pick(append(ordered, rest...))
	}
}

// evaluationOrders returns ascending, descending and some shuffled orders
// of n positions.
func evaluationOrders(n int) [][]int {
	asc := make([]int, n)
	for i := range asc {
		asc[i] = i
	}
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	out := [][]int{asc, desc}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for range 6 {
		p := slices.Clone(asc)
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		out = append(out, p)
	}
	return out
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
			out = append(out, fmt.Sprintf("%s %s %d-%d->%d %s %v", cr.Purpose, r.Kind, r.StartPort, r.End(), r.PrivatePort, r.VMID, NormalCIDRs(r.CIDRs)))
		}
	}
	slices.Sort(out)
	return out
}

func expectedShape(l Layout) []string {
	var out []string
	for _, e := range Expected(l) {
		r := e.Rule(l)
		out = append(out, fmt.Sprintf("%s %s %d-%d->%d %s %v", e.Purpose, r.Kind, r.StartPort, r.End(), r.PrivatePort, r.VMID, NormalCIDRs(r.CIDRs)))
	}
	slices.Sort(out)
	return out
}

func actionText(a Action) string {
	return fmt.Sprintf("%s %s %s %s", a.Op, a.Purpose, PortRange(a.Rule.StartPort, a.Rule.End()), a.Rule.VMID)
}

func waveTexts(p Plan) [][]string {
	var out [][]string
	for _, w := range p.Waves {
		var texts []string
		for _, a := range w {
			texts = append(texts, actionText(a))
		}
		out = append(out, texts)
	}
	return out
}
