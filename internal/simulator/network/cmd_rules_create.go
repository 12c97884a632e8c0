package network

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// createFirewallRule and createPortForwardingRule: the rule is checked and
// staged synchronously, then applied by a job.

func cmdCreateFirewallRule(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	ip, err := s.requireIP(c, p)
	if err != nil {
		return nil, err
	}
	proto, err := p.Require("protocol")
	if err != nil {
		return nil, err
	}
	if ip.VPCID != "" {
		return nil, wire.InvalidParam("Firewall rules can not be created for IP address %s of a VPC; use network ACLs", ip.Address)
	}
	r := &model.Rule{Purpose: model.PurposeFirewall, Protocol: strings.ToLower(proto), IPID: ip.ID, NetworkID: ip.NetworkID,
		AccountID: ip.AccountID, State: model.RuleStaged, ForDisplay: true}
	if fd, present := p.Bool("fordisplay"); present {
		r.ForDisplay = fd
	}
	if r.CIDRs, err = parseCidrs(p, []string{"0.0.0.0/0"}); err != nil {
		return nil, err
	}
	if err := parseFirewallRulePorts(p, r, proto); err != nil {
		return nil, err
	}
	if err := s.persistRule(r, true); err != nil {
		return nil, err
	}
	return s.createRuleJob(c, r, "CreateFirewallRuleCmd", "Failed to create firewall rule", func() map[string]any {
		return map[string]any{"firewallrule": s.renderFirewallRule(r)}
	}), nil
}

// parseFirewallRulePorts reads what the protocol takes: a port range for
// tcp and udp (the end defaults to the start), an ICMP type and code for
// icmp, nothing for all.
func parseFirewallRulePorts(p wire.Params, r *model.Rule, proto string) *wire.APIError {
	start, hasStart, err := parsePort(p, "startport")
	if err != nil {
		return err
	}
	end, hasEnd, err := parsePort(p, "endport")
	if err != nil {
		return err
	}
	switch r.Protocol {
	case "tcp", "udp":
		if hasStart {
			if !hasEnd {
				end = start
			}
			if start > end {
				return wire.InvalidParam("Start port can't be bigger than end port")
			}
			r.HasPorts, r.Start, r.End = true, start, end
		}
	case "icmp", "all":
		if hasStart || hasEnd {
			return wire.InvalidParam("Can't specify start/end port when protocol is %s", r.Protocol)
		}
		if r.Protocol == "icmp" {
			return parseICMPTypeAndCode(p, r)
		}
	default:
		return wire.InvalidParam("Invalid protocol %s for the firewall rule", proto)
	}
	return nil
}

// parseICMPTypeAndCode reads icmptype and icmpcode; -1, any, when not given.
func parseICMPTypeAndCode(p wire.Params, r *model.Rule) *wire.APIError {
	icmpType, icmpCode := -1, -1
	if v, present, err := p.Long("icmptype"); err != nil {
		return err
	} else if present {
		icmpType = int(v)
	}
	if v, present, err := p.Long("icmpcode"); err != nil {
		return err
	} else if present {
		icmpCode = int(v)
	}
	r.ICMPType, r.ICMPCode = &icmpType, &icmpCode
	return nil
}

func cmdCreatePortForwardingRule(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	ip, err := s.requireIP(c, p)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"privateport", "protocol", "publicport", "virtualmachineid"} {
		if _, err := p.Require(name); err != nil {
			return nil, err
		}
	}
	v, err := s.forwardTargetVM(c, p, ip)
	if err != nil {
		return nil, err
	}
	proto := strings.ToLower(p.Str("protocol"))
	if proto != "tcp" && proto != "udp" {
		return nil, wire.InvalidParam("Invalid protocol %s for the port forwarding rule", p.Str("protocol"))
	}
	ports, err := parseForwardPorts(p)
	if err != nil {
		return nil, err
	}
	openFirewall, err := parseOpenFirewall(p, ip)
	if err != nil {
		return nil, err
	}
	guestIP := v.IP
	if g := p.Str("vmguestip"); g != "" && g != v.IP {
		return nil, wire.InvalidParam("VM ip %s is not the IP address of the NIC of VM %s in the network", g, v.Name)
	}
	cidrs, err := parseCidrs(p, nil)
	if err != nil {
		return nil, err
	}
	r := &model.Rule{Purpose: model.PurposePF, Protocol: proto, HasPorts: true, Start: ports["publicport"], End: ports["publicendport"],
		PrivateStart: ports["privateport"], PrivateEnd: ports["privateendport"], VMID: v.ID, VMGuestIP: guestIP,
		IPID: ip.ID, NetworkID: ip.NetworkID, AccountID: ip.AccountID, State: model.RuleStaged, CIDRs: cidrs, ForDisplay: true}
	if fd, present := p.Bool("fordisplay"); present {
		r.ForDisplay = fd
	}
	fw, err := s.persistForward(ip, r, openFirewall)
	if err != nil {
		return nil, err
	}
	return s.createRuleJob(c, r, "CreatePortForwardingRuleCmd", "Failed to apply port forwarding rule", func() map[string]any {
		if fw != nil && s.DB.Rule(fw.ID) != nil {
			fw.State = model.RuleActive
		}
		s.openForward(r)
		return map[string]any{"portforwardingrule": s.renderPortForwardingRule(r)}
	}), nil
}

