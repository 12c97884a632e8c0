package network

import (
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// Renderers. Firewall ports are ints; port-forwarding and LB ports strings.

func (s *Networks) ruleIPFields(out map[string]any, r *model.Rule, idKey, addrKey string) {
	out[idKey] = r.IPID
	if ip := s.DB.IP(r.IPID); ip != nil {
		out[addrKey] = ip.Address
	}
}

func (s *Networks) renderFirewallRule(r *model.Rule) map[string]any {
	out := map[string]any{
		"id":          r.ID,
		"protocol":    r.Protocol,
		"networkid":   r.NetworkID,
		"state":       r.State,
		"cidrlist":    strings.Join(r.CIDRs, ","),
		"traffictype": "Ingress",
		"fordisplay":  r.ForDisplay,
		"tags":        []any{},
	}
	s.ruleIPFields(out, r, "ipaddressid", "ipaddress")
	if r.HasPorts {
		out["startport"] = r.Start
		out["endport"] = r.End
	}
	if r.ICMPType != nil {
		out["icmptype"] = *r.ICMPType
	}
	if r.ICMPCode != nil {
		out["icmpcode"] = *r.ICMPCode
	}
	if len(r.DestCIDRs) > 0 {
		out["destcidrlist"] = strings.Join(r.DestCIDRs, ",")
	}
	return out
}

func (s *Networks) renderPortForwardingRule(r *model.Rule) map[string]any {
	out := map[string]any{
		"id":               r.ID,
		"privateport":      strconv.Itoa(r.PrivateStart),
		"privateendport":   strconv.Itoa(r.PrivateEnd),
		"publicport":       strconv.Itoa(r.Start),
		"publicendport":    strconv.Itoa(r.End),
		"protocol":         r.Protocol,
		"virtualmachineid": r.VMID,
		"networkid":        r.NetworkID,
		"vmguestip":        r.VMGuestIP,
		"state":            r.State,
		"cidrlist":         strings.Join(r.CIDRs, ","),
		"fordisplay":       r.ForDisplay,
		"tags":             []any{},
	}
	s.ruleIPFields(out, r, "ipaddressid", "ipaddress")
	if v := s.DB.VMIncludingExpunged(r.VMID); v != nil {
		out["virtualmachinename"] = v.Name
		out["virtualmachinedisplayname"] = v.Name
	}
	return out
}

func (s *Networks) renderLoadBalancerRule(r *model.Rule) map[string]any {
	out := map[string]any{
		"id":          r.ID,
		"name":        r.Name,
		"description": r.Description,
		"publicport":  strconv.Itoa(r.Start),
		"privateport": strconv.Itoa(r.PrivateStart),
		"algorithm":   r.Algorithm,
		"cidrlist":    strings.Join(r.CIDRs, ","),
		"state":       r.State,
		"networkid":   r.NetworkID,
		"protocol":    r.Protocol,
		"fordisplay":  r.ForDisplay,
		"zoneid":      s.DB.SeedIDs.Zone,
		"tags":        []any{},
	}
	if z := s.DB.Zone(s.DB.SeedIDs.Zone); z != nil {
		out["zonename"] = z.Name
	}
	s.ruleIPFields(out, r, "publicipid", "publicip")
	s.OwnerFields(out, r.AccountID)
	return out
}
