package rules

import "fmt"

// Op is what an action does to a rule.
type Op string

// Operations.
const (
	OpCreate Op = "Create"
	OpDelete Op = "Delete"
)

// Action is one rule change, to be applied in order. A Delete names an
// existing rule by Rule.ID; a Create carries the rule without an id. Create
// port forwards with openfirewall=false, as CKS does.
type Action struct {
	Op      Op
	Rule    Rule
	Purpose Purpose
	Reason  string
}

// Blocked is an expected rule a repair cannot create because an existing
// rule it may not delete would conflict with it (HTTP 537).
type Blocked struct {
	Expectation Expectation
	Conflict    Rule
	Reason      string
}

// PlanNeutralise turns wrong-pick hazards into actions: each firewall rule
// is deleted and re-created with the same protocol, ports and CIDRs, in
// order, so that the new rules get ids after the node SSH range and
// removeSshFirewallRule picks the range first. The rules keep working; only
// the re-created rule is briefly absent.
//
// A user-owned hazard is touched only if allowUser; otherwise, and for
// collateral hazards (which no re-ordering can protect), it is returned as
// blocked. The node range must exist: run PlanRepair first if it is missing.
func PlanNeutralise(hazards []Hazard, allowUser bool) (actions []Action, blocked []Hazard) {
	for _, h := range hazards {
		if h.Kind != HazardWrongPick || (h.Owner != OwnerCKS && !allowUser) {
			blocked = append(blocked, h)
			continue
		}
		recreated := h.Rule
		recreated.ID = ""
		recreated.CIDRs = append([]string(nil), h.Rule.CIDRs...)
		reason := fmt.Sprintf("move firewall rule %s (tcp %s) after the node SSH range so a scale cannot pick it (#14159)",
			h.Rule.ID, portRange(h.Rule.StartPort, endPort(h.Rule)))
		actions = append(actions,
			Action{Op: OpDelete, Rule: h.Rule, Purpose: h.Purpose, Reason: reason},
			Action{Op: OpCreate, Rule: recreated, Purpose: h.Purpose, Reason: reason})
	}
	return actions, blocked
}

// repairable are the purposes a repair restores. API rules are left alone:
// re-opening or re-routing the API is not a decision to take silently.
var repairable = map[Purpose]bool{
	PurposeNodeSSHRange:        true,
	PurposeExternalSSHFirewall: true,
	PurposeNodeSSHForward:      true,
	PurposeEtcdFirewall:        true,
	PurposeEtcdForward:         true,
}

// PlanRepair returns the actions that restore the SSH rules CKS owns for the
// layout: first delete every stale CKS SSH rule (a node range with the wrong
// end, a forward to the wrong VM or beyond the map), then create every
// missing node range, external node port, node forward, etcd firewall rule
// and etcd forward, in the order CKS creates them. User rules and API rules
// are never touched, and a create that would conflict with a rule that
// stays is left out (see PlanRepairWithBlocked).
func PlanRepair(l Layout, c Classification) []Action {
	actions, _ := PlanRepairWithBlocked(l, c)
	return actions
}

// PlanRepairWithBlocked is PlanRepair that also returns the expected rules it
// cannot create, each with the existing rule in the way.
func PlanRepairWithBlocked(l Layout, c Classification) (actions []Action, blocked []Blocked) {
	deleted := map[int]bool{}
	for i, cr := range c.Rules {
		if cr.Status != StatusStale || !repairable[cr.Purpose] {
			continue
		}
		deleted[i] = true
		actions = append(actions, Action{Op: OpDelete, Rule: cr.Rule, Purpose: cr.Purpose, Reason: "stale: " + cr.Reason})
	}

	var remaining []Rule
	for i, cr := range c.Rules {
		if !deleted[i] {
			remaining = append(remaining, cr.Rule)
		}
	}
	for _, e := range c.Missing {
		if !repairable[e.Purpose] {
			continue
		}
		candidate := e.Rule(l)
		if conflict, ok := DetectConflict(remaining, candidate); ok {
			blocked = append(blocked, Blocked{
				Expectation: e, Conflict: conflict,
				Reason: fmt.Sprintf("%s would conflict with rule %s (%s %s)", e, conflict.ID, conflict.Kind,
					portRange(conflict.StartPort, endPort(conflict))),
			})
			continue
		}
		remaining = append(remaining, candidate)
		actions = append(actions, Action{Op: OpCreate, Rule: candidate, Purpose: e.Purpose, Reason: "missing: " + e.String()})
	}
	return actions, blocked
}
