package rules

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// External nodes in the rule layout: CKS's single-port rules after the node
// range break every scale; the provider's range over them makes every
// scale, by any client and in any evaluation order, rebuild without a
// conflict.

// externalLayout is etcdLayout with the workers and the external nodes, in
// map order.
func externalLayout(workers []string, external ...string) Layout {
	l := etcdLayout(workers...)
	for _, x := range external {
		l.Nodes = append(l.Nodes, Node{ID: x, Name: x + "-name", Role: naming.RoleWorker, External: true})
	}
	return l
}

// cksNodeRules are the node rules CKS's scale rebuild
// (KubernetesClusterResourceModifierActionWorker.addFirewallRulesForNodes,
// provisionSshPortForwardingRules) creates: the range over the control and
// worker VMs, then per external node a single-port rule and a forward after
// it, all open to 0.0.0.0/0.
func cksNodeRules(l Layout) []Rule {
	nodes := l.sshNodes()
	internal := l.InternalCount()
	var out []Rule
	if internal > 0 {
		out = append(out, firewall("", NodeSSHStartPort, NodeSSHStartPort+internal-1))
	}
	for i := internal; i < len(nodes); i++ {
		out = append(out, firewall("", NodeSSHStartPort+i, NodeSSHStartPort+i))
	}
	for i, n := range nodes {
		out = append(out, forward("", NodeSSHStartPort+i, SSHPort, n.ID))
	}
	return out
}

// cksScale is scaleKubernetesClusterIsolatedNetworkRules on the test server:
// revoke the rule the selector picks, delete the network's forwards from
// 2222 to its end, create CKS's node rules for the new map.
func (s *server) cksScale(l Layout, pick func([]Rule) (Rule, bool)) error {
	var fws []Rule
	for _, r := range s.onIP(snatIP) {
		if r.Kind == KindFirewall {
			fws = append(fws, r)
		}
	}
	fw, ok := pick(append(fws, s.networkForwards()...))
	if !ok {
		return fmt.Errorf("firewall rule for node SSH access can't be provisioned")
	}
	s.delete(fw.ID)
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool {
		return r.Kind == KindPortForward && r.StartPort >= NodeSSHStartPort && r.StartPort <= fw.End()
	})
	for _, r := range cksNodeRules(l) {
		if err := s.create(r); err != nil {
			return err
		}
	}
	return nil
}

// cksExternalServer is a cluster CKS made, with external nodes joined and
// their rules in CKS's layout.
func cksExternalServer(t *testing.T, l Layout) *server {
	t.Helper()
	s := newServer(100)
	s.provisionCKS(t, l)
	for _, r := range s.onIP(snatIP) {
		if r.Kind == KindFirewall && r.StartPort == NodeSSHStartPort {
			s.delete(r.ID)
		}
	}
	s.rules = slices.DeleteFunc(s.rules, func(r Rule) bool { return r.Kind == KindPortForward && r.StartPort < APIPort })
	for _, r := range cksNodeRules(l) {
		if err := s.create(r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestPreflightExternalNodesInCKSLayoutAreTheSyncsToFix(t *testing.T) {
	t.Parallel()
	l := externalLayout([]string{"w1"}, "x1", "x2")
	s := cksExternalServer(t, l)
	var picks []string
	for _, h := range Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{}) {
		if h.Purpose == PurposeEtcdFirewall {
			continue // CKS's etcd layout, the etcd range's business
		}
		if h.Kind != HazardWrongPick || h.Owner != OwnerCKS || h.Remedy != RemedySync || h.Purpose != PurposeExternalSSHFirewall {
			t.Errorf("hazard %+v", h)
		}
		picks = append(picks, PortRange(h.Rule.StartPort, h.Rule.End()))
	}
	if !slices.Equal(picks, []string{"2224", "2225"}) {
		t.Fatalf("hazards on %v, want the external nodes' rules 2224 and 2225", picks)
	}
	s.sync(t, l)
	if h := Preflight(l, s.onIP(snatIP), s.networkForwards(), Server{}); len(h) != 0 {
		t.Fatalf("after the sync: %+v", h)
	}
}

// CKS's own layout breaks a scale-up: the new range covers the first
// external node's single-port rule.
func TestCKSExternalLayoutBreaksAScaleUp(t *testing.T) {
	t.Parallel()
	l := externalLayout([]string{"w1"}, "x1")
	s := cksExternalServer(t, l)
	grown := externalLayout([]string{"w1", "w2"}, "x1")
	if err := s.cksScale(grown, BuggyPick); err == nil {
		t.Fatal("the scale-up should conflict with the external node's rule")
	}
}

// With the provider's layout, every scale (up or down, by any client,
// whatever order the selector reads the rules in, with either selector)
// picks the node range, rebuilds CKS's layout without a conflict, keeps a
// forward for every node, and the sync brings the provider's layout back.
func TestProviderLayoutMakesEveryScaleWithExternalNodesSafe(t *testing.T) {
	t.Parallel()
	before := externalLayout([]string{"w1", "w2"}, "x1", "x2")
	for _, after := range []Layout{
		externalLayout([]string{"w1", "w2", "w3"}, "x1", "x2"),
		externalLayout([]string{"w1"}, "x1", "x2"),
	} {
		for _, pick := range []func([]Rule) (Rule, bool){BuggyPick, FixedPick} {
			for _, order := range evaluationOrders(8) {
				s := cksExternalServer(t, before)
				s.sync(t, before)
				if err := s.cksScale(after, orderedPick(order, pick)); err != nil {
					t.Fatalf("scale to %d nodes, order %v: %v", len(after.sshNodes()), order, err)
				}
				c := Classify(after, s.onIP(snatIP))
				for _, e := range c.Missing {
					if e.Purpose == PurposeNodeSSHForward {
						t.Fatalf("order %v: forward of %s missing after the scale", order, e.VMID)
					}
				}
				s.sync(t, after)
				if got, want := ownedShape(after, s.onIP(snatIP)), expectedShape(after); !slices.Equal(got, want) {
					t.Fatalf("order %v: after the sync\n got %v\nwant %v", order, got, want)
				}
			}
		}
	}
}
