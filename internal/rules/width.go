package rules

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
)

// Whether a rule is wider than the configured CIDRs is a question of
// address space, not of strings: 0.0.0.0/1 and 128.0.0.0/1 together admit
// everyone, and a /8 beside a /32 admits far more than the /32. Ownership
// stays a matter of exact CIDR lists (Classify), because it decides what
// the provider may delete; width only decides what it reports.

// Exposure is a firewall rule the provider does not own that opens a port
// the layout narrows (the API port with APICIDRs, the node and etcd SSH
// ports with SSHCIDRs) to an address the configured CIDRs do not admit.
// The provider never deletes it: it is someone else's rule, and only its
// owner can narrow it.
type Exposure struct {
	Rule Rule
	// API is true for the API port (6443), false for an SSH port.
	API bool
	// Ports are the narrowed ports the rule opens, such as "6443" or
	// "2222-2223".
	Ports string
	// Outside is an address range the rule admits and the configured CIDRs
	// do not, such as "0.0.0.0/1", or a source CIDR that does not parse.
	Outside string
	// Allowed are the configured CIDRs.
	Allowed []string
}

// Exposures lists the rules of the classification that open a narrowed
// port wider than the layout's CIDRs, by port, API first, then by rule id:
// an order of their own, not the list's. Only isolated networks carry
// firewall rules.
func Exposures(l Layout, c Classification) []Exposure {
	if l.Network != NetworkIsolated {
		return nil
	}
	type guarded struct {
		api     bool
		spans   []portSpan
		allowed []string
	}
	var guards []guarded
	if l.NarrowsAPI() {
		guards = append(guards, guarded{api: true, spans: []portSpan{{APIPort, APIPort}}, allowed: l.apiCIDRs()})
	}
	if l.NarrowsSSH() {
		guards = append(guards, guarded{spans: l.sshForwardSpans(), allowed: l.sshCIDRs()})
	}
	var out []Exposure
	for _, cr := range c.Rules {
		r := cr.Rule
		if cr.Owned() || r.Kind != KindFirewall || !admitsTCP(r) {
			continue
		}
		for _, g := range guards {
			ports := openedPorts(r, g.spans)
			if ports == "" {
				continue
			}
			if outside, wider := Outside(sourceCIDRs(r), g.allowed); wider {
				out = append(out, Exposure{Rule: r, API: g.api, Ports: ports, Outside: outside, Allowed: slices.Clone(g.allowed)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Exposure) int {
		if a.API != b.API {
			if a.API {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Rule.StartPort, b.Rule.StartPort), strings.Compare(a.Rule.ID, b.Rule.ID))
	})
	return out
}

// sshForwardSpans are the public ports of the SSH forwards whose firewall
// rules take SSHCIDRs: the node range 2222.. over the control and worker
// nodes, and the etcd forwards S..S+E-1.
func (l Layout) sshForwardSpans() []portSpan {
	var out []portSpan
	if n := l.InternalCount(); n > 0 {
		out = append(out, portSpan{NodeSSHStartPort, NodeSSHStartPort + n - 1})
	}
	if e := len(l.etcdNodes()); e > 0 {
		out = append(out, portSpan{l.etcdStart(), l.etcdStart() + e - 1})
	}
	return out
}

// admitsTCP tells whether a firewall rule lets TCP in: a TCP rule, or one
// for all protocols.
func admitsTCP(r Rule) bool {
	return isTCP(r) || strings.EqualFold(strings.TrimSpace(r.Protocol), "all")
}

// openedPorts names the ports of the spans a rule opens ("" for none); a
// rule without ports opens them all.
func openedPorts(r Rule, spans []portSpan) string {
	var parts []string
	for _, s := range spans {
		from, to := s.start, s.end
		if r.StartPort > 0 {
			from, to = max(from, r.StartPort), min(to, r.End())
		}
		if from <= to {
			parts = append(parts, PortRange(from, to))
		}
	}
	return strings.Join(parts, ",")
}

// sourceCIDRs are a firewall rule's source CIDRs; none means 0.0.0.0/0, the
// default CloudStack gives a rule created without a cidrlist
// (CreateFirewallRuleCmd.getSourceCidrList).
func sourceCIDRs(r Rule) []string {
	if c := cidrs(r); len(c) > 0 {
		return c
	}
	return []string{AnyCIDR}
}

// Outside returns an address range that the admitted CIDRs let in and the
// allowed CIDRs do not, and whether there is one: the admitted set is wider
// than the allowed one. Both lists are unions, of IPv4 and IPv6 prefixes
// alike; an address of one family is never inside a prefix of the other.
// An admitted entry that does not parse is returned as it is (its width is
// unknown, so it counts as wider); an allowed one that does not parse
// admits nothing. The result does not depend on the order of either list.
func Outside(admitted, allowed []string) (string, bool) {
	var within []netip.Prefix
	for _, a := range allowed {
		if p, ok := parsePrefix(a); ok {
			within = append(within, p)
		}
	}
	sorted := slices.Clone(admitted)
	slices.Sort(sorted)
	for _, a := range sorted {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		p, ok := parsePrefix(a)
		if !ok {
			return a, true
		}
		if out, ok := uncovered(p, within); ok {
			return out.String(), true
		}
	}
	return "", false
}

// parsePrefix reads a CIDR, or a bare address as its own /32 or /128, and
// returns it masked.
func parsePrefix(s string) (netip.Prefix, bool) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// uncovered returns the first part of p, in address order, that no prefix
// of within contains. It halves p only while a narrower prefix of within
// lies inside it, so it takes at most one step per bit for each prefix.
func uncovered(p netip.Prefix, within []netip.Prefix) (netip.Prefix, bool) {
	inside := false
	for _, w := range within {
		if w.Addr().Is4() != p.Addr().Is4() {
			continue
		}
		if w.Bits() <= p.Bits() && w.Contains(p.Addr()) {
			return netip.Prefix{}, false
		}
		if w.Bits() > p.Bits() && p.Contains(w.Addr()) {
			inside = true
		}
	}
	if !inside {
		return p, true
	}
	low, high := halves(p)
	if out, ok := uncovered(low, within); ok {
		return out, true
	}
	return uncovered(high, within)
}

// halves splits a prefix into its two halves, one bit longer.
func halves(p netip.Prefix) (low, high netip.Prefix) {
	bits := p.Bits() + 1
	b := p.Addr().AsSlice()
	bit := p.Bits()
	b[bit/8] |= 0x80 >> (bit % 8)
	upper, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(p.Addr(), bits), netip.PrefixFrom(upper, bits)
}
