package simulator

import (
	"strconv"
	"strings"
)

// Renderers. Firewall ports are ints; port-forwarding and LB ports strings.

func (s *Simulator) ruleIPFields(out map[string]any, r *rule, idKey, addrKey string) {
	out[idKey] = r.ipID
	if ip := s.st.ip(r.ipID); ip != nil {
		out[addrKey] = ip.address
	}
}

func (s *Simulator) renderFirewallRule(r *rule) map[string]any {
	out := map[string]any{
		"id":          r.id,
		"protocol":    r.protocol,
		"networkid":   r.networkID,
		"state":       r.state,
		"cidrlist":    strings.Join(r.cidrs, ","),
		"traffictype": "Ingress",
		"fordisplay":  r.forDisplay,
		"tags":        []any{},
	}
	s.ruleIPFields(out, r, "ipaddressid", "ipaddress")
	if r.hasPorts {
		out["startport"] = r.start
		out["endport"] = r.end
	}
	if r.icmpType != nil {
		out["icmptype"] = *r.icmpType
	}
	if r.icmpCode != nil {
		out["icmpcode"] = *r.icmpCode
	}
	if len(r.destCidrs) > 0 {
		out["destcidrlist"] = strings.Join(r.destCidrs, ",")
	}
	return out
}

func (s *Simulator) renderPortForwardingRule(r *rule) map[string]any {
	out := map[string]any{
		"id":               r.id,
		"privateport":      strconv.Itoa(r.privateStart),
		"privateendport":   strconv.Itoa(r.privateEnd),
		"publicport":       strconv.Itoa(r.start),
		"publicendport":    strconv.Itoa(r.end),
		"protocol":         r.protocol,
		"virtualmachineid": r.vmID,
		"networkid":        r.networkID,
		"vmguestip":        r.vmGuestIP,
		"state":            r.state,
		"cidrlist":         strings.Join(r.cidrs, ","),
		"fordisplay":       r.forDisplay,
		"tags":             []any{},
	}
	s.ruleIPFields(out, r, "ipaddressid", "ipaddress")
	if v := s.st.vmIncludingExpunged(r.vmID); v != nil {
		out["virtualmachinename"] = v.name
		out["virtualmachinedisplayname"] = v.name
	}
	return out
}

func (s *Simulator) renderLoadBalancerRule(r *rule) map[string]any {
	out := map[string]any{
		"id":          r.id,
		"name":        r.name,
		"description": r.description,
		"publicport":  strconv.Itoa(r.start),
		"privateport": strconv.Itoa(r.privateStart),
		"algorithm":   r.algorithm,
		"cidrlist":    strings.Join(r.cidrs, ","),
		"state":       r.state,
		"networkid":   r.networkID,
		"protocol":    r.protocol,
		"fordisplay":  r.forDisplay,
		"zoneid":      s.st.seedIDs.zone,
		"tags":        []any{},
	}
	if z := s.st.zone(s.st.seedIDs.zone); z != nil {
		out["zonename"] = z.name
	}
	s.ruleIPFields(out, r, "publicipid", "publicip")
	s.ownerFields(out, r.accountID)
	return out
}
