package rules

import "testing"

func TestRuleValues(t *testing.T) {
	t.Parallel()
	single := Rule{Kind: KindPortForward, StartPort: 2222, PrivatePort: 22}
	if single.End() != 2222 || single.PrivateEnd() != 22 {
		t.Errorf("a single-port rule listed without end ports ends at %d -> %d", single.End(), single.PrivateEnd())
	}
	ranged := Rule{StartPort: 2222, EndPort: 2224, PrivatePort: 2222, PrivateEndPort: 2224}
	if ranged.End() != 2224 || ranged.PrivateEnd() != 2224 {
		t.Errorf("a range ends at %d -> %d", ranged.End(), ranged.PrivateEnd())
	}
	if it := (ACLItem{StartPort: 22}); it.End() != 22 {
		t.Errorf("an ACL item without an end port ends at %d", it.End())
	}
	for _, tc := range []struct {
		start, end int
		want       string
	}{{0, 0, "(all ports)"}, {6443, 0, "6443"}, {6443, 6443, "6443"}, {2222, 2224, "2222-2224"}} {
		if got := PortRange(tc.start, tc.end); got != tc.want {
			t.Errorf("PortRange(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
	if got := CIDRText(nil); got != "any source" {
		t.Errorf("CIDRText(nil) = %q", got)
	}
	if got := CIDRText([]string{"10.0.0.0/8", "192.168.0.0/16"}); got != "10.0.0.0/8,192.168.0.0/16" {
		t.Errorf("CIDRText = %q", got)
	}
	if !SameCIDRs([]string{" 10.0.0.0/8", "192.168.0.0/16", "10.0.0.0/8"}, []string{"192.168.0.0/16", "10.0.0.0/8", ""}) {
		t.Errorf("SameCIDRs compares lists as sets of trimmed CIDRs")
	}
	if SameCIDRs([]string{"10.0.0.0/8"}, []string{"10.0.0.0/16"}) {
		t.Errorf("SameCIDRs: different CIDRs are the same")
	}
	for r, want := range map[*Rule]bool{
		{Kind: KindFirewall, Protocol: " TCP "}:                true,
		{Kind: KindFirewall, Protocol: "udp"}:                  false,
		{Kind: KindFirewall, Protocol: "tcp", StartPort: 2222}: false,
		{Kind: KindPortForward, Protocol: "tcp"}:               false,
	} {
		if got := PortlessTCP(*r); got != want {
			t.Errorf("PortlessTCP(%+v) = %v, want %v", *r, got, want)
		}
	}
}
