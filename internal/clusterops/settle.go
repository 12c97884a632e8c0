package clusterops

import (
	"context"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// settle repairs the cluster's CKS rules and then leaves no wrong pick
// behind (see neutraliseLeftovers), so that the cluster is as safe to scale
// after every Repair, scale and recovery as before it.
func (e *Engine) settle(ctx context.Context, s *Snapshot, rep *Report) error {
	if s.Direct() {
		return nil
	}
	from := len(rep.Steps)
	if err := e.applyRepair(ctx, s, rep); err != nil {
		return fmt.Errorf("repairing the SSH rules of Kubernetes cluster %s: %w", s.Cluster.ID, err)
	}
	if err := e.neutraliseLeftovers(ctx, s, rep, rep.changesSince(from)); err != nil {
		return fmt.Errorf("moving the firewall rules of Kubernetes cluster %s after its node SSH range: %w", s.Cluster.ID, err)
	}
	return nil
}

// neutraliseLeftovers re-creates, after the node SSH range, every firewall
// rule that removeSshFirewallRule of 4.21.0 through 4.22.1.1 would pick
// before it (#14159): CKS's own and, with the opt-in, the user's. The
// server's rebuild during a scale re-creates the node range with a new,
// higher id, and so does a repair of a missing range, which puts the range
// after the etcd firewall rules again; left so, the next scale from any
// client (the UI, cmk, the autoscaler) revokes an etcd rule instead of the
// range and breaks the cluster. User rules without the opt-in are reported,
// not touched. reread lists the rules again first, for when they changed
// since s was read.
func (e *Engine) neutraliseLeftovers(ctx context.Context, s *Snapshot, rep *Report, reread bool) error {
	if s.Layout.Network != rules.NetworkIsolated {
		return nil
	}
	if reread {
		if err := e.readRules(ctx, s); err != nil {
			return err
		}
	}
	nodeRange, ok := s.NodeSSHRange()
	if !ok {
		// Nothing sorts after a missing range; the repair reported why it
		// could not create one.
		return nil
	}
	var fixable []rules.Hazard
	for _, h := range s.Hazards {
		switch {
		case h.Kind != rules.HazardWrongPick:
		case h.Owner == rules.OwnerCKS || e.opts.RecreateUserHazardRules:
			fixable = append(fixable, h)
		default:
			st := e.step(ctx, rep, StepHazard, fmt.Sprintf("left %s (rule %s) in place, although the next scale from any client "+
				"would revoke it instead of the node SSH range: %s. Set %s to let the provider re-create it after the range, "+
				"or move it yourself", s.describeRule(h.Rule, h.Purpose), h.Rule.ID, h.Explanation, e.opts.HazardOptInName))
			st.RuleID = h.Rule.ID
		}
	}
	actions, _ := rules.PlanNeutralise(fixable, true)
	why := fmt.Sprintf("the node SSH range had been re-created after it, as rule %s", nodeRange.ID)
	return e.applyNeutralise(ctx, s, actions, rep, why)
}
