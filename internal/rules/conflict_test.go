package rules

import "testing"

func TestDetectConflict(t *testing.T) {
	t.Parallel()
	udpFW := firewall("udp", 2222, 2224)
	udpFW.Protocol = "udp"
	udpPF := forward("udp-pf", 2222, 22, "x")
	udpPF.Protocol = "UDP"
	cidrPF := forward("cidr-pf", 2222, 22, "x")
	cidrPF.CIDRs = []string{"10.0.0.0/8"}
	otherNet := firewall("other-net", 80, 80)
	otherNet.NetworkID = "net-other"
	lb80 := apiLB("lb80")
	lb80.StartPort, lb80.EndPort = 80, 80

	cases := []struct {
		name      string
		existing  Rule
		candidate Rule
		want      bool
	}{
		{"node range re-created inside the one left active (apache/cloudstack#14159)", firewall("1606", 2222, 2224), firewall("", 2222, 2223), true},
		{"firewall ranges touching at one port", firewall("a", 2222, 2224), firewall("", 2224, 2230), true},
		{"firewall ranges apart", firewall("a", 2222, 2224), firewall("", 2225, 2230), false},
		{"firewall with other CIDRs", firewall("a", 2222, 2224, "10.0.0.0/8"), firewall("", 2222, 2223), false},
		{"firewall sharing one CIDR", firewall("a", 2222, 2224, "10.0.0.0/8", "0.0.0.0/0"), firewall("", 2222, 2223), true},
		{"firewall of another protocol", udpFW, firewall("", 2222, 2223), false},
		{"firewall versus forward", forward("a", 2222, 22, "x"), firewall("", 2222, 2223), false},
		{"forward versus firewall", firewall("a", 2222, 2224), forward("", 2222, 22, "x"), false},
		{"forward versus forward", forward("a", 2222, 22, "x"), forward("", 2222, 22, "y"), true},
		{"forward of another protocol", udpPF, forward("", 2222, 22, "y"), false},
		{"forward with CIDRs versus one without", cidrPF, forward("", 2222, 22, "y"), false},
		{"forward versus load balancer", apiLB("lb"), forward("", 6443, 6443, "x"), true},
		{"load balancer versus load balancer", lb80, apiLB(""), false},
		{"load balancer on the same port", apiLB("lb"), apiLB(""), true},
		{"two port-less firewall rules", firewall("a", 0, 0), firewall("", 0, 0), true},
		{"port-less versus ported firewall", firewall("a", 0, 0), firewall("", 2222, 2223), false},
		{"another network always conflicts", otherNet, forward("", 2222, 22, "x"), true},
	}
	for _, tc := range cases {
		got, ok := DetectConflict([]Rule{tc.existing}, tc.candidate)
		if ok != tc.want {
			t.Errorf("%s: conflict = %v, want %v", tc.name, ok, tc.want)
		}
		if ok && got.ID != tc.existing.ID {
			t.Errorf("%s: conflicting rule %q, want %q", tc.name, got.ID, tc.existing.ID)
		}
	}
}

func TestDetectConflictSkipsItselfAndReturnsFirst(t *testing.T) {
	t.Parallel()
	self := firewall("self", 2222, 2224)
	if _, ok := DetectConflict([]Rule{self}, self); ok {
		t.Error("a rule conflicts with itself")
	}
	existing := []Rule{firewall("a", 6443, 6443), firewall("b", 2222, 2223), firewall("c", 2223, 2224)}
	if got, _ := DetectConflict(existing, firewall("", 2222, 2230)); got.ID != "b" {
		t.Errorf("first conflict = %s, want b", got.ID)
	}
}
