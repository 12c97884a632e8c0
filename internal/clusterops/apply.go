package clusterops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// maxRuleJobs bounds the rule jobs one wave runs at once.
const maxRuleJobs = 4

// applySync runs a rules.Plan wave by wave, the actions of a wave
// concurrently, and reports each change and each blocked rule. Once the
// first change is made the plan runs on a detached, bounded context: the
// caller's deadline falling between a delete and the create that replaces
// it would leave an SSH path closed.
func (e *Engine) applySync(ctx context.Context, s *Snapshot, p rules.Plan, rep *Report) error {
	e.reportBlocked(ctx, s, p, rep)
	if p.Empty() && s.ACLClassification.InSync() {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkPlanCIDRs(s, p); err != nil {
		return err
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	// The network ACL items first: the forwards lead nowhere without them.
	if err := e.applyACLSync(ctx, s, rep); err != nil {
		return err
	}
	cur := slices.Clone(s.Rules)
	deleted := map[rules.Purpose][]rules.Rule{}
	first := len(rep.Steps)
	for _, wave := range p.Waves {
		var err error
		if cur, err = e.runWave(ctx, s, wave, cur, deleted, rep); err != nil {
			return err
		}
	}
	s.Rules = cur
	s.reclassify()
	markRoutine(rep, first, p, s)
	return nil
}

// reportBlocked reports each rule of the plan that a rule in its way keeps
// from being created.
func (e *Engine) reportBlocked(ctx context.Context, s *Snapshot, p rules.Plan, rep *Report) {
	for _, b := range p.Blocked {
		purpose, why := rules.PurposeUser, "which is not CKS's to delete"
		if cr, ok := s.Classification.Lookup(b.Conflict.ID); ok && cr.Owned() {
			purpose, why = cr.Purpose, "which CKS needs too, and no other port of the range is free"
		}
		e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not create missing %s: it would conflict with rule %s (%s), %s%s",
			s.describeRule(b.Expectation.Rule(s.Layout), b.Expectation.Purpose), b.Conflict.ID,
			s.describeRule(b.Conflict, purpose), why, s.keptText(b)))
	}
}

// checkPlanCIDRs refuses, before any change, a plan whose firewall rules
// have source CIDRs of another address family than the IP.
func checkPlanCIDRs(s *Snapshot, p rules.Plan) error {
	for _, a := range p.Actions() {
		if a.Op == rules.OpCreate && a.Rule.Kind == rules.KindFirewall {
			if err := CheckCIDRFamily(s.PublicIP, a.Rule.CIDRs); err != nil {
				return err
			}
		}
	}
	return nil
}

// runWave runs the actions of one wave concurrently and returns the IP's
// rules after it. A create that fails has what it was to replace restored.
func (e *Engine) runWave(ctx context.Context, s *Snapshot, wave []rules.Action, cur []rules.Rule,
	deleted map[rules.Purpose][]rules.Rule, rep *Report,
) ([]rules.Rule, error) {
	results := make([]ruleResult, len(wave))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxRuleJobs)
	for i, a := range wave {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = e.applyAction(ctx, s, cur, a)
		})
	}
	wg.Wait()
	var errs []error
	for i, a := range wave {
		res := results[i]
		if res.err != nil {
			errs = append(errs, res.err)
			if a.Op == rules.OpCreate {
				cur = e.restoreReplaced(ctx, s, cur, a, deleted, rep)
			}
			continue
		}
		switch a.Op {
		case rules.OpDelete:
			cur = withoutRule(cur, a.Rule.ID)
			deleted[a.Purpose] = append(deleted[a.Purpose], a.Rule)
		case rules.OpCreate:
			cur = append(cur, res.rule)
		}
		e.reportAction(ctx, s, a, res, deleted, rep)
	}
	return cur, errors.Join(errs...)
}

// restoreReplaced re-creates the rules this sync deleted to make room for
// a create that then failed (CKS's single-port etcd rules before the etcd
// SSH range): the change is undone rather than left half-done, and the
// rules are as they were.
func (e *Engine) restoreReplaced(ctx context.Context, s *Snapshot, cur []rules.Rule, failed rules.Action,
	deleted map[rules.Purpose][]rules.Rule, rep *Report,
) []rules.Rule {
	for purpose, list := range deleted {
		for _, old := range list {
			if _, clash := rules.DetectConflict([]rules.Rule{old}, failed.Rule); !clash {
				continue
			}
			again := old
			again.ID = ""
			desc := s.describeRule(again, purpose)
			created, _, err := e.createRule(ctx, s, cur, again)
			if err != nil {
				e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not restore %s (was rule %s) after the failure of what was to "+
					"replace it: %v", desc, old.ID, err))
				continue
			}
			cur = append(cur, created)
			st := e.step(ctx, rep, StepRepaired, fmt.Sprintf("restored %s as rule %s, since what was to replace it could not be "+
				"created", desc, created.ID))
			st.RuleID, st.PreviousRuleID = created.ID, old.ID
		}
	}
	return cur
}

type ruleResult struct {
	rule    rules.Rule
	existed bool
	err     error
}

