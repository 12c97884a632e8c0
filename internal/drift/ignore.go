package drift

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// IgnoreRule accepts findings a team knows about, so that a gate passes on
// them without being turned off, as driftctl's .driftignore does. A rule
// matches a finding when every criterion it sets matches; it has at least
// one. Ignored findings are never dropped: they move to Result.Ignored
// with the rule's reason. Once the rule expires it ignores nothing, and
// RuleUse says which findings count again because of that.
type IgnoreRule struct {
	// Kind is a finding kind; "" matches any.
	Kind string
	// VMName, NodeName and ClusterName must match the finding's VM name,
	// Kubernetes node name and cluster name (unanchored, like
	// regexp.MatchString); nil matches any. A finding without a VM name
	// never matches a VMName pattern, and likewise for nodes.
	VMName, NodeName, ClusterName *regexp.Regexp
	// Reason says why the finding is accepted; it is mandatory.
	Reason string
	// Expires is when the rule stops ignoring; zero means never.
	Expires time.Time
	// ExpiresText is the expiry as it was written, for reports.
	ExpiresText string
}

// Expired tells whether the rule no longer ignores anything at now.
func (r IgnoreRule) Expired(now time.Time) bool {
	return !r.Expires.IsZero() && !now.Before(r.Expires)
}

func (r IgnoreRule) matches(f Finding, cluster string) bool {
	matchName := func(re *regexp.Regexp, name string) bool {
		return re == nil || (name != "" && re.MatchString(name))
	}
	return (r.Kind == "" || r.Kind == f.Kind) && matchName(r.VMName, f.VMName) &&
		matchName(r.NodeName, f.NodeName) && matchName(r.ClusterName, cluster)
}

// IgnoredFinding is a finding a rule ignored.
type IgnoredFinding struct {
	Finding
	// Rule is the index of the rule that ignored it: the first rule, in
	// order, that matches and has not expired.
	Rule    int
	Reason  string
	Expires string
}

// RuleUse is what one rule did to a result (or, added up, to a fleet).
type RuleUse struct {
	// Matched counts the findings the rule ignored.
	Matched int
	// Expired tells that the rule had expired when the check ran.
	Expired bool
	// ExpiredMatches counts the findings the rule matches but no longer
	// ignores because it expired (and no other rule ignored).
	ExpiredMatches int
	// Shadowed counts the findings the rule matches that an earlier rule
	// ignored, the first rule that matches taking a finding; ShadowedBy is
	// the index of the earliest such rule (meaningful only when Shadowed
	// is not zero).
	Shadowed   int
	ShadowedBy int
}

// Stale tells whether the rule ignored nothing and, expired or not,
// matched nothing, not even findings an earlier rule took: a rule a team
// wants to hear about.
func (u RuleUse) Stale() bool { return u.Matched == 0 && u.ExpiredMatches == 0 && u.Shadowed == 0 }

// noteShadowed counts, for each live rule after the one that took f, that
// it matches f too.
func noteShadowed(uses []RuleUse, rules []IgnoreRule, taker int, f Finding, cluster string) {
	for j := taker + 1; j < len(rules); j++ {
		if uses[j].Expired || !rules[j].matches(f, cluster) {
			continue
		}
		if uses[j].Shadowed == 0 || taker < uses[j].ShadowedBy {
			uses[j].ShadowedBy = taker
		}
		uses[j].Shadowed++
	}
}

// ApplyIgnores moves the findings the rules ignore out of res.Findings into
// res.Ignored and recomputes the counts, in_sync and the summary from what
// is left. A skipped result has no findings and only records which rules
// expired.
func ApplyIgnores(res Result, cluster string, rules []IgnoreRule, now time.Time) Result {
	res.RuleUses = make([]RuleUse, len(rules))
	for i, r := range rules {
		res.RuleUses[i].Expired = r.Expired(now)
	}
	res.IgnoredCounts = countFindings(nil)
	if len(rules) == 0 || res.Skipped {
		return res
	}
	var kept []Finding
	for _, f := range res.Findings {
		rule := -1
		for i, r := range rules {
			if !r.matches(f, cluster) {
				continue
			}
			if res.RuleUses[i].Expired {
				res.RuleUses[i].ExpiredMatches++
				continue
			}
			rule = i
			break
		}
		if rule < 0 {
			kept = append(kept, f)
			continue
		}
		res.RuleUses[rule].Matched++
		noteShadowed(res.RuleUses, rules, rule, f, cluster)
		res.Ignored = append(res.Ignored, IgnoredFinding{Finding: f, Rule: rule, Reason: rules[rule].Reason,
			Expires: rules[rule].ExpiresText})
	}
	// An expired rule counted a finding that a later rule ignored anyway:
	// only findings left in the report count again because of it.
	for i := range res.RuleUses {
		if res.RuleUses[i].ExpiredMatches > 0 {
			res.RuleUses[i].ExpiredMatches = countMatches(rules[i], kept, cluster)
		}
	}
	res.Findings = kept
	res.Counts = countFindings(kept)
	ignored := make([]Finding, 0, len(res.Ignored))
	for _, f := range res.Ignored {
		ignored = append(ignored, f.Finding)
	}
	res.IgnoredCounts = countFindings(ignored)
	res.InSync = len(kept) == 0 && len(res.Incomplete) == 0
	res.Summary = Summarize(res)
	return res
}

