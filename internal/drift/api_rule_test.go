package drift

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// apiClusterInput is a cluster without etcd nodes whose SSH rules all
// match, with the API firewall rules given.
func apiClusterInput(apiCIDRs []string, api ...rules.Rule) Input {
	in := etcdClusterInput("Running", 1, "w1")
	in.Map, in.VMs, in.Cluster.EtcdNodes = in.Map[3:], in.VMs[3:], 0
	in.Rules.Layout.Nodes = in.Rules.Layout.Nodes[3:]
	in.Rules.Layout.APICIDRs = apiCIDRs
	setRules(&in, append([]rules.Rule{lb("lb"), fw("range", 2222, 2223), pf("f0", 2222, "control"), pf("f1", 2223, "w1")}, api...)...)
	return in
}

func withCIDRs(r rules.Rule, cidrs ...string) rules.Rule {
	r.CIDRs = cidrs
	return r
}

func TestAPIRuleAsTheCheckExpectsIt(t *testing.T) {
	t.Parallel()
	assertKinds(t, Compare(apiClusterInput(nil, fw("api", 6443, 6443))))
	assertKinds(t, Compare(apiClusterInput([]string{"10.0.0.0/8"}, withCIDRs(fw("api", 6443, 6443), "10.0.0.0/8"))))
	// A narrowed rule beside CKS's open one, with no api_cidrs given: the
	// narrowed rule is the user's and changes nothing.
	assertKinds(t, Compare(apiClusterInput(nil, fw("api", 6443, 6443), withCIDRs(fw("user", 6443, 6443), "192.0.2.0/24"))))
}

func TestWidenedAPIRuleIsReported(t *testing.T) {
	t.Parallel()
	narrow := []string{"10.0.0.0/8"}
	for name, rs := range map[string][]rules.Rule{
		"open rule added beside the narrow one": {withCIDRs(fw("api", 6443, 6443), "10.0.0.0/8"), fw("wide", 6443, 6443)},
		"narrow rule replaced by an open one":   {fw("wide", 6443, 6443)},
		"narrow rule widened by another CIDR":   {withCIDRs(fw("wide", 6443, 6443), "10.0.0.0/8", "0.0.0.0/0")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Compare(apiClusterInput(narrow, rs...))
			if name == "narrow rule widened by another CIDR" {
				// 10.0.0.0/8 plus 0.0.0.0/0 is no CIDR list CKS or the
				// provider writes: a user rule, and the narrow one is gone.
				assertKinds(t, r, KindAPIRuleMismatch)
				if f := r.Findings[0]; f.RuleID != "wide" || !strings.Contains(f.Message, "opens 6443 to 10.0.0.0/8,0.0.0.0/0, not to 10.0.0.0/8") {
					t.Errorf("finding = %+v", f)
				}
				return
			}
			assertKinds(t, r, KindAPIRuleMismatch)
			if f := r.Findings[0]; f.RuleID != "wide" || !strings.Contains(f.Message, "open to 0.0.0.0/0, expected 10.0.0.0/8") {
				t.Errorf("finding = %+v", f)
			}
		})
	}
}

func TestNarrowedAPIRuleUnknownToTheCheck(t *testing.T) {
	t.Parallel()
	r := Compare(apiClusterInput(nil, withCIDRs(fw("narrow", 6443, 6443), "10.0.0.0/8")))
	assertKinds(t, r, KindAPIRuleMismatch)
	if f := r.Findings[0]; f.RuleID != "narrow" || !strings.Contains(f.Message, "not to 0.0.0.0/0") ||
		!strings.Contains(f.Message, "give the check the same") {
		t.Errorf("finding = %+v", f)
	}
}

func TestMissingAPIRule(t *testing.T) {
	t.Parallel()
	r := Compare(apiClusterInput([]string{"10.0.0.0/8"}))
	assertKinds(t, r, KindAPIRuleMissing)
	if f := r.Findings[0]; !strings.Contains(f.Message, "API firewall rule 6443 is missing") {
		t.Errorf("finding = %+v", f)
	}
}

