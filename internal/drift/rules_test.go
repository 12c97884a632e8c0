package drift

import (
	"slices"
	"strings"
	"testing"
)

// TestStateAfterScaleDownBrokenByEtcdRulePick is the state #14159 leaves:
// Alert, size 2, one worker left, firewall 6443, 50001, 50002 and 2222-2224,
// forwards 50001 and 50002 only.
func TestStateAfterScaleDownBrokenByEtcdRulePick(t *testing.T) {
	t.Parallel()
	in := etcdClusterInput("Alert", 2, "w1")
	setRules(&in,
		fw("1596", 6443, 6443),
		lb("1599"),
		fw("1602", 50001, 50001),
		pf("1603", 50001, "etcd2"),
		fw("1604", 50002, 50002),
		pf("1605", 50002, "etcd3"),
		fw("1606", 2222, 2224),
	)
	r := Compare(in)
	assertKinds(t, r,
		KindVMMapInconsistent,
		KindSSHForwardMissing, KindSSHForwardMissing,
		KindSSHFirewallRangeMismatch,
		KindEtcdSSHRuleMissing, KindEtcdSSHRuleMissing,
		KindScaleHazard, KindScaleHazard,
	)
	want := "8 findings: 1 vm_map_inconsistent, 2 ssh_forward_missing, 1 ssh_firewall_range_mismatch, 2 etcd_ssh_rule_missing, 2 scale_hazard"
	if r.Summary != want {
		t.Errorf("summary = %q, want %q", r.Summary, want)
	}
	byKind := map[string][]Finding{}
	for _, f := range r.Findings {
		byKind[f.Kind] = append(byKind[f.Kind], f)
	}
	if f := byKind[KindVMMapInconsistent][0]; !strings.Contains(f.Message, "holds 5 VM(s) with 1 worker(s), but its size (node_count) is 2") ||
		!strings.Contains(f.Message, "node_count = 1") {
		t.Errorf("size = %q", f.Message)
	}
	var forwards []string
	for _, f := range byKind[KindSSHForwardMissing] {
		forwards = append(forwards, f.VMID+" "+f.Message)
	}
	if !slices.Equal(forwards, []string{
		"control SSH port forward 2222 -> 22 to VM " + etcdCluster + "-control-1977de40e01 (control) is missing",
		"w1 SSH port forward 2223 -> 22 to VM " + etcdCluster + "-node-1977de40e02 (w1) is missing",
	}) {
		t.Errorf("forwards missing = %q", forwards)
	}
	if f := byKind[KindSSHFirewallRangeMismatch][0]; f.RuleID != "1606" || !strings.Contains(f.Message, "2222-2224, expected 2222-2223") {
		t.Errorf("range = %+v", f)
	}
	for _, f := range byKind[KindEtcdSSHRuleMissing] {
		if f.VMID != "etcd1" || !strings.Contains(f.Message, "50000") {
			t.Errorf("etcd missing = %+v", f)
		}
	}
	if a, b := byKind[KindScaleHazard][0], byKind[KindScaleHazard][1]; a.RuleID != "1602" || b.RuleID != "1604" ||
		!strings.Contains(a.Message, "#14159") {
		t.Errorf("hazards = %+v / %+v", a, b)
	}
}

// TestScaleHazardAfterEtcdClusterScaleUp is the state after the successful
// scale to two workers: everything matches, but the next scale would fail.
func TestScaleHazardAfterEtcdClusterScaleUp(t *testing.T) {
	t.Parallel()
	in := etcdClusterInput("Running", 2, "w1", "w2")
	setRules(&in,
		fw("1596", 6443, 6443),
		lb("1599"),
		fw("1600", 50000, 50000),
		pf("1601", 50000, "etcd1"),
		fw("1602", 50001, 50001),
		pf("1603", 50001, "etcd2"),
		fw("1604", 50002, 50002),
		pf("1605", 50002, "etcd3"),
		fw("1606", 2222, 2224),
		pf("1607", 2222, "control"),
		pf("1608", 2223, "w1"),
		pf("1609", 2224, "w2"),
	)
	r := Compare(in)
	assertKinds(t, r, KindScaleHazard, KindScaleHazard, KindScaleHazard)
	for i, id := range []string{"1600", "1602", "1604"} {
		f := r.Findings[i]
		if f.RuleID != id || !strings.Contains(f.Message, "CKS etcd SSH firewall rule "+id) {
			t.Errorf("hazard %d = %+v", i, f)
		}
	}
	if !strings.Contains(r.Findings[0].Message, "from 2222 to 50000") {
		t.Errorf("hazard message = %q", r.Findings[0].Message)
	}

	// Listed in creation order here (oldest first), the rules show that a
	// scale re-created the range after the etcd rules. The same rules with
	// the range created first are CKS's layout before any scale: safe.
	in = etcdClusterInput("Running", 2, "w1", "w2")
	setRules(&in,
		fw("1", 2222, 2224), fw("2", 6443, 6443),
		pf("3", 2222, "control"), pf("4", 2223, "w1"), pf("5", 2224, "w2"), lb("6"),
		fw("7", 50000, 50000), pf("8", 50000, "etcd1"),
		fw("9", 50001, 50001), pf("10", 50001, "etcd2"),
		fw("11", 50002, 50002), pf("12", 50002, "etcd3"),
	)
	assertKinds(t, Compare(in))
}

func TestStaleForwardsAndMissingRange(t *testing.T) {
	t.Parallel()
	in := etcdClusterInput("Running", 1, "w1")
	userPF := pf("u1", 2300, "user-vm")
	userPF.PrivatePort, userPF.PrivateEndPort = 8080, 8080
	setRules(&in,
		fw("1", 6443, 6443),
		pf("2", 2222, "w1"),                            // wrong VM
		pf("3", 2223, "control"),                       // wrong VM
		pf("4", 2230, "w1"),                            // beyond the map
		fw("5", 50000, 50000), pf("6", 50000, "etcd2"), // wrong etcd VM
		fw("7", 50001, 50001), pf("8", 50001, "etcd2"),
		fw("9", 50002, 50002), pf("10", 50002, "etcd3"),
		userPF,
	)
	r := Compare(in)
	// Without a node range, a scale fails or picks an etcd rule: the
	// missing range and all three etcd firewall rules are hazards.
	got := r.Counts
	if got[KindSSHForwardStale] != 4 || got[KindSSHForwardMissing] != 2 || got[KindEtcdSSHRuleMissing] != 1 ||
		got[KindSSHFirewallRangeMismatch] != 1 || got[KindScaleHazard] != 4 || len(r.Findings) != 12 {
		t.Fatalf("findings = %v", kinds(r))
	}
	for _, f := range r.Findings {
		if f.RuleID == "u1" {
			t.Errorf("user rule reported: %+v", f)
		}
		if f.Kind == KindSSHFirewallRangeMismatch && (f.RuleID != "" || !strings.Contains(f.Message, "2222-2223 is missing")) {
			t.Errorf("range finding = %+v", f)
		}
	}
}
