package rules

import "fmt"

// HazardKind tells how a rule is endangered by, or endangers, a scale.
type HazardKind string

// Hazard kinds.
const (
	// HazardWrongPick is a firewall rule removeSshFirewallRule would pick
	// instead of the node SSH range (#14159).
	HazardWrongPick HazardKind = "wrong_pick"
	// HazardCollateral is a user forward elsewhere in the network that the
	// server's forward cleanup deletes on every scale.
	HazardCollateral HazardKind = "collateral"
)

// Owner tells who owns a rule.
type Owner string

// Rule owners.
const (
	OwnerCKS  Owner = "cks"
	OwnerUser Owner = "user"
)

// Hazard is one rule that makes the next scale of an isolated cluster go
// wrong, or that the scale would destroy.
type Hazard struct {
	Kind    HazardKind
	Owner   Owner
	Purpose Purpose
	Rule    Rule
	// Explanation names the rule and says what the scale would do.
	Explanation string
}

// Hazards lists what the next scale of an isolated cluster would get wrong.
// rules are the rules on the cluster's IP (all kinds, id order);
// networkForwards are the port forwards of the whole network.
//
// Wrong picks are every firewall rule listed before the CKS node SSH range
// that removeSshFirewallRule's predicate accepts (it starts at 2222, or a
// forward with the same ports targets port 22), not only the first: once
// the first is re-created after the range, the next one would be picked.
// Collateral hazards are user forwards whose public start port lies in the
// node range 2222..end, which the server deletes across the network on
// every scale. Other networks have no firewall rules and get no hazards.
func Hazards(l Layout, rules []Rule, networkForwards []Rule) []Hazard {
	if l.Network != NetworkIsolated {
		return nil
	}
	c := Classify(l, rules)
	forwards := ownedForwards(c, networkForwards)

	var fws []ClassifiedRule
	for _, cr := range c.Rules {
		if cr.Rule.Kind == KindFirewall && isTCP(cr.Rule) {
			fws = append(fws, cr)
		}
	}
	rangeAt := len(fws)
	for i, cr := range fws {
		if cr.Purpose == PurposeNodeSSHRange {
			rangeAt = i
			break
		}
	}
	var nodeRange *Rule
	if rangeAt < len(fws) {
		nodeRange = &fws[rangeAt].Rule
	}

	var out []Hazard
	for _, cr := range fws[:rangeAt] {
		fw := cr.Rule
		startsAtRange := fw.StartPort == NodeSSHStartPort
		if !startsAtRange && !anyForwardToSSH(forwardRules(forwards), fw) {
			continue
		}
		owner := OwnerUser
		if cr.Owned() {
			owner = OwnerCKS
		}
		out = append(out, Hazard{
			Kind: HazardWrongPick, Owner: owner, Purpose: cr.Purpose, Rule: fw,
			Explanation: wrongPickExplanation(cr, startsAtRange, nodeRange, forwards),
		})
	}

	end, ok := cleanupEnd(l, nodeRange)
	if !ok {
		return out
	}
	for _, f := range forwards {
		pf := f.Rule
		if f.Owned() || pf.StartPort < NodeSSHStartPort || pf.StartPort > end {
			continue
		}
		out = append(out, Hazard{
			Kind: HazardCollateral, Owner: OwnerUser, Purpose: PurposeUser, Rule: pf,
			Explanation: fmt.Sprintf("user port forward %s (%s) has its public start port in the node SSH range %s; "+
				"every scale of the cluster deletes all port forwards of the network that start in that range, so it would be deleted",
				pf.ID, describeForward(pf), portRange(NodeSSHStartPort, end)),
		})
	}
	return out
}

// cleanupEnd is the end of the forward range a correct scale cleans up: the
// current node range's end, or the expected one when the range is missing.
func cleanupEnd(l Layout, nodeRange *Rule) (int, bool) {
	if nodeRange != nil {
		return endPort(*nodeRange), true
	}
	if n := l.internalCount(); n > 0 {
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

func wrongPickExplanation(cr ClassifiedRule, startsAtRange bool, nodeRange *Rule, forwards []ClassifiedRule) string {
	fw := cr.Rule
	what := "user firewall rule"
	if cr.Owned() {
		what = "CKS " + cr.Purpose.describe() + " firewall rule"
	}
	why := "has a port forward to port 22"
	if startsAtRange {
		why = "starts at 2222 like the node SSH range"
	}
	where := "there is no node SSH range rule"
	if nodeRange != nil {
		where = fmt.Sprintf("it comes before the node SSH range %s (%s)", nodeRange.ID, portRange(nodeRange.StartPort, endPort(*nodeRange)))
	}
	end := endPort(fw)
	var cleanup string
	if end < NodeSSHStartPort {
		cleanup = fmt.Sprintf("the forward cleanup that follows deletes the port forwards whose public start port lies "+
			"between %d and the revoked rule's end port, which is %d here, so it deletes none", NodeSSHStartPort, end)
	} else {
		cks, user := countForwards(forwards, end)
		cleanup = fmt.Sprintf("it would delete every port forward of the network with a public start port in %s (%d CKS, %d user)",
			portRange(NodeSSHStartPort, end), cks, user)
	}
	outcome := "then fail to re-create the node range because the old one is still active: the job fails with 530 and the cluster goes to Alert with a stale size"
	if nodeRange == nil {
		outcome = "then create the node range as if this rule had been it"
	}
	return fmt.Sprintf("%s %s (tcp %s) %s and %s, so a scale on CloudStack 4.21.0 through 4.22.1.1 (#14159) would revoke it instead of the node range; %s; %s",
		what, fw.ID, portRange(fw.StartPort, end), why, where, cleanup, outcome)
}

// countForwards counts the forwards, CKS and user, that start in 2222..end.
func countForwards(forwards []ClassifiedRule, end int) (cks, user int) {
	for _, f := range forwards {
		if f.Rule.StartPort < NodeSSHStartPort || f.Rule.StartPort > end {
			continue
		}
		if f.Owned() {
			cks++
		} else {
			user++
		}
	}
	return cks, user
}

func describeForward(pf Rule) string {
	return fmt.Sprintf("%s %s -> %s to VM %s on IP %s", pf.Protocol,
		portRange(pf.StartPort, endPort(pf)), portRange(pf.PrivatePort, pf.PrivateEndPort), pf.VMID, pf.IPAddressID)
}
