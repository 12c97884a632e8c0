package rules

import (
	"fmt"
	"slices"
)

// HazardKind tells how a rule endangers, or is endangered by, a scale.
type HazardKind string

// Hazard kinds.
const (
	// HazardWrongPick is a firewall rule other than the node SSH range that
	// CloudStack's SSH rule selector accepts, so a scale may revoke it
	// instead of the range (#14159).
	HazardWrongPick HazardKind = "wrong_pick"
	// HazardNoNodeRange is a cluster without the node SSH range: the scale
	// fails with "Firewall rule for node SSH access can't be provisioned",
	// or revokes whatever else the selector accepts.
	HazardNoNodeRange HazardKind = "no_node_range"
	// HazardPortless is a TCP firewall rule without ports, which makes the
	// selector of CloudStack 4.21.0 through 4.22.0.x throw a
	// NullPointerException: the scale fails and the cluster stays in
	// Scaling.
	HazardPortless HazardKind = "portless_rule"
	// HazardCollateral is a user forward in the network whose public start
	// port lies in the node SSH range: the scale's forward cleanup deletes
	// it.
	HazardCollateral HazardKind = "collateral"
)

// Owner tells who owns a rule.
type Owner string

// Rule owners.
const (
	OwnerCKS  Owner = "cks"
	OwnerUser Owner = "user"
)

// Remedy tells who can take a hazard away before a scale.
type Remedy string

// Remedies.
const (
	// RemedySync: the provider's own rule plan (PlanSync) removes it.
	RemedySync Remedy = "sync"
	// RemedyAroundScale: a user rule the provider may delete before the
	// scale and re-create after it, with the user's consent.
	RemedyAroundScale Remedy = "around_scale"
	// RemedyNone: only the user can change it.
	RemedyNone Remedy = "none"
)

// Hazard is one rule that makes the next scale of an isolated cluster go
// wrong, or that the scale would destroy.
type Hazard struct {
	Kind    HazardKind
	Owner   Owner
	Purpose Purpose
	Rule    Rule
	Remedy  Remedy
	// Explanation names the rule and says what the scale would do.
	Explanation string
}

// Server describes the CloudStack version the cluster runs on, for the
// hazards that depend on it.
type Server struct {
	// PortlessRuleBreaksScale is true on 4.21.0 through 4.22.0.x, where a TCP
	// firewall rule without ports makes removeSshFirewallRule throw (fixed
	// by apache/cloudstack#12806 in 4.22.1).
	PortlessRuleBreaksScale bool
}

// Preflight lists what the next scale of an isolated cluster, by any
// client, would get wrong, without depending on the order in which
// CloudStack lists or evaluates rules. rules are the rules on the cluster's
// IP (all kinds); networkForwards are the port forwards of the whole
// network.
//
// CloudStack's scale (KubernetesClusterResourceModifierActionWorker.
// removeSshFirewallRule) revokes the first TCP firewall rule on the IP that
// starts at 2222 or whose exact public ports are those of a forward in the
// network to port 22, in an order the server does not guarantee, then
// deletes every forward of the network whose public start port lies between
// 2222 and the revoked rule's end. So a scale is safe when exactly one TCP
// firewall rule on the IP matches that selector, the node SSH range, and no
// user forward starts inside the range. Every other match is a hazard
// whatever its position: the next rebuild gives the node range a new,
// higher id.
func Preflight(l Layout, rules []Rule, networkForwards []Rule, srv Server) []Hazard {
	if l.Network != NetworkIsolated {
		return nil
	}
	c := Classify(l, rules)
	forwards := ownedForwards(c, networkForwards)
	ranges, others, out := selectorMatches(c, forwardRules(forwards), srv)
	nodeRange, duplicates := pickNodeRange(ranges)
	out = append(out, wrongPicks(append(others, duplicates...))...)
	out = append(out, layoutHazards(l, nodeRange)...)
	return append(out, collateral(l, nodeRange, forwards)...)
}

