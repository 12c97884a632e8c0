package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// The cluster's own SSH rules when their CIDRs are not the check's.
//
// The rules classification knows the cluster's SSH firewall rules by their
// CIDRs: the check's ssh_cidrs, or 0.0.0.0/0, which CKS gives them. A rule
// the provider made with the CIDRs it had before an ssh_cidrs change, or one
// someone re-created with other CIDRs, would then be a user rule: the range
// it serves reported missing, and the rule itself a scale hazard. But it is
// the cluster's range to CloudStack: the scale revokes the TCP rule that
// starts at 2222 whoever made it
// (KubernetesClusterResourceModifierActionWorker.removeSshFirewallRule), and
// nothing but the provider's layout puts a rule on the etcd range's exact
// ports. So when one rule, and only one, has the exact ports of the node SSH
// range (or of the etcd SSH range) and none has them with the expected
// CIDRs, it is taken for the cluster's own and reported as
// ssh_cidrs_mismatch with both CIDR lists. Two such rules stay what they
// were: which one is the cluster's cannot be told, and either way a scale
// may pick the other.

// withOwnSSHRules returns the view whose layout also owns the CIDRs of the
// cluster's SSH ranges that carry other CIDRs than the check's.
func withOwnSSHRules(view *RulesView) *RulesView {
	l := view.Layout
	if l.Network != rules.NetworkIsolated {
		return view
	}
	var nodeRange rules.Expectation
	for _, e := range rules.Expected(l) {
		if e.Purpose == rules.PurposeNodeSSHRange {
			nodeRange = e
		}
	}
	candidates := map[rules.Purpose][]rules.Rule{}
	owned := map[rules.Purpose]bool{}
	for _, r := range view.Firewalls() {
		purpose, ok := sshRangeOf(l, nodeRange, r)
		if !ok {
			continue
		}
		if rules.Classify(l, []rules.Rule{r}).Rules[0].Owned() {
			owned[purpose] = true
			continue
		}
		candidates[purpose] = append(candidates[purpose], r)
	}
	adopted := slices.Clone(l.FormerSSHCIDRs)
	for _, purpose := range []rules.Purpose{rules.PurposeNodeSSHRange, rules.PurposeEtcdSSHRange} {
		if list := candidates[purpose]; len(list) == 1 && !owned[purpose] {
			adopted = append(adopted, list[0].CIDRs)
		}
	}
	if len(adopted) == len(l.FormerSSHCIDRs) {
		return view
	}
	out := *view
	out.Layout.FormerSSHCIDRs = adopted
	return &out
}

// sshRangeOf tells which SSH range of the layout a rule has the exact
// ports of, whatever its CIDRs: the node SSH range (2222 to 2222+C+W-1) or
// an etcd SSH range.
func sshRangeOf(l rules.Layout, nodeRange rules.Expectation, r rules.Rule) (rules.Purpose, bool) {
	trial := l
	trial.FormerSSHCIDRs = append(slices.Clone(l.FormerSSHCIDRs), r.CIDRs)
	switch cr := rules.Classify(trial, []rules.Rule{r}).Rules[0]; cr.Purpose {
	case rules.PurposeEtcdSSHRange:
		return cr.Purpose, true
	case rules.PurposeNodeSSHRange:
		return cr.Purpose, nodeRange.Purpose != "" && r.StartPort == nodeRange.StartPort && r.End() == nodeRange.EndPort
	}
	return "", false
}

// reportSSHCIDRs reports a stale SSH range of the cluster whose only
// difference from the layout is its CIDRs as ssh_cidrs_mismatch, and
// records it in stale, so that its range is not also reported missing. It
// tells whether it reported the rule.
func (c *comparison) reportSSHCIDRs(l rules.Layout, s rules.ClassifiedRule, stale *staleKinds) bool {
	if s.Purpose != rules.PurposeNodeSSHRange && s.Purpose != rules.PurposeEtcdSSHRange {
		return false
	}
	var want rules.Expectation
	for _, e := range rules.Expected(l) {
		if e.Purpose == s.Purpose {
			want = e
		}
	}
	r := s.Rule
	if want.Purpose == "" || (s.Purpose == rules.PurposeNodeSSHRange && (r.StartPort != want.StartPort || r.End() != want.EndPort)) {
		return false
	}
	live, expected := sortedCIDRs(r.CIDRs), sortedCIDRs(want.CIDRs)
	if slices.Equal(live, expected) {
		return false
	}
	what := "node SSH firewall range"
	if s.Purpose == rules.PurposeEtcdSSHRange {
		what = "etcd SSH firewall range"
		stale.etcdRange = true
	} else {
		stale.nodeRange = true
	}
	c.add(Finding{Kind: KindSSHCIDRsMismatch, RuleID: r.ID, Attribute: "ssh_cidrs", Live: live, Expected: expected,
		Message: fmt.Sprintf("%s %d-%d (rule %s) is open to %s, not to %s: changed out of band, re-opened by a scale, or "+
			"ssh_cidrs changed and not applied yet; if the cks_cluster sets ssh_cidrs, give the check the same",
			what, r.StartPort, r.End(), r.ID, strings.Join(live, ","), strings.Join(expected, ","))})
	return true
}

// describeAPIRules gives each api_rule_mismatch finding about a rule the
// rule's CIDRs and the check's, so that a policy can read them.
func (c *comparison) describeAPIRules(view *RulesView) {
	var expected []string
	for _, e := range rules.Expected(view.Layout) {
		if e.Purpose == rules.PurposeAPIFirewall {
			expected = sortedCIDRs(e.CIDRs)
		}
	}
	byID := map[string]rules.Rule{}
	for _, r := range view.Firewalls() {
		byID[r.ID] = r
	}
	for i := range c.findings {
		f := &c.findings[i]
		r, ok := byID[f.RuleID]
		if f.Kind != KindAPIRuleMismatch || !ok || expected == nil {
			continue
		}
		f.Attribute, f.Live, f.Expected = "api_cidrs", sortedCIDRs(r.CIDRs), expected
	}
}

// sortedCIDRs is a CIDR list as a set (rules.NormalCIDRs), never nil: a
// finding's live and expected lists are empty lists, not absent ones.
func sortedCIDRs(in []string) []string {
	return append([]string{}, rules.NormalCIDRs(in)...)
}
