package rules

import (
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// Op is what an action does to a rule.
type Op string

// Operations.
const (
	OpCreate Op = "Create"
	OpDelete Op = "Delete"
)

// Action is one rule change. A Delete names an existing rule by Rule.ID; a
// Create carries the rule without an id. Create port forwards with
// openfirewall=false, as CKS does.
type Action struct {
	Op      Op
	Rule    Rule
	Purpose Purpose
	Reason  string
}

// Blocked is an expected rule the plan cannot create because an existing
// rule it may not delete would conflict with it (HTTP 537).
type Blocked struct {
	Expectation Expectation
	Conflict    Rule
	Reason      string
	// Kept are the stale rules that serve what the expected rule would, and
	// that the plan therefore keeps until it can be created (Replaces): the
	// old API rule, node range or CKS's single-port etcd rules.
	Kept []Rule
}

// Plan is a set of rule changes in waves: the actions of one wave are
// independent and may run concurrently; the waves run in order.
type Plan struct {
	Waves   [][]Action
	Blocked []Blocked
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Actions()) == 0 }

// Actions returns every action, wave by wave.
func (p Plan) Actions() []Action {
	var out []Action
	for _, w := range p.Waves {
		out = append(out, w...)
	}
	return out
}

// syncable are the purposes PlanSync restores. The API rules are left
// alone: re-opening or re-routing the API is not a decision to take
// silently, except the API firewall rule when the provider keeps its
// CIDRs (syncs), which then goes through the same rules as the SSH ranges.
var syncable = map[Purpose]bool{
	PurposeNodeSSHRange:        true,
	PurposeExternalSSHFirewall: true,
	PurposeNodeSSHForward:      true,
	PurposeEtcdFirewall:        true,
	PurposeEtcdForward:         true,
	PurposeEtcdSSHRange:        true,
}

// PlanSync returns the changes that bring the SSH rules CKS owns, and the
// API firewall rule when the provider keeps its CIDRs, to the layout's
// Expected set: stale CKS rules (a node range or API rule of the wrong
// length or CIDRs, a forward to the wrong VM or beyond the map, CKS's
// single-port etcd rules) are deleted and missing ones created. User rules
// and the other API rules are never touched, and a create that would
// conflict with a rule that stays is left out, as Blocked.
//
// No change is half-done by design: a stale rule is deleted only when what
// replaces it can be created, so the stale rules an expected rule replaces
// (CKS's single-port etcd rules for the etcd SSH range, a node's old
// forward for its new one, the API rule of former CIDRs for the API rule
// of the current ones) stay when that rule is blocked. The conflict check
// knows every rule of the IP, in any order.
//
// The waves keep every SSH path open as long as the server allows: a stale
// rule is deleted before the create only when it would conflict with it
// (same CIDRs and overlapping ports, as for CKS's single-port etcd rules
// and the merged range that replaces them: one job of SSH gap), and after
// it otherwise (a node range re-narrowed to other CIDRs: no gap).
func PlanSync(l Layout, c Classification) Plan {
	stale, nonStale := splitStale(l, c)
	kept := map[string]bool{}
	for {
		p, blocked := planCreates(l, c.Missing, stale, nonStale, kept)
		grown := false
		for _, cr := range stale {
			if !kept[cr.Rule.ID] && slices.ContainsFunc(blocked, func(e Expectation) bool { return replaces(e, cr) }) {
				kept[cr.Rule.ID], grown = true, true
			}
		}
		if !grown {
			noteKept(&p, stale, kept)
			return p
		}
	}
}

// planCreates plans the creates of the missing rules against the rules
// that stay (those not stale, and the stale ones kept), and the deletes of
// the stale rules not kept. It returns the expectations it had to leave
// out.
func planCreates(l Layout, missing []Expectation, stale []ClassifiedRule, nonStale []Rule, kept map[string]bool) (Plan, []Expectation) {
	remaining := slices.Clone(nonStale)
	var deleted []ClassifiedRule
	for _, cr := range stale {
		if kept[cr.Rule.ID] {
			remaining = append(remaining, cr.Rule)
		} else {
			deleted = append(deleted, cr)
		}
	}
	var p Plan
	var blocked []Expectation
	early := map[string]bool{}
	var creates []Action
	for _, e := range missing {
		if !syncs(l, e.Purpose) {
			continue
		}
		candidate, conflict, ok := creatable(l, e, remaining)
		if !ok {
			blocked = append(blocked, e)
			p.Blocked = append(p.Blocked, Blocked{
				Expectation: e, Conflict: conflict,
				Reason: fmt.Sprintf("%s would conflict with rule %s (%s %s)", e, conflict.ID, conflict.Kind,
					PortRange(conflict.StartPort, conflict.End())),
			})
			continue
		}
		for _, cr := range deleted {
			if conflicts(cr.Rule, candidate) {
				early[cr.Rule.ID] = true
			}
		}
		remaining = append(remaining, candidate)
		creates = append(creates, Action{Op: OpCreate, Rule: candidate, Purpose: e.Purpose, Reason: "missing: " + e.String()})
	}
	before, after := deletesAround(deleted, early)
	for _, w := range [][]Action{before, creates, after} {
		if len(w) > 0 {
			p.Waves = append(p.Waves, w)
		}
	}
	return p, blocked
}

// noteKept records, on each blocked expectation, the stale rules kept for
// it.
func noteKept(p *Plan, stale []ClassifiedRule, kept map[string]bool) {
	for i, b := range p.Blocked {
		for _, cr := range stale {
			if kept[cr.Rule.ID] && replaces(b.Expectation, cr) {
				p.Blocked[i].Kept = append(p.Blocked[i].Kept, cr.Rule)
			}
		}
	}
}