// selectorMatches sorts the TCP firewall rules the scale's selector would
// consider: node ranges, other rules it accepts, and port-less rules, which
// are hazards of their own on the servers whose selector throws on them.
func selectorMatches(c Classification, forwards []Rule, srv Server) (ranges, others []ClassifiedRule, portless []Hazard) {
	for _, cr := range c.Rules {
		fw := cr.Rule
		if fw.Kind != KindFirewall || !isTCP(fw) {
			continue
		}
		switch {
		case PortlessTCP(fw):
			if srv.PortlessRuleBreaksScale {
				portless = append(portless, hazardOf(HazardPortless, cr, fmt.Sprintf("%s has no ports; on CloudStack 4.21.0 "+
					"through 4.22.0.x the scale's SSH rule selector throws a NullPointerException on it, the job fails with 530 "+
					"and the cluster stays in Scaling, where it can be neither scaled nor deleted", describeRule(cr))))
			}
		case cr.Purpose == PurposeNodeSSHRange:
			ranges = append(ranges, cr)
		case fw.StartPort == NodeSSHStartPort || anyForwardToSSH(forwards, fw):
			others = append(others, cr)
		}
	}
	return ranges, others, portless
}

// pickNodeRange keeps one node range as the rule the selector may take: a
// second one (a duplicate left by an interrupted change) is a wrong pick
// too. It keeps a matched range before others, then the widest, whose
// forward cleanup reaches furthest, so neither the pick nor the collateral
// depends on the order the rules were listed in.
func pickNodeRange(ranges []ClassifiedRule) (*Rule, []ClassifiedRule) {
	if len(ranges) == 0 {
		return nil, nil
	}
	keep := 0
	for i, cr := range ranges[1:] {
		if betterNodeRange(cr, ranges[keep]) {
			keep = i + 1
		}
	}
	r := ranges[keep].Rule
	return &r, slices.Delete(slices.Clone(ranges), keep, keep+1)
}

func betterNodeRange(a, b ClassifiedRule) bool {
	am, bm := a.Status == StatusMatched, b.Status == StatusMatched
	if am != bm {
		return am
	}
	if ea, eb := a.Rule.End(), b.Rule.End(); ea != eb {
		return ea > eb
	}
	return a.Rule.ID < b.Rule.ID
}

// wrongPicks are the rules other than the node range that the selector
// accepts.
func wrongPicks(others []ClassifiedRule) []Hazard {
	out := make([]Hazard, 0, len(others))
	for _, cr := range others {
		fw := cr.Rule
		why := "has a forward with the same ports to port 22"
		if fw.StartPort == NodeSSHStartPort {
			why = "starts at 2222 like the node SSH range"
		}
		cleanup := fmt.Sprintf("deletes the forwards of the network from 2222 to %d", fw.End())
		if fw.End() < NodeSSHStartPort {
			cleanup = "keeps the old node range, whose forwards it deletes and cannot re-create"
		}
		if cr.Purpose == PurposeExternalSSHFirewall {
			cleanup += "; a scale-up's new node SSH range would also conflict with it"
		}
		out = append(out, hazardOf(HazardWrongPick, cr, fmt.Sprintf("%s %s, so CloudStack's scale (4.21.0 through 4.22.1.1, "+
			"#14159) may revoke it instead of the node SSH range: the scale then fails with 530, leaves the cluster in Alert "+
			"with a stale size and %s", describeRule(cr), why, cleanup)))
	}
	return out
}

// layoutHazards is a missing node range.
func layoutHazards(l Layout, nodeRange *Rule) []Hazard {
	var out []Hazard
	if nodeRange == nil && l.InternalCount() > 0 {
		out = append(out, Hazard{Kind: HazardNoNodeRange, Owner: OwnerCKS, Purpose: PurposeNodeSSHRange, Remedy: RemedySync,
			Explanation: "the cluster has no node SSH firewall range (2222-…): CloudStack's scale fails with \"Firewall rule for " +
				"node SSH access can't be provisioned\", or revokes another rule the selector accepts"})
	}
	return out
}

