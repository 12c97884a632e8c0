package drift

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// providerLayoutRules are the rules of etcdClusterInput's cluster with one
// worker in the provider's layout, its SSH ranges open to sshCIDRs and its
// API rule to apiCIDRs.
func providerLayoutRules(sshCIDRs, apiCIDRs []string) []rules.Rule {
	node, etcd, api := fw("1", 2222, 2223), fw("20", 50000, 50002), fw("2", 6443, 6443)
	node.CIDRs, etcd.CIDRs, api.CIDRs = sshCIDRs, sshCIDRs, apiCIDRs
	return []rules.Rule{node, api, pf("3", 2222, "control"), pf("4", 2223, "w1"), lb("5"),
		pf("6", 50000, "etcd1"), pf("7", 50001, "etcd2"), pf("8", 50002, "etcd3"), etcd}
}

func checkCIDRs(in Input, ssh, api []string) Input {
	in.Rules.Layout.SSHCIDRs, in.Rules.Layout.APICIDRs = ssh, api
	return in
}

func findingsOf(r Result, kind string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func assertValues(t *testing.T, f Finding, attribute string, live, expected []string) {
	t.Helper()
	if f.Attribute != attribute || !slices.Equal(f.Live, live) || !slices.Equal(f.Expected, expected) {
		t.Errorf("finding %s: attribute %q, live %q, expected %q; want %q, %q, %q (%s)",
			f.Kind, f.Attribute, f.Live, f.Expected, attribute, live, expected, f.Message)
	}
}

// TestSSHCIDRsChangedIsOneMismatchPerRule: the check is given the new
// ssh_cidrs while the cluster still has the provider's rules with the old
// ones, as in a plan that changes ssh_cidrs. Each SSH range is the
// cluster's, reported once with both CIDR lists: not missing, and not a
// user rule in the way of the next scale.
func TestSSHCIDRsChangedIsOneMismatchPerRule(t *testing.T) {
	t.Parallel()
	old, changed := []string{"10.0.0.0/8"}, []string{"192.168.0.0/16"}
	in := checkCIDRs(etcdClusterInput("Running", 1, "w1"), changed, nil)
	setRules(&in, providerLayoutRules(old, []string{"0.0.0.0/0"})...)
	r := Compare(in)
	assertKinds(t, r, KindSSHCIDRsMismatch, KindSSHCIDRsMismatch)
	got := findingsOf(r, KindSSHCIDRsMismatch)
	for i, id := range []string{"1", "20"} {
		f := got[i]
		if f.RuleID != id {
			t.Errorf("finding %d is about rule %s, want %s", i, f.RuleID, id)
		}
		assertValues(t, f, "ssh_cidrs", old, changed)
	}
	if !strings.Contains(got[0].Message, "node SSH firewall range 2222-2223 (rule 1) is open to 10.0.0.0/8, not to 192.168.0.0/16") ||
		!strings.Contains(got[1].Message, "etcd SSH firewall range 50000-50002 (rule 20)") {
		t.Errorf("messages: %q / %q", got[0].Message, got[1].Message)
	}

	// The same rules given the CIDRs they have: in sync.
	in = checkCIDRs(etcdClusterInput("Running", 1, "w1"), old, nil)
	setRules(&in, providerLayoutRules(old, []string{"0.0.0.0/0"})...)
	assertKinds(t, Compare(in))
}

// TestReopenedSSHRangeIsACIDRMismatch: a range CloudStack's scale re-made
// open (0.0.0.0/0) while ssh_cidrs narrows it.
func TestReopenedSSHRangeIsACIDRMismatch(t *testing.T) {
	t.Parallel()
	narrow := []string{"10.0.0.0/8"}
	in := checkCIDRs(etcdClusterInput("Running", 1, "w1"), narrow, nil)
	rs := providerLayoutRules(narrow, []string{"0.0.0.0/0"})
	rs[0].CIDRs = []string{"0.0.0.0/0"}
	setRules(&in, rs...)
	r := Compare(in)
	assertKinds(t, r, KindSSHCIDRsMismatch)
	assertValues(t, r.Findings[0], "ssh_cidrs", []string{"0.0.0.0/0"}, narrow)
}

// TestUserRuleBesideTheRangeStaysTheUsers: a rule of someone else's on the
// node range's ports beside the cluster's own is not taken for the
// cluster's: CloudStack's scale may revoke it instead of the range, and it
// opens the node SSH ports to addresses outside ssh_cidrs.
func TestUserRuleBesideTheRangeStaysTheUsers(t *testing.T) {
	t.Parallel()
	narrow := []string{"10.0.0.0/8"}
	in := checkCIDRs(etcdClusterInput("Running", 1, "w1"), narrow, nil)
	office := fw("30", 2222, 2223)
	office.CIDRs = []string{"192.0.2.0/24"}
	setRules(&in, append(providerLayoutRules(narrow, []string{"0.0.0.0/0"}), office)...)
	r := Compare(in)
	assertKinds(t, r, KindSSHFirewallRangeMismatch, KindScaleHazard)
	for _, f := range r.Findings {
		if f.RuleID != "30" || f.Attribute != "" {
			t.Errorf("%s = %+v, want one about rule 30 with no attribute", f.Kind, f)
		}
	}
}

// TestTwoForeignRangesAreNotGuessed: two rules on the node range's ports,
// neither with the check's CIDRs: which one is the cluster's cannot be
// told, so neither is taken for it. On a cluster with etcd nodes, the etcd
// range, alone on its ports, tells: the rule with its CIDRs is the
// cluster's, the other one the user's.
func TestTwoForeignRangesAreNotGuessed(t *testing.T) {
	t.Parallel()
	in := apiClusterInput(nil, fw("api", 6443, 6443))
	in.Rules.Layout.SSHCIDRs = []string{"192.168.0.0/16"}
	rs := in.Rules.Rules
	for i := range rs {
		if rs[i].ID == "range" {
			rs[i].CIDRs = []string{"10.0.0.0/8"}
		}
	}
	setRules(&in, append(rs, withCIDRs(fw("other", 2222, 2223), "192.0.2.0/24"))...)
	r := Compare(in)
	// The range missing, and each of the two rules open beyond ssh_cidrs.
	if r.Counts[KindSSHFirewallRangeMismatch] != 3 || r.Counts[KindScaleHazard] != 3 || len(r.Findings) != 6 {
		t.Fatalf("findings = %v", kinds(r))
	}

	in = checkCIDRs(etcdClusterInput("Running", 1, "w1"), []string{"192.168.0.0/16"}, nil)
	setRules(&in, append(providerLayoutRules([]string{"10.0.0.0/8"}, []string{"0.0.0.0/0"}), withCIDRs(fw("30", 2222, 2223), "192.0.2.0/24"))...)
	r = Compare(in)
	// Rule 30 stays the user's: open beyond ssh_cidrs, and in the scale's way.
	assertKinds(t, r, KindSSHFirewallRangeMismatch, KindSSHCIDRsMismatch, KindSSHCIDRsMismatch, KindScaleHazard)
	if r.Findings[0].RuleID != "30" || r.Findings[1].RuleID != "1" || r.Findings[2].RuleID != "20" || r.Findings[3].RuleID != "30" {
		t.Errorf("findings = %+v", r.Findings)
	}
}

// TestAPIRuleMismatchCarriesBothCIDRLists: the API rule open to other
// CIDRs than the check's, as a plan that changes api_cidrs sees it.
func TestAPIRuleMismatchCarriesBothCIDRLists(t *testing.T) {
	t.Parallel()
	old, changed := []string{"10.0.0.0/8"}, []string{"172.16.0.0/12"}
	in := checkCIDRs(etcdClusterInput("Running", 1, "w1"), nil, changed)
	setRules(&in, providerLayoutRules([]string{"0.0.0.0/0"}, old)...)
	r := Compare(in)
	assertKinds(t, r, KindAPIRuleMismatch)
	assertValues(t, r.Findings[0], "api_cidrs", old, changed)
	if r.Findings[0].RuleID != "2" {
		t.Errorf("finding = %+v", r.Findings[0])
	}
}

// TestOfferingAndVersionFindingsCarryTheirValues: the findings that compare
// CloudStack's records name the cks_cluster attribute and both values.
func TestOfferingAndVersionFindingsCarryTheirValues(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Cluster.ServiceOfferingID = "medium"
	in.Cluster.KubernetesVersion = "1.33.13"
	for i := range in.Map {
		in.Map[i].OfferingID = "medium"
		in.Map[i].NodeVersion = "v1.33.13"
	}
	in.Map[1].OfferingID = "large"
	in.Map[2].NodeVersion = "v1.34.2"
	in.Nodes.Nodes[2].Version = "v1.34.2"
	r := Compare(in)
	assertKinds(t, r, KindVMOfferingMismatch, KindNodeVersionSkew)
	assertValues(t, r.Findings[0], "worker_offering_id", []string{"large"}, []string{"medium"})
	assertValues(t, r.Findings[1], "kubernetes_version", []string{"1.34.2"}, []string{"1.33.13"})
}

// TestMapInconsistencyNamesNoAttribute: a VM map at odds with the size
// compares two of CloudStack's records, and no plan can change it (the
// scale refuses such a cluster): it names no attribute.
func TestMapInconsistencyNamesNoAttribute(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Cluster.Size = 3
	r := Compare(in)
	assertKinds(t, r, KindVMMapInconsistent)
	if f := r.Findings[0]; f.Attribute != "" || f.Live != nil || f.Expected != nil {
		t.Errorf("finding = %+v", f)
	}
}
