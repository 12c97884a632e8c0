package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Width is address space: what a union of CIDRs admits beyond another,
// whatever the strings and their order.
func TestOutside(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		admitted, allowed []string
		want              string // "" when not wider
	}{
		{"same", []string{"127.0.0.1/32"}, []string{"127.0.0.1/32"}, ""},
		{"narrower", []string{"10.1.0.0/16"}, []string{"10.0.0.0/8"}, ""},
		{"wider", []string{"10.0.0.0/8"}, []string{"10.1.0.0/16"}, "10.0.0.0/16"},
		{"open beside a narrow one", []string{"0.0.0.0/0", "10.0.0.0/8"}, []string{"10.0.0.0/8"}, "0.0.0.0/5"},
		{"two halves are everyone", []string{"0.0.0.0/1", "128.0.0.0/1"}, []string{"127.0.0.0/8"}, "0.0.0.0/2"},
		{"two halves allowed cover everyone", []string{"0.0.0.0/0"}, []string{"128.0.0.0/1", "0.0.0.0/1"}, ""},
		{"halves of a /8 cover it", []string{"10.0.0.0/8"}, []string{"10.128.0.0/9", "10.0.0.0/9"}, ""},
		{"a /8 beside the /32", []string{"127.0.0.1/32", "127.0.0.0/8"}, []string{"127.0.0.1/32"}, "127.0.0.0/32"},
		{"a gap in the middle", []string{"10.0.0.0/8"}, []string{"10.0.0.0/9", "10.192.0.0/10"}, "10.128.0.0/10"},
		{"bare address", []string{"192.0.2.7"}, []string{"192.0.2.0/24"}, ""},
		{"host bits set", []string{"10.9.9.9/8"}, []string{"10.0.0.0/8"}, ""},
		{"blanks ignored", []string{" 10.0.0.0/8 ", ""}, []string{"10.0.0.0/8"}, ""},
		{"unparsable admitted counts", []string{"not-a-cidr"}, []string{"0.0.0.0/0"}, "not-a-cidr"},
		{"unparsable allowed admits nothing", []string{"10.0.0.0/8"}, []string{"nonsense"}, "10.0.0.0/8"},
		{"IPv6 same", []string{"2001:db8::/32"}, []string{"2001:db8::/32"}, ""},
		{"IPv6 narrower", []string{"2001:db8:1::/48"}, []string{"2001:db8::/32"}, ""},
		{"IPv6 wider", []string{"::/0"}, []string{"2001:db8::/32"}, "::/3"},
		{"IPv6 halves cover", []string{"::/0"}, []string{"::/1", "8000::/1"}, ""},
		{"other family is outside", []string{"2001:db8::/32"}, []string{"0.0.0.0/0"}, "2001:db8::/32"},
		{"IPv4 is not inside ::/0", []string{"10.0.0.0/8"}, []string{"::/0"}, "10.0.0.0/8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, wider := Outside(tc.admitted, tc.allowed)
			if wider != (tc.want != "") || got != tc.want {
				t.Fatalf("Outside(%v, %v) = %q, %v; want %q", tc.admitted, tc.allowed, got, wider, tc.want)
			}
			// The verdict and the range do not depend on the lists' order.
			rng := rand.New(rand.NewPCG(1, 2))
			for range 5 {
				a, b := slices.Clone(tc.admitted), slices.Clone(tc.allowed)
				rng.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
				rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
				if again, w := Outside(a, b); again != got || w != wider {
					t.Fatalf("Outside(%v, %v) = %q, %v; in the first order %q, %v", a, b, again, w, got, wider)
				}
			}
		})
	}
}

// A foreign rule that opens a narrowed port wider than the configured CIDRs
// is an exposure, whatever its string; an owned one, a narrower one, one on
// other ports or of another protocol is not. Nothing is reported for ports
// the layout does not narrow.
func TestExposures(t *testing.T) {
	t.Parallel()
	l := etcdLayout("w1") // node range 2222-2223, etcd forwards 50000-50002
	l.APICIDRs = []string{"127.0.0.1/32"}
	l.SSHCIDRs = []string{"10.0.0.0/8"}
	udp := firewall("udp-6443", 6443, 6443, "0.0.0.0/0")
	udp.Protocol = "udp"
	all := firewall("all-protocols", 0, 0, "192.0.2.0/24")
	all.Protocol = "all"
	rules := []Rule{
		firewall("api-ours", 6443, 6443, "127.0.0.1/32"),
		firewall("api-open-and-10", 6443, 6443, "0.0.0.0/0", "10.0.0.0/8"),
		firewall("api-halves", 6443, 6443, "0.0.0.0/1", "128.0.0.0/1"),
		firewall("api-narrower", 6443, 6443, "127.0.0.1/32", "127.0.0.1"),
		firewall("wide-range", 6000, 7000, "127.0.0.0/8"),
		firewall("etcd-port", 50001, 50001, "0.0.0.0/0", "192.0.2.0/24"),
		firewall("cks-etcd-rule", 50002, 50002, "0.0.0.0/0"), // CKS's own: the sync replaces it
		firewall("ssh-inside", 2222, 2222, "10.1.0.0/16"),
		firewall("elsewhere", 8080, 8080, "0.0.0.0/0"),
		udp,
		all,
	}
	c := Classify(l, rules)
	type seen struct {
		id, ports, outside string
		api                bool
	}
	var got []seen
	for _, e := range Exposures(l, c) {
		got = append(got, seen{e.Rule.ID, e.Ports, e.Outside, e.API})
	}
	want := []seen{
		{"all-protocols", "6443", "192.0.2.0/24", true},
		{"wide-range", "6443", "127.0.0.0/32", true},
		{"api-halves", "6443", "0.0.0.0/2", true},
		{"api-open-and-10", "6443", "0.0.0.0/2", true},
		{"all-protocols", "2222-2223,50000-50002", "192.0.2.0/24", false},
		{"etcd-port", "50001", "0.0.0.0/5", false},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("exposures\n got %v\nwant %v", got, want)
	}
	// Rules the layout does not narrow are nobody's business here.
	open := etcdLayout("w1")
	if e := Exposures(open, Classify(open, rules)); len(e) != 0 {
		t.Fatalf("exposures without api_cidrs or ssh_cidrs: %+v", e)
	}
	vpc := l
	vpc.Network = NetworkVPC
	if e := Exposures(vpc, Classify(vpc, rules)); len(e) != 0 {
		t.Fatalf("exposures on a VPC tier, which has no firewall rules: %+v", e)
	}
}