// Two user rules open 6443 where the check expects the open rule: each is
// reported, in whichever order the API lists them.
func TestEveryForeignAPIRuleIsReported(t *testing.T) {
	t.Parallel()
	a := withCIDRs(fw("a", 6443, 6443), "10.0.0.0/8")
	b := withCIDRs(fw("b", 6443, 6443), "192.0.2.0/24")
	for _, order := range [][]rules.Rule{{a, b}, {b, a}} {
		r := Compare(apiClusterInput(nil, order...))
		assertKinds(t, r, KindAPIRuleMismatch, KindAPIRuleMismatch)
		ids := map[string]bool{}
		for _, f := range r.Findings {
			ids[f.RuleID] = true
		}
		if !ids["a"] || !ids["b"] {
			t.Errorf("order %s,%s: findings %+v, want one for each rule", order[0].ID, order[1].ID, r.Findings)
		}
	}
}

// A rule of someone else's beside the narrowed API rule is reported when it
// admits any address outside api_cidrs, whatever its string: width is
// address space. One that admits nothing more is not.
func TestForeignAPIRuleWiderThanAPICIDRs(t *testing.T) {
	t.Parallel()
	narrow := []string{"127.0.0.1/32"}
	ours := withCIDRs(fw("api", 6443, 6443), "127.0.0.1/32")
	for _, tc := range []struct {
		name    string
		foreign rules.Rule
		outside string // "" when not reported
	}{
		{"open and a /8", withCIDRs(fw("user", 6443, 6443), "0.0.0.0/0", "10.0.0.0/8"), "0.0.0.0/2"},
		{"two halves", withCIDRs(fw("user", 6443, 6443), "0.0.0.0/1", "128.0.0.0/1"), "0.0.0.0/2"},
		{"a /8 around the /32", withCIDRs(fw("user", 6443, 6443), "127.0.0.0/8"), "127.0.0.0/32"},
		{"a range over 6443", withCIDRs(fw("user", 6000, 7000), "192.0.2.0/24"), "192.0.2.0/24"},
		{"the same address", withCIDRs(fw("user", 6443, 6443), "127.0.0.1"), ""},
		{"another port", withCIDRs(fw("user", 8443, 8443), "0.0.0.0/0", "10.0.0.0/8"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, order := range [][]rules.Rule{{ours, tc.foreign}, {tc.foreign, ours}} {
				r := Compare(apiClusterInput(narrow, order...))
				if tc.outside == "" {
					assertKinds(t, r)
					continue
				}
				assertKinds(t, r, KindAPIRuleMismatch)
				if f := r.Findings[0]; f.RuleID != "user" || !strings.Contains(f.Message, "which admits "+tc.outside+", outside api_cidrs 127.0.0.1/32") {
					t.Errorf("finding = %+v", f)
				}
			}
		})
	}
}

// The same for the SSH ports when ssh_cidrs narrows them: a foreign rule
// that opens a node or etcd SSH port wider is an SSH finding.
func TestForeignSSHRuleWiderThanSSHCIDRs(t *testing.T) {
	t.Parallel()
	in := apiClusterInput(nil, fw("api", 6443, 6443))
	in.Rules.Layout.SSHCIDRs = []string{"10.0.0.0/8"}
	setRules(&in, lb("lb"), withCIDRs(fw("range", 2222, 2223), "10.0.0.0/8"), pf("f0", 2222, "control"), pf("f1", 2223, "w1"),
		fw("api", 6443, 6443), withCIDRs(fw("user", 2223, 2300), "10.0.0.0/8", "203.0.113.0/24"))
	r := Compare(in)
	assertKinds(t, r, KindSSHFirewallRangeMismatch)
	if f := r.Findings[0]; f.RuleID != "user" || !strings.Contains(f.Message, "opens SSH port(s) 2223 of cluster") ||
		!strings.Contains(f.Message, "which admits 203.0.113.0/24, outside ssh_cidrs 10.0.0.0/8") {
		t.Errorf("finding = %+v", f)
	}
}