// creatable returns the rule to create for a missing expectation: its own
// ports, or else an alternate range, or else, for a forward, another free
// port of its range. It reports the rule in the way when none can be made.
func creatable(l Layout, e Expectation, remaining []Rule) (Rule, Rule, bool) {
	var firstConflict Rule
	for i, span := range e.spans() {
		candidate := e.Rule(l)
		candidate.StartPort, candidate.EndPort = span.start, span.end
		candidate = forwardPort(l, e, candidate, remaining)
		conflict, busy := DetectConflict(remaining, candidate)
		if !busy {
			return candidate, Rule{}, true
		}
		if i == 0 {
			firstConflict = conflict
		}
	}
	return Rule{}, firstConflict, false
}

// replaces tells whether a stale rule serves what an expected rule would:
// it stays while that rule cannot be created.
func replaces(e Expectation, cr ClassifiedRule) bool {
	switch e.Purpose {
	case PurposeNodeSSHForward, PurposeEtcdForward:
		return cr.Rule.Kind == KindPortForward && cr.Rule.VMID == e.VMID
	}
	return Replaces(e, cr.Purpose)
}

// Replaces tells whether the firewall rules of a purpose serve what an
// expected firewall rule would: CKS's single-port etcd rules and an old
// etcd SSH range for the etcd SSH range, an old node range and CKS's
// single-port external node rules for the node range, the API rule of
// other CIDRs for the API rule.
func Replaces(e Expectation, p Purpose) bool {
	switch e.Purpose {
	case PurposeEtcdSSHRange:
		return p == PurposeEtcdFirewall || p == PurposeEtcdSSHRange
	case PurposeNodeSSHRange:
		return p == PurposeNodeSSHRange || p == PurposeExternalSSHFirewall
	case PurposeAPIFirewall:
		return p == PurposeAPIFirewall
	}
	return false
}

// syncs tells whether PlanSync restores the rules of a purpose.
func syncs(l Layout, p Purpose) bool {
	return syncable[p] || (p == PurposeAPIFirewall && l.keepsAPIRule())
}

// splitStale separates the stale CKS SSH rules the sync may delete from the
// rules that stay.
func splitStale(l Layout, c Classification) (stale []ClassifiedRule, remaining []Rule) {
	for _, cr := range c.Rules {
		if cr.Status == StatusStale && syncs(l, cr.Purpose) {
			stale = append(stale, cr)
		} else {
			remaining = append(remaining, cr.Rule)
		}
	}
	return stale, remaining
}

// deletesAround orders the deletes of stale rules: those a create would
// conflict with before the creates, the others after them.
func deletesAround(stale []ClassifiedRule, early map[string]bool) (before, after []Action) {
	for _, cr := range stale {
		a := Action{Op: OpDelete, Rule: cr.Rule, Purpose: cr.Purpose, Reason: "stale: " + cr.Reason}
		if early[cr.Rule.ID] {
			before = append(before, a)
		} else {
			after = append(after, a)
		}
	}
	return before, after
}

// forwardPort picks the public port of a missing SSH forward: a control
// node takes 2222 when no rule holds it (CloudStack reaches the cluster
// through it), any other node never does; then the port CKS would have
// given it, or else the first port of its range no rule holds.
func forwardPort(l Layout, e Expectation, r Rule, remaining []Rule) Rule {
	var from, to int
	switch e.Purpose {
	case PurposeNodeSSHForward:
		from, to = NodeSSHStartPort, NodeSSHStartPort+len(l.sshNodes())-1
	case PurposeEtcdForward:
		from, to = l.etcdStart(), l.etcdStart()+len(l.etcdNodes())-1
	default:
		return r
	}
	control := e.Purpose == PurposeNodeSSHForward && roleOf(l, e.VMID) == naming.RoleControl
	try := func(port int) (Rule, bool) {
		if e.Purpose == PurposeNodeSSHForward && port == NodeSSHStartPort && !control {
			return r, false // 2222 is for a control node
		}
		c := r
		c.StartPort, c.EndPort = port, port
		_, busy := DetectConflict(remaining, c)
		return c, !busy
	}
	if control {
		if c, ok := try(NodeSSHStartPort); ok {
			return c
		}
	}
	if c, ok := try(r.StartPort); ok {
		return c
	}
	for port := from; port <= to; port++ {
		if c, ok := try(port); ok {
			return c
		}
	}
	return r
}

func roleOf(l Layout, vmID string) naming.Role {
	for _, n := range l.Nodes {
		if n.ID == vmID {
			return n.Role
		}
	}
	return ""
}

// Predict applies a plan to copies of the IP's rules and the network's
// forwards; created rules get placeholder ids.
func Predict(onIP, networkForwards []Rule, p Plan) (ip, forwards []Rule) {
	ip = slices.Clone(onIP)
	forwards = slices.Clone(networkForwards)
	for i, a := range p.Actions() {
		switch a.Op {
		case OpDelete:
			ip = withoutID(ip, a.Rule.ID)
			forwards = withoutID(forwards, a.Rule.ID)
		case OpCreate:
			r := a.Rule
			r.ID = fmt.Sprintf("(new rule %d)", i+1)
			ip = append(ip, r)
			if r.Kind == KindPortForward {
				forwards = append(forwards, r)
			}
		}
	}
	return ip, forwards
}

func withoutID(list []Rule, id string) []Rule {
	return slices.DeleteFunc(slices.Clone(list), func(r Rule) bool { return r.ID == id })
}