func (e *Engine) applyAction(ctx context.Context, s *Snapshot, onIP []rules.Rule, a rules.Action) ruleResult {
	desc := s.describeRule(a.Rule, a.Purpose)
	switch a.Op {
	case rules.OpDelete:
		if err := e.deleteRule(ctx, s, a.Rule); err != nil {
			return ruleResult{err: fmt.Errorf("deleting %s (rule %s): %w", desc, a.Rule.ID, err)}
		}
		return ruleResult{rule: a.Rule}
	default:
		created, existed, err := e.createRule(ctx, s, onIP, a.Rule)
		if err != nil {
			return ruleResult{err: fmt.Errorf("creating %s: %w", desc, err)}
		}
		return ruleResult{rule: created, existed: existed}
	}
}

// reportAction adds the step of one applied action.
func (e *Engine) reportAction(ctx context.Context, s *Snapshot, a rules.Action, res ruleResult, deleted map[rules.Purpose][]rules.Rule, rep *Report) {
	desc := s.describeRule(a.Rule, a.Purpose)
	var st *Step
	switch {
	case a.Op == rules.OpDelete && a.Purpose == rules.PurposeEtcdFirewall:
		st = e.step(ctx, rep, StepHardened, fmt.Sprintf("deleted CKS's %s (rule %s), which has the exact ports of its forward to port 22 "+
			"so that CloudStack's scale can revoke it instead of the node SSH range (#14159); one etcd SSH range replaces it", desc, a.Rule.ID))
		st.PreviousRuleID = a.Rule.ID
	case a.Op == rules.OpDelete:
		st = e.step(ctx, rep, StepRepaired, fmt.Sprintf("deleted stale %s (rule %s): %s", desc, a.Rule.ID, strings.TrimPrefix(a.Reason, "stale: ")))
		st.PreviousRuleID = a.Rule.ID
	case res.existed:
		st = e.step(ctx, rep, StepRepaired, fmt.Sprintf("found %s already in place as rule %s", desc, res.rule.ID))
		st.RuleID = res.rule.ID
	case a.Purpose == rules.PurposeEtcdSSHRange:
		msg := fmt.Sprintf("created %s from %s as rule %s: no forward has its ports, so no scale, from any client, can revoke it "+
			"instead of the node SSH range (#14159)", desc, strings.Join(a.Rule.CIDRs, ","), res.rule.ID)
		if singles := deleted[rules.PurposeEtcdFirewall]; len(singles) > 0 {
			msg += fmt.Sprintf("; it replaces %d single-port etcd SSH rule(s), and SSH to the etcd nodes was closed for the one "+
				"rule job between their deletion and its creation", len(singles))
		}
		st = e.step(ctx, rep, StepHardened, msg)
		st.RuleID = res.rule.ID
	case a.Rule.Kind == rules.KindFirewall:
		st = e.step(ctx, rep, StepRepaired, fmt.Sprintf("created missing %s from %s as rule %s", desc, rules.CIDRText(a.Rule.CIDRs), res.rule.ID))
		st.RuleID = res.rule.ID
	default:
		st = e.step(ctx, rep, StepRepaired, fmt.Sprintf("created missing %s as rule %s", desc, res.rule.ID))
		st.RuleID = res.rule.ID
	}
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
			rules.PortRange(conflict.StartPort, conflict.EndPort))
	}
	id, err := e.createAndWait(ctx, r)
	if err == nil {
		r.ID = id
		return r, false, nil
	}
	// The rule may exist although the call failed (a job failing after the
	// insert): look before reporting a failure. When the answer was lost,
	// keep looking for a while, since its job may still run. A create is
	// never sent again.
	if ctx.Err() != nil {
		return rules.Rule{}, false, err
	}
	var found rules.Rule
	seen := func(now []rules.Rule) bool {
		same, ok := findEquivalent(newRules(onIP, now), r)
		found = same
		return ok
	}
	if now, lerr := e.rulesOnIP(ctx, s.projectID(), r.IPAddressID); lerr == nil && seen(now) {
		return found, false, nil
	}
	if outcomeUnknown(err) && e.awaitRules(ctx, s, r.IPAddressID, seen) {
		return found, false, nil
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
// cluster and waits. A rule that is already gone counts as deleted. When
// the answer was lost the rules are read until the rule is gone; a rule
// still there then is deleted once more, which is safe: a second delete of
// a deleted rule is a 431.
func (e *Engine) deleteRule(ctx context.Context, s *Snapshot, r rules.Rule) error {
	err := e.sendDelete(ctx, r)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if now, lerr := e.rulesOnIP(ctx, s.projectID(), r.IPAddressID); lerr == nil && ruleGone(r.ID)(now) {
		return nil
	}
	if !outcomeUnknown(err) {
		return err
	}
	if e.awaitRules(ctx, s, r.IPAddressID, ruleGone(r.ID)) {
		return nil
	}
	if again := e.sendDelete(ctx, r); again != nil {
		return fmt.Errorf("%w; sent again after the rule outlived the lost answer by %s: %w", err, e.opts.UnknownOutcomeWait, again)
	}
	return nil
}

// sendDelete sends one delete of a rule and waits for its job; a rule
// already gone counts as deleted.
func (e *Engine) sendDelete(ctx context.Context, r rules.Rule) error {
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
		a.StartPort != b.StartPort || a.End() != b.End() {
		return false
	}
	if a.Kind == rules.KindPortForward && (a.VMID != b.VMID || a.PrivatePort != b.PrivatePort ||
		a.PrivateEnd() != b.PrivateEnd()) {
		return false
	}
	return rules.SameCIDRs(a.CIDRs, b.CIDRs)
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