// collateral are the user forwards in the network that the scale's forward
// cleanup deletes: those whose public start port lies in the node range.
func collateral(l Layout, nodeRange *Rule, forwards []ClassifiedRule) []Hazard {
	end, ok := cleanupEnd(l, nodeRange)
	if !ok {
		return nil
	}
	var out []Hazard
	for _, pf := range userForwardsUpTo(forwards, end) {
		out = append(out, Hazard{
			Kind: HazardCollateral, Owner: OwnerUser, Purpose: PurposeUser, Rule: pf, Remedy: RemedyAroundScale,
			Explanation: fmt.Sprintf("user port forward %s (%s) has its public start port in the node SSH range %s; "+
				"every scale of the cluster deletes all port forwards of the network that start in that range, so it would be deleted",
				pf.ID, describeForward(pf), PortRange(NodeSSHStartPort, end)),
		})
	}
	return out
}

// userForwardsUpTo are the user forwards whose public start port lies in
// 2222..end: those a scale's forward cleanup deletes.
func userForwardsUpTo(forwards []ClassifiedRule, end int) []Rule {
	var out []Rule
	for _, f := range forwards {
		if !f.Owned() && f.Rule.StartPort >= NodeSSHStartPort && f.Rule.StartPort <= end {
			out = append(out, f.Rule)
		}
	}
	return out
}

// hazardOf builds a hazard for a classified rule: CKS's own rules are the
// sync plan's to fix, user rules may be moved around the scale with consent.
func hazardOf(kind HazardKind, cr ClassifiedRule, explanation string) Hazard {
	h := Hazard{Kind: kind, Owner: OwnerUser, Purpose: cr.Purpose, Rule: cr.Rule, Remedy: RemedyAroundScale, Explanation: explanation}
	if cr.Owned() {
		h.Owner = OwnerCKS
		h.Remedy = RemedySync
		if cr.Purpose == PurposeAPIFirewall {
			// The API rule matches only through a user's forward to port 22.
			h.Remedy = RemedyNone
		}
	}
	return h
}

// describeRule names a classified rule for explanations.
func describeRule(cr ClassifiedRule) string {
	r := cr.Rule
	what := "user firewall rule"
	if cr.Owned() {
		what = "CKS " + cr.Purpose.describe() + " firewall rule"
	}
	return fmt.Sprintf("%s %s (tcp %s from %s)", what, r.ID, PortRange(r.StartPort, r.End()), CIDRText(NormalCIDRs(cidrs(r))))
}

// cleanupEnd is the end of the forward range a scale cleans up: the node
// range's end, or the expected one when the range is missing.
func cleanupEnd(l Layout, nodeRange *Rule) (int, bool) {
	if nodeRange != nil {
		return (*nodeRange).End(), true
	}
	if n := l.InternalCount(); n > 0 {
		return NodeSSHStartPort + n - 1, true
	}
	return 0, false
}

// ownedForwards returns the forwards of the IP, classified, then those of the
// rest of the network, which are the user's (CKS keeps its rules on the
// cluster's IP). A forward listed in both is kept once.
func ownedForwards(c Classification, networkForwards []Rule) []ClassifiedRule {
	seen := map[string]bool{}
	var out []ClassifiedRule
	for _, cr := range c.Rules {
		if cr.Rule.Kind != KindPortForward {
			continue
		}
		if cr.Rule.ID != "" {
			seen[cr.Rule.ID] = true
		}
		out = append(out, cr)
	}
	for _, r := range networkForwards {
		if r.Kind != KindPortForward || (r.ID != "" && seen[r.ID]) {
			continue
		}
		if r.ID != "" {
			seen[r.ID] = true
		}
		out = append(out, ClassifiedRule{Rule: r, Purpose: PurposeUser, Status: StatusUser, Index: -1})
	}
	return out
}

func forwardRules(crs []ClassifiedRule) []Rule {
	out := make([]Rule, 0, len(crs))
	for _, cr := range crs {
		out = append(out, cr.Rule)
	}
	return out
}

func describeForward(pf Rule) string {
	return fmt.Sprintf("%s %s -> %s to VM %s on IP %s", pf.Protocol,
		PortRange(pf.StartPort, pf.End()), PortRange(pf.PrivatePort, pf.PrivateEndPort), pf.VMID, pf.IPAddressID)
}
