package clusterops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// applyRepair runs a PlanRepairWithBlocked plan on the snapshot's IP and
// reports each change and each blocked rule.
func (e *Engine) applyRepair(ctx context.Context, s *Snapshot, rep *Report) error {
	actions, blocked := rules.PlanRepairWithBlocked(s.Layout, s.Classification)
	for _, b := range blocked {
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not create missing %s: it would conflict with rule %s (%s), which is not CKS's to delete",
			s.describeRule(b.Expectation.Rule(s.Layout), b.Expectation.Purpose), b.Conflict.ID,
			s.describeRule(b.Conflict, rules.PurposeUser)))
	}
	cur := slices.Clone(s.Rules)
	for _, a := range actions {
		desc := s.describeRule(a.Rule, a.Purpose)
		switch a.Op {
		case rules.OpDelete:
			if err := e.deleteRule(ctx, s, a.Rule); err != nil {
				return fmt.Errorf("deleting stale %s (rule %s): %w", desc, a.Rule.ID, err)
			}
			cur = withoutRule(cur, a.Rule.ID)
			reason := strings.TrimPrefix(a.Reason, "stale: ")
			st := e.step(ctx, rep, StepRepaired, fmt.Sprintf("deleted stale %s (rule %s): %s", desc, a.Rule.ID, reason))
			st.PreviousRuleID = a.Rule.ID
		case rules.OpCreate:
			created, existed, err := e.createRule(ctx, s, cur, a.Rule)
			if err != nil {
				return fmt.Errorf("creating missing %s: %w", desc, err)
			}
			cur = append(cur, created)
			msg := fmt.Sprintf("created missing %s as rule %s", desc, created.ID)
			if existed {
				msg = fmt.Sprintf("found %s already in place as rule %s", desc, created.ID)
			}
			st := e.step(ctx, rep, StepRepaired, msg)
			st.RuleID = created.ID
		}
	}
	return nil
}

// applyNeutralise runs a PlanNeutralise plan: each hazard is deleted, then
// re-created with the same protocol, ports and CIDRs, one at a time, so the
// rule is absent only briefly and never duplicated (a duplicate create is a
// 537). why, when set, ends each report message.
//
// A delete and the re-create that follows it run on a detached, bounded
// context: the caller's deadline falling between them would leave the rule
// deleted. The caller's context is checked before each delete instead.
func (e *Engine) applyNeutralise(ctx context.Context, s *Snapshot, actions []rules.Action, rep *Report, why string) error {
	cur := slices.Clone(s.Rules)
	var deleted *rules.Rule
	pairCtx, release := ctx, context.CancelFunc(func() {})
	defer func() { release() }()
	for _, a := range actions {
		desc := s.describeRule(a.Rule, a.Purpose)
		switch a.Op {
		case rules.OpDelete:
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("moving %s (rule %s) after the node SSH range: %w", desc, a.Rule.ID, err)
			}
			release()
			pairCtx, release = detached(ctx)
			if err := e.deleteRule(pairCtx, s, a.Rule); err != nil {
				return fmt.Errorf("deleting %s (rule %s) to re-create it after the node SSH range: %w", desc, a.Rule.ID, err)
			}
			cur = withoutRule(cur, a.Rule.ID)
			r := a.Rule
			deleted = &r
		case rules.OpCreate:
			created, _, err := e.createRule(pairCtx, s, cur, a.Rule)
			release()
			pairCtx, release = ctx, func() {}
			if err != nil {
				prev := ""
				if deleted != nil {
					prev = fmt.Sprintf(" (it was deleted as rule %s and is now missing)", deleted.ID)
				}
				return fmt.Errorf("re-creating %s%s: %w", desc, prev, err)
			}
			cur = append(cur, created)
			old := ""
			if deleted != nil {
				old = deleted.ID
			}
			msg := fmt.Sprintf("re-created %s as rule %s (was rule %s) so that it sorts after the node SSH range "+
				"and a scale cannot revoke it instead of the range (#14159)", desc, created.ID, old)
			if why != "" {
				msg += "; " + why
			}
			st := e.step(ctx, rep, StepNeutralised, msg)
			st.RuleID, st.PreviousRuleID = created.ID, old
			deleted = nil
		}
	}
	return nil
}

// createRule creates a firewall rule or port forward of the snapshot's
// cluster and waits for it. It checks for a conflict first (a conflicting
// create is a 537 that keeps nothing); an equivalent rule already in place
// is returned with existed set. A create that fails is not retried: the
// IP's rules are listed again and an equivalent new rule counts as created.
func (e *Engine) createRule(ctx context.Context, s *Snapshot, onIP []rules.Rule, r rules.Rule) (created rules.Rule, existed bool, err error) {
	if same, ok := findEquivalent(onIP, r); ok {
		return same, true, nil
	}
	if conflict, ok := rules.DetectConflict(onIP, r); ok {
		return rules.Rule{}, false, fmt.Errorf("it would conflict with rule %s (%s %s)", conflict.ID, conflict.Kind,
			portRange(conflict.StartPort, conflict.EndPort))
	}
	id, err := e.createAndWait(ctx, r)
	if err == nil {
		r.ID = id
		return r, false, nil
	}
	// The rule may exist although the call failed (a lost response, a job
	// failing after the insert): look before reporting a failure.
	if ctx.Err() == nil {
		if now, lerr := e.rulesOnIP(ctx, s.projectID(), r.IPAddressID); lerr == nil {
			if same, ok := findEquivalent(newRules(onIP, now), r); ok {
				return same, false, nil
			}
		}
	}
	return rules.Rule{}, false, err
}