// forwardTargetVM resolves virtualmachineid, which the caller must own and
// which must have a NIC in the IP's network; networkid is only resolved.
func (s *Networks) forwardTargetVM(c *core.Caller, p wire.Params, ip *model.PublicIP) (*model.VM, *wire.APIError) {
	v, err := wire.ResolveParam(p, "virtualmachineid", s.DB.VM)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, v.AccountID, "VM "+v.Name); err != nil {
		return nil, err
	}
	if _, err := wire.ResolveParam(p, "networkid", s.DB.Network); err != nil {
		return nil, err
	}
	if v.NetworkID != ip.NetworkID {
		return nil, wire.InvalidParam("Unable to create port forwarding rule: VM %s has no NIC in the network of IP address %s", v.Name, ip.Address)
	}
	return v, nil
}

// parseForwardPorts reads the public and private ranges, by parameter name;
// an end port defaults to its start, and both ranges must be as wide.
func parseForwardPorts(p wire.Params) (map[string]int, *wire.APIError) {
	ports := map[string]int{}
	for _, name := range []string{"publicport", "publicendport", "privateport", "privateendport"} {
		port, present, err := parsePort(p, name)
		if err != nil {
			return nil, err
		}
		if present {
			ports[name] = port
		}
	}
	if _, ok := ports["publicendport"]; !ok {
		ports["publicendport"] = ports["publicport"]
	}
	if _, ok := ports["privateendport"]; !ok {
		ports["privateendport"] = ports["privateport"]
	}
	if ports["publicport"] > ports["publicendport"] || ports["privateport"] > ports["privateendport"] {
		return nil, wire.InvalidParam("Start port can't be bigger than end port")
	}
	if ports["publicendport"]-ports["publicport"] != ports["privateendport"]-ports["privateport"] {
		return nil, wire.InvalidParam("Source port and destination port ranges should be of equal sizes.")
	}
	return ports, nil
}

// parseOpenFirewall reads openfirewall: by default true, except on a VPC
// IP, where it may not be true.
func parseOpenFirewall(p wire.Params, ip *model.PublicIP) (bool, *wire.APIError) {
	openFirewall, given := p.Bool("openfirewall")
	if !given {
		openFirewall = ip.VPCID == ""
	}
	if openFirewall && ip.VPCID != "" {
		return false, wire.InvalidParam("Can't open firewall for a port forwarding rule of a VPC IP address: openfirewall must be false")
	}
	return openFirewall, nil
}

// persistForward inserts the PF rule and, with openFirewall, the firewall
// rule opened for it; when that one conflicts, the PF rule goes too.
func (s *Networks) persistForward(ip *model.PublicIP, r *model.Rule, openFirewall bool) (*model.Rule, *wire.APIError) {
	if err := s.persistRule(r, true); err != nil {
		return nil, err
	}
	if !openFirewall {
		return nil, nil
	}
	fw := &model.Rule{Purpose: model.PurposeFirewall, Protocol: r.Protocol, HasPorts: true, Start: r.Start, End: r.End,
		IPID: ip.ID, NetworkID: ip.NetworkID, AccountID: ip.AccountID, State: model.RuleStaged,
		CIDRs: []string{"0.0.0.0/0"}, ForDisplay: true, RelatedID: r.InternalID}
	if err := s.persistRule(fw, true); err != nil {
		s.deleteRuleRow(r)
		return nil, err
	}
	return fw, nil
}

// createRuleJob starts the job that applies a staged rule and returns the
// create command's response. A failed step, or the rule deleted meanwhile,
// revokes it with failure as the job's error; otherwise it turns Active and
// applied finishes the job and gives its result.
func (s *Networks) createRuleJob(c *core.Caller, r *model.Rule, cmdClass, failure string, applied func() map[string]any) map[string]any {
	j := s.StartJob(c, cmdPkgFirewall+cmdClass, "FirewallRule", r.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			if err := jr.Step("apply"); err != nil || s.DB.Rule(r.ID) == nil {
				s.RevokeRule(r)
				return nil, wire.InternalError("%s", failure)
			}
			r.State = model.RuleActive
			return applied(), nil
		})
	return map[string]any{"id": r.ID, "jobid": j.ID}
}
