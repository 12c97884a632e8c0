package clusterops

import (
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// scalePlan is what a scale of the snapshot's cluster would need, computed
// without any change: the repairs first, then the hazards on the rules as
// the repairs would leave them.
type scalePlan struct {
	repairs        []rules.Action
	blockedRepairs []rules.Blocked
	hazards        []rules.Hazard
	// fixable are the wrong picks the engine re-creates itself.
	fixable []rules.Hazard
	// blocking are user hazards the engine may not touch without the opt-in.
	blocking []rules.Hazard
	// preserve are user forwards the scale deletes, which the engine
	// records and re-creates (opt-in).
	preserve []rules.Hazard
	// unfixable are user forwards the scale deletes and that could not be
	// re-created as they were, because CKS's new node forwards take their
	// ports.
	unfixable []rules.Hazard
	// hasRange tells whether the node SSH range exists after the repairs.
	hasRange bool
}

// planScale plans a scale to newSize workers; newSize < 0 means unknown
// (CheckScale), which skips the check of user forwards against the new
// node forwards.
func (e *Engine) planScale(s *Snapshot, newSize int64) scalePlan {
	var p scalePlan
	if s.Direct() {
		return p
	}
	p.repairs, p.blockedRepairs = rules.PlanRepairWithBlocked(s.Layout, s.Classification)
	onIP, forwards := predictRules(s.Rules, s.NetworkForwards, p.repairs)
	p.hasRange = slices.ContainsFunc(rules.Classify(s.Layout, onIP).Rules, func(cr rules.ClassifiedRule) bool {
		return cr.Purpose == rules.PurposeNodeSSHRange
	})
	if s.Layout.Network != rules.NetworkIsolated {
		return p
	}
	p.hazards = rules.Hazards(s.Layout, onIP, forwards)
	newEnd := 0
	if newSize >= 0 {
		nodes := int64(len(s.Layout.Nodes)) - etcdCount(s.Layout) + newSize - MapWorkerCount(&s.Cluster)
		newEnd = rules.NodeSSHStartPort + int(nodes) - 1
	}
	for _, h := range p.hazards {
		switch {
		case h.Kind == rules.HazardWrongPick && (h.Owner == rules.OwnerCKS || e.opts.RecreateUserHazardRules):
			p.fixable = append(p.fixable, h)
		case h.Kind == rules.HazardCollateral && e.opts.RecreateUserHazardRules:
			if reason := unrecreatable(s, h.Rule, newEnd); reason != "" {
				h.Explanation += "; " + reason
				p.unfixable = append(p.unfixable, h)
			} else {
				p.preserve = append(p.preserve, h)
			}
		default:
			p.blocking = append(p.blocking, h)
		}
	}
	return p
}

// unrecreatable tells why a user forward deleted by a scale could not be
// re-created as it was, or "". Source CIDRs are re-created with the forward.
func unrecreatable(s *Snapshot, pf rules.Rule, newEnd int) string {
	if pf.IPAddressID == s.PublicIPID && pf.StartPort <= newEnd {
		return fmt.Sprintf("after the scale CKS forwards the ports up to %d to its nodes, so it could not be re-created", newEnd)
	}
	return ""
}

// refusal is the error Scale returns, before changing anything, when the
// plan cannot go ahead.
func (p scalePlan) refusal(e *Engine, s *Snapshot) error {
	switch {
	case len(p.unfixable) > 0:
		return &HazardError{ClusterID: s.Cluster.ID, Hazards: p.unfixable,
			Unfixable: "These user port forwards would be lost; move them out of the node SSH port range (or delete them) before scaling"}
	case len(p.blocking) > 0:
		return &HazardError{ClusterID: s.Cluster.ID, Hazards: p.blocking, OptIn: e.opts.HazardOptInName}
	case s.Layout.Network == rules.NetworkIsolated && !p.hasRange && internalCount(s.Layout) > 0:
		reason := errNoNodeRange.Error()
		for _, b := range p.blockedRepairs {
			if b.Expectation.Purpose == rules.PurposeNodeSSHRange {
				reason += "; " + b.Reason
			}
		}
		return fmt.Errorf("scaling Kubernetes cluster %s is unsafe: %s", s.Cluster.ID, reason)
	}
	return nil
}

// predictRules applies repair actions to copies of the IP's rules and the
// network's forwards; created rules get placeholder ids and sort last, as
// CloudStack's ascending ids would put them.
func predictRules(onIP, networkForwards []rules.Rule, actions []rules.Action) (ip, forwards []rules.Rule) {
	ip = slices.Clone(onIP)
	forwards = slices.Clone(networkForwards)
	for i, a := range actions {
		switch a.Op {
		case rules.OpDelete:
			ip = withoutRule(ip, a.Rule.ID)
			forwards = withoutRule(forwards, a.Rule.ID)
		case rules.OpCreate:
			r := a.Rule
			r.ID = fmt.Sprintf("(new rule %d)", i+1)
			ip = append(ip, r)
			if r.Kind == rules.KindPortForward {
				forwards = append(forwards, r)
			}
		}
	}
	return ip, forwards
}

func etcdCount(l rules.Layout) int64 {
	var n int64
	for _, node := range l.Nodes {
		if node.Role == naming.RoleEtcd {
			n++
		}
	}
	return n
}

// internalCount is the number of control and worker VMs in the map.
func internalCount(l rules.Layout) int {
	n := 0
	for _, node := range l.Nodes {
		if node.Role != naming.RoleEtcd && !node.External {
			n++
		}
	}
	return n
}