func (e *Engine) createAndWait(ctx context.Context, r rules.Rule) (string, error) {
	var (
		ref     cloudstack.AsyncRef
		err     error
		command string
	)
	switch r.Kind {
	case rules.KindFirewall:
		command = "createFirewallRule"
		ref, err = e.api.CreateFirewallRule(ctx, cloudstack.CreateFirewallRuleParams{
			IPAddressID: r.IPAddressID, Protocol: r.Protocol, StartPort: r.StartPort, EndPort: r.EndPort,
			CIDRList: slices.Clone(r.CIDRs)})
	case rules.KindPortForward:
		command = "createPortForwardingRule"
		// CKS forwards have no linked firewall rule: openfirewall=false.
		ref, err = e.api.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{
			IPAddressID: r.IPAddressID, Protocol: r.Protocol, PublicPort: r.StartPort, PublicEndPort: r.EndPort,
			PrivatePort: r.PrivatePort, PrivateEndPort: r.PrivateEndPort, VirtualMachineID: r.VMID,
			NetworkID: r.NetworkID, CIDRList: slices.Clone(r.CIDRs), OpenFirewall: false})
	default:
		return "", fmt.Errorf("creating %s rules is not supported", r.Kind)
	}
	if err != nil {
		return "", err
	}
	res, err := e.wait(ctx, command, ref.JobID)
	if err != nil {
		return "", err
	}
	if ref.ID != "" {
		return ref.ID, nil
	}
	return cloudstack.DecodeCreatedID(res)
}

// deleteRule deletes a firewall rule or port forward of the snapshot's
// cluster and waits. A rule that is already gone counts as deleted.
func (e *Engine) deleteRule(ctx context.Context, s *Snapshot, r rules.Rule) error {
	var (
		ref     cloudstack.AsyncRef
		err     error
		command string
	)
	switch r.Kind {
	case rules.KindFirewall:
		command = "deleteFirewallRule"
		ref, err = e.api.DeleteFirewallRule(ctx, r.ID)
	case rules.KindPortForward:
		command = "deletePortForwardingRule"
		ref, err = e.api.DeletePortForwardingRule(ctx, r.ID)
	default:
		return fmt.Errorf("deleting %s rules is not supported", r.Kind)
	}
	if err == nil {
		_, err = e.wait(ctx, command, ref.JobID)
	}
	if err == nil || cloudstack.IsNotFound(err) {
		return nil
	}
	if ctx.Err() == nil {
		if now, lerr := e.rulesOnIP(ctx, s.projectID(), r.IPAddressID); lerr == nil && !slices.ContainsFunc(now, func(x rules.Rule) bool { return x.ID == r.ID }) {
			return nil
		}
	}
	return err
}

// findEquivalent finds a rule with the same kind, protocol, ports, target
// and CIDRs as r.
func findEquivalent(list []rules.Rule, r rules.Rule) (rules.Rule, bool) {
	for _, x := range list {
		if equivalent(x, r) {
			return x, true
		}
	}
	return rules.Rule{}, false
}

func equivalent(a, b rules.Rule) bool {
	if a.Kind != b.Kind || !strings.EqualFold(strings.TrimSpace(a.Protocol), strings.TrimSpace(b.Protocol)) ||
		a.StartPort != b.StartPort || end(a) != end(b) {
		return false
	}
	if a.Kind == rules.KindPortForward && (a.VMID != b.VMID || a.PrivatePort != b.PrivatePort ||
		privateEnd(a) != privateEnd(b)) {
		return false
	}
	return sameCIDRs(a.CIDRs, b.CIDRs)
}

func end(r rules.Rule) int {
	if r.EndPort == 0 {
		return r.StartPort
	}
	return r.EndPort
}

func privateEnd(r rules.Rule) int {
	if r.PrivateEndPort == 0 {
		return r.PrivatePort
	}
	return r.PrivateEndPort
}

func sameCIDRs(a, b []string) bool {
	norm := func(in []string) []string {
		var out []string
		for _, c := range in {
			if c = strings.TrimSpace(c); c != "" {
				out = append(out, c)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}

// newRules returns the rules of now that are not in before.
func newRules(before, now []rules.Rule) []rules.Rule {
	var out []rules.Rule
	for _, r := range now {
		if !slices.ContainsFunc(before, func(x rules.Rule) bool { return x.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}

func withoutRule(list []rules.Rule, id string) []rules.Rule {
	return slices.DeleteFunc(slices.Clone(list), func(r rules.Rule) bool { return r.ID == id })
}

// errNoNodeRange is the reason a scale of an isolated cluster is refused
// when its node SSH range cannot be put in place.
var errNoNodeRange = errors.New("the cluster has no node SSH firewall range (2222-…) and it could not be re-created; " +
	"CloudStack's scale would fail with \"Firewall rule for node SSH access can't be provisioned\" or revoke another rule")
