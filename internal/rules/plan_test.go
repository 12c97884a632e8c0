package rules

import (
	"reflect"
	"strings"
	"testing"
)

func TestPlanRepairNeverTouchesUserRules(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	blocker := forward("user-2223", 2223, 22, "user-vm")
	rules := append(brokenState(),
		firewall("fw22", 22, 22),
		forward("pf22", 22, 22, "user-vm"),
		forward("pf2300", 2300, 8080, "w1"),
		blocker,
	)
	c := Classify(l, rules)
	actions, blocked := PlanRepairWithBlocked(l, c)

	for _, a := range actions {
		if a.Op != OpDelete {
			continue
		}
		if cr, _ := c.Lookup(a.Rule.ID); !cr.Owned() {
			t.Errorf("repair deletes user rule %s", a.Rule.ID)
		}
	}
	if len(blocked) != 1 || blocked[0].Conflict.ID != "user-2223" || blocked[0].Expectation.Purpose != PurposeNodeSSHForward {
		t.Fatalf("blocked = %+v", blocked)
	}
	if !strings.Contains(blocked[0].Reason, "user-2223") {
		t.Errorf("reason = %q", blocked[0].Reason)
	}
	for _, a := range actions {
		if a.Op == OpCreate && a.Purpose == PurposeNodeSSHForward && a.Rule.StartPort == 2223 {
			t.Error("repair creates a forward that would conflict (537)")
		}
	}
	if got := PlanRepair(l, c); !reflect.DeepEqual(got, actions) {
		t.Error("PlanRepair differs from PlanRepairWithBlocked")
	}
}

func TestPlanRepairIsDeterministic(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	rules := append(brokenState(), forward("stale-a", 2223, 22, "control"), forward("stale-b", 2230, 22, "w1"))
	first := PlanRepair(l, Classify(l, rules))
	for range 20 {
		if again := PlanRepair(l, Classify(l, rules)); !reflect.DeepEqual(first, again) {
			t.Fatal("PlanRepair is not deterministic")
		}
	}
	// Stale forwards are deleted before anything is created.
	seenCreate := false
	for _, a := range first {
		if a.Op == OpCreate {
			seenCreate = true
		} else if seenCreate {
			t.Fatalf("delete of %s after a create", a.Rule.ID)
		}
	}
}

func TestPlanRepairLeavesAPIRulesAlone(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	l.Network = NetworkVPC
	rules := []Rule{forward("api-wrong", 6443, 6443, "w1")}
	c := Classify(l, rules)
	if cr, _ := c.Lookup("api-wrong"); cr.Status != StatusStale {
		t.Fatalf("api forward to a worker = %s", cr.Status)
	}
	for _, a := range PlanRepair(l, c) {
		if a.Purpose == PurposeAPIForward || a.Purpose == PurposeAPILoadBalancer || a.Purpose == PurposeAPIFirewall {
			t.Errorf("repair touches API rule: %s %s", a.Op, a.Purpose)
		}
	}
}

func TestPlanRepairVPCForwardsOnly(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	l.Network = NetworkVPC
	s := newServer(1)
	s.rules = []Rule{forward("api", 6443, 6443, "control"), forward("e1", 50001, 22, "etcd2")}
	actions := PlanRepair(l, Classify(l, s.rules))
	for _, a := range actions {
		if a.Op != OpCreate || a.Rule.Kind != KindPortForward {
			t.Errorf("VPC repair action %s %s %s", a.Op, a.Rule.Kind, a.Purpose)
		}
	}
	if len(actions) != 4 {
		t.Fatalf("%d actions, want 2 node and 2 etcd forwards", len(actions))
	}
	s.apply(t, actions)
	if c := Classify(l, s.rules); len(c.Missing) != 0 || len(c.Stale) != 0 {
		t.Fatalf("after repair: %v / %v", purposes(c.Missing), c.Stale)
	}
}

func TestPlanRepairExternalNodes(t *testing.T) {
	t.Parallel()
	l := seedLayout("w1")
	l.Nodes = append(l.Nodes, Node{ID: "ext1", Role: "worker", External: true})
	s := newServer(1)
	s.provision(t, l)
	// Drop the external node's firewall port and forward.
	var kept []Rule
	for _, r := range s.rules {
		if r.StartPort != 2224 {
			kept = append(kept, r)
		}
	}
	s.rules = kept
	actions := PlanRepair(l, Classify(l, s.rules))
	if len(actions) != 2 || actions[0].Purpose != PurposeExternalSSHFirewall || actions[1].Rule.VMID != "ext1" {
		t.Fatalf("actions = %+v", actions)
	}
	s.apply(t, actions)
	if c := Classify(l, s.rules); len(c.Missing) != 0 {
		t.Fatalf("missing after repair: %v", purposes(c.Missing))
	}
}
