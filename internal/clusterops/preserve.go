package clusterops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// moveAside deletes the user firewall rules that would make the scale go
// wrong, and records the user forwards its cleanup will delete, with the
// firewall rules of the same ports on their IPs (openfirewall=true links
// one to a forward, and revoking the forward revokes it too). It returns
// every rule to re-create after the scale, the deleted ones included even
// when a later step failed.
func (e *Engine) moveAside(ctx context.Context, s *Snapshot, prep scalePrep, rep *Report) ([]rules.Rule, error) {
	var out []rules.Rule
	byIP := map[string][]rules.Rule{}
	for _, h := range prep.recordForwards {
		pf := h.Rule
		onIP, ok := byIP[pf.IPAddressID]
		if !ok {
			var err error
			if onIP, err = e.rulesOnIP(ctx, s.projectID(), pf.IPAddressID); err != nil {
				return out, err
			}
			byIP[pf.IPAddressID] = onIP
		}
		out = append(out, pf)
		what := s.describeRule(pf, rules.PurposeUser)
		for _, fw := range onIP {
			if fw.Kind == rules.KindFirewall && strings.EqualFold(fw.Protocol, pf.Protocol) &&
				fw.StartPort == pf.StartPort && fw.End() == pf.End() {
				out = append(out, fw)
				what += " and " + s.describeRule(fw, rules.PurposeUser)
			}
		}
		st := e.step(ctx, rep, StepMoved, fmt.Sprintf("recorded %s (rule %s) to re-create it after the scale, whose forward cleanup "+
			"deletes every forward of the network starting in the node SSH range", what, pf.ID))
		st.PreviousRuleID = pf.ID
	}
	for _, h := range prep.moveFirewalls {
		fw := h.Rule
		if err := e.deleteRule(ctx, s, fw); err != nil {
			return out, fmt.Errorf("deleting %s (rule %s) before the scale: %w", s.describeRule(fw, rules.PurposeUser), fw.ID, err)
		}
		out = append(out, fw)
		st := e.step(ctx, rep, StepMoved, fmt.Sprintf("deleted %s (rule %s) for the scale, which could otherwise revoke it "+
			"instead of the node SSH range; it is re-created after the scale", s.describeRule(fw, rules.PurposeUser), fw.ID))
		st.PreviousRuleID = fw.ID
	}
	return out, nil
}

// restoreMoved re-creates the moved user rules that are gone. Each one it
// cannot re-create gets a StepBlocked step naming it.
func (e *Engine) restoreMoved(ctx context.Context, s *Snapshot, moved []rules.Rule, rep *Report) error {
	var errs []error
	byIP := map[string][]rules.Rule{}
	for _, r := range moved {
		desc := s.describeRule(r, rules.PurposeUser)
		onIP, ok := byIP[r.IPAddressID]
		if !ok {
			var err error
			if onIP, err = e.rulesOnIP(ctx, s.projectID(), r.IPAddressID); err != nil {
				e.reportUnrestored(ctx, s, []rules.Rule{r}, rep, err)
				errs = append(errs, fmt.Errorf("re-creating %s (was rule %s): %w", desc, r.ID, err))
				continue
			}
			byIP[r.IPAddressID] = onIP
		}
		if _, ok := findEquivalent(onIP, r); ok {
			continue
		}
		created, _, err := e.createRule(ctx, s, onIP, r)
		if err != nil {
			e.reportUnrestored(ctx, s, []rules.Rule{r}, rep, err)
			errs = append(errs, fmt.Errorf("re-creating %s (was rule %s): %w", desc, r.ID, err))
			continue
		}
		byIP[r.IPAddressID] = append(onIP, created)
		st := e.step(ctx, rep, StepMoved, fmt.Sprintf("re-created %s as rule %s (was rule %s) after the scale", desc, created.ID, r.ID))
		st.RuleID, st.PreviousRuleID = created.ID, r.ID
	}
	if s.PublicIPID != "" && len(byIP[s.PublicIPID]) > 0 {
		s.Rules = byIP[s.PublicIPID]
	}
	return errors.Join(errs...)
}

// reportUnrestored adds a StepBlocked step for each moved user rule that
// was not restored after the scale, so that the warning names it.
func (e *Engine) reportUnrestored(ctx context.Context, s *Snapshot, moved []rules.Rule, rep *Report, cause error) {
	for _, r := range moved {
		st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not re-create %s (was rule %s) after the scale, which may have "+
			"deleted it: %v; check it and re-create it if it is gone", s.describeRule(r, rules.PurposeUser), r.ID, cause))
		st.PreviousRuleID = r.ID
	}
}
