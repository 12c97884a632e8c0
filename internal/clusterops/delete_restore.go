package clusterops

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// restoreAttempts bounds the creates of one user rule the destroy took.
// Each attempt reads the IP's rules first, so a create that went through
// unanswered is found, never sent twice.
const restoreAttempts = 3

// restoreTaken re-creates, with its protocol, ports and CIDRs, each user
// rule at risk that is no longer on the IP: CloudStack's destroy took it
// (removeApiFirewallRule and removeSshFirewallRule revoke the first rule
// their test accepts, whoever made it). A rule someone else has already
// put back (an equivalent rule on the IP) counts as there. now are the
// IP's rules as read after the destroy.
func (e *Engine) restoreTaken(ctx context.Context, s *Snapshot, atRisk []rules.Rule, now []rules.Rule, rep *Report) {
	for _, r := range atRisk {
		if _, there := findEquivalent(now, r); there {
			continue
		}
		created, err := e.restoreRule(ctx, s, r, now)
		if err != nil {
			st := e.step(ctx, rep, StepBlocked, fmt.Sprintf("could not re-create your %s (was rule %s), which CloudStack's "+
				"destroy revoked (%s): %v; create it again yourself", describeUserRule(r), r.ID, whyTaken(r), err))
			st.PreviousRuleID = r.ID
			continue
		}
		now = append(now, created)
		st := e.step(ctx, rep, StepRestored, fmt.Sprintf("re-created your %s as rule %s: CloudStack's destroy revoked it (was "+
			"rule %s) because %s", describeUserRule(r), created.ID, r.ID, whyTaken(r)))
		st.RuleID, st.PreviousRuleID = created.ID, r.ID
	}
}

// restoreRule creates a user rule again, reading the IP's rules before each
// attempt after the first.
func (e *Engine) restoreRule(ctx context.Context, s *Snapshot, r rules.Rule, now []rules.Rule) (rules.Rule, error) {
	again := r
	again.ID = ""
	var err error
	for attempt := range restoreAttempts {
		if attempt > 0 {
			fresh, lerr := e.rulesOnIP(ctx, s.projectID(), r.IPAddressID)
			if lerr != nil {
				continue
			}
			now = fresh
		}
		if conflict, ok := rules.DetectConflict(now, again); ok {
			return rules.Rule{}, fmt.Errorf("it would conflict with rule %s (%s %s)", conflict.ID, conflict.Kind,
				rules.PortRange(conflict.StartPort, conflict.EndPort))
		}
		var created rules.Rule
		if created, _, err = e.createRule(ctx, s, now, again); err == nil {
			return created, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return rules.Rule{}, err
}

// whyTaken says which pick of the destroy worker took a user rule.
func whyTaken(r rules.Rule) string {
	if r.StartPort == rules.APIPort && r.End() == rules.APIPort {
		return "it revokes the first TCP firewall rule of the IP on exactly 6443, in an order the database does not " +
			"promise, whoever made it"
	}
	return "its SSH rule pick revokes the first TCP firewall rule of the IP that starts at 2222 or has the ports of a " +
		"forward to port 22, in an order the database does not promise, whoever made it"
}

// describeUserRule names a user firewall rule by what it is, so that a
// user can create it again: "firewall rule tcp 6443 from 10.0.0.0/8".
func describeUserRule(r rules.Rule) string {
	return fmt.Sprintf("firewall rule %s %s from %s", strings.ToLower(r.Protocol), rules.PortRange(r.StartPort, r.EndPort), rules.CIDRText(r.CIDRs))
}
