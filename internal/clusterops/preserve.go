package clusterops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// recordCollateral remembers the user forwards a scale's forward cleanup
// will delete, with the firewall rules of the same ports on their IPs
// (openfirewall=true links one to a forward, and revoking the forward
// revokes it too), so that restoreCollateral can put them back.
func (e *Engine) recordCollateral(ctx context.Context, s *Snapshot, hazards []rules.Hazard, rep *Report) ([]rules.Rule, error) {
	var out []rules.Rule
	byIP := map[string][]rules.Rule{}
	for _, h := range hazards {
		pf := h.Rule
		onIP, ok := byIP[pf.IPAddressID]
		if !ok {
			var err error
			if onIP, err = e.rulesOnIP(ctx, s.projectID(), pf.IPAddressID); err != nil {
				return nil, err
			}
			byIP[pf.IPAddressID] = onIP
		}
		out = append(out, pf)
		what := s.describeRule(pf, rules.PurposeUser)
		for _, fw := range onIP {
			if fw.Kind == rules.KindFirewall && strings.EqualFold(fw.Protocol, pf.Protocol) &&
				fw.StartPort == pf.StartPort && end(fw) == end(pf) {
				out = append(out, fw)
				what += " and " + s.describeRule(fw, rules.PurposeUser)
			}
		}
		st := e.step(ctx, rep, StepPreserved, fmt.Sprintf("recorded %s (rule %s) to re-create it after the scale, whose forward cleanup "+
			"deletes every forward of the network starting in the node SSH range", what, pf.ID))
		st.PreviousRuleID = pf.ID
	}
	return out, nil
}

// restoreCollateral re-creates the recorded user rules that are gone. Each
// one it cannot re-create gets a StepBlocked step naming it.
func (e *Engine) restoreCollateral(ctx context.Context, s *Snapshot, recorded []rules.Rule, rep *Report) error {
	var errs []error
	byIP := map[string][]rules.Rule{}
	for _, r := range recorded {
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
		st := e.step(ctx, rep, StepPreserved, fmt.Sprintf("re-created %s as rule %s (was rule %s), which the scale deleted", desc, created.ID, r.ID))
		st.RuleID, st.PreviousRuleID = created.ID, r.ID
	}
	return errors.Join(errs...)
}

// reportUnrestored adds a StepBlocked step for each recorded user rule
// that was not restored after the scale, so that the warning names it.
func (e *Engine) reportUnrestored(ctx context.Context, s *Snapshot, recorded []rules.Rule, rep *Report, cause error) {
	for _, r := range recorded {
		st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not re-create %s (was rule %s) after the scale, which may have "+
			"deleted it: %v; check it and re-create it if it is gone", s.describeRule(r, rules.PurposeUser), r.ID, cause))
		st.PreviousRuleID = r.ID
	}
}