func countMatches(r IgnoreRule, fs []Finding, cluster string) int {
	n := 0
	for _, f := range fs {
		if r.matches(f, cluster) {
			n++
		}
	}
	return n
}

// IgnoreSpec is an ignore rule as written: patterns as Go regular
// expressions, the expiry as an RFC 3339 date or date-time.
type IgnoreSpec struct {
	Kind, VMName, NodeName, ClusterName, Reason, Expires string
	// ExpiresSet tells that an expiry was written, so that an empty one is
	// refused instead of read as "never" (which is leaving it out).
	ExpiresSet bool
}

// Fields of an IgnoreSpec, as IgnoreFieldError names them.
const (
	IgnoreFieldKind        = "kind"
	IgnoreFieldVMName      = "vm_name"
	IgnoreFieldNodeName    = "node_name"
	IgnoreFieldClusterName = "cluster_name"
	IgnoreFieldReason      = "reason"
	IgnoreFieldExpires     = "expires"
)

// IgnoreFieldError is a problem with one field of a spec; Field is empty
// when the rule as a whole is wrong.
type IgnoreFieldError struct {
	Field string
	Err   error
}

func (e IgnoreFieldError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Err.Error()
}

// CompileIgnore checks a spec and builds its rule, with every problem it
// finds.
func CompileIgnore(spec IgnoreSpec) (IgnoreRule, []IgnoreFieldError) {
	var problems []IgnoreFieldError
	bad := func(field string, err error) { problems = append(problems, IgnoreFieldError{Field: field, Err: err}) }
	r := IgnoreRule{Kind: spec.Kind, Reason: strings.TrimSpace(spec.Reason), ExpiresText: spec.Expires}
	if r.Kind != "" && !slices.Contains(Kinds(), r.Kind) {
		bad(IgnoreFieldKind, fmt.Errorf("%q is not a finding kind (one of %s)", r.Kind, strings.Join(Kinds(), ", ")))
	}
	for _, p := range []struct {
		field, pattern string
		re             **regexp.Regexp
	}{{IgnoreFieldVMName, spec.VMName, &r.VMName}, {IgnoreFieldNodeName, spec.NodeName, &r.NodeName},
		{IgnoreFieldClusterName, spec.ClusterName, &r.ClusterName}} {
		if p.pattern == "" {
			continue
		}
		re, err := regexp.Compile(p.pattern)
		if err != nil {
			bad(p.field, fmt.Errorf("not a Go regular expression: %w", err))
			continue
		}
		*p.re = re
	}
	if r.Reason == "" {
		bad(IgnoreFieldReason, errors.New("a reason is mandatory: say why the finding is accepted (a ticket, an owner)"))
	}
	if spec.Expires != "" || spec.ExpiresSet {
		t, err := ParseExpiry(spec.Expires)
		if err != nil {
			bad(IgnoreFieldExpires, err)
		}
		r.Expires = t
	}
	if spec.Kind == "" && spec.VMName == "" && spec.NodeName == "" && spec.ClusterName == "" {
		bad("", errors.New("a rule needs at least one of kind, vm_name, node_name and cluster_name: "+
			"one with none would ignore every finding"))
	}
	return r, problems
}

// ParseExpiry reads an RFC 3339 date-time, or a date, which expires at its
// start (00:00 UTC): "2026-12-31" ignores until the end of 30 December.
func ParseExpiry(s string) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, errors.New("an empty expiry is no date: leave expires out for a rule that never expires")
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 date (2026-12-31) nor a date-time (2026-12-31T18:00:00Z)", s)
}

// AddRuleUses adds the uses of one result to a running total of the same
// rules.
func AddRuleUses(total, uses []RuleUse) []RuleUse {
	for i, u := range uses {
		if i >= len(total) {
			break
		}
		total[i].Matched += u.Matched
		total[i].ExpiredMatches += u.ExpiredMatches
		total[i].Expired = total[i].Expired || u.Expired
		if u.Shadowed > 0 && (total[i].Shadowed == 0 || u.ShadowedBy < total[i].ShadowedBy) {
			total[i].ShadowedBy = u.ShadowedBy
		}
		total[i].Shadowed += u.Shadowed
	}
	return total
}

// IgnoredText is e.g. "2 findings ignored (1 node_not_ready, 1 scale_hazard)",
// for summaries; "" when nothing was ignored.
func IgnoredText(counts map[string]int) string {
	var parts []string
	total := 0
	for _, k := range Kinds() {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
			total += n
		}
	}
	switch total {
	case 0:
		return ""
	case 1:
		return "1 finding ignored (" + parts[0] + ")"
	}
	return fmt.Sprintf("%d findings ignored (%s)", total, strings.Join(parts, ", "))
}
