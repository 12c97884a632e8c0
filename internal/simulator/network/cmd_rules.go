package network

import (
	"net"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// listRules lists rules of one purpose with the common filters: id, the
// IP, networkid, ownership, keyword and fordisplay. Rules created with
// fordisplay=false are hidden from callers other than root admins
// (ListFirewallRulesCmd.getDisplay; the fordisplay parameter is authorized
// for root admins only), though the workers still evaluate them.
func (s *Networks) listRules(c *core.Caller, p wire.Params, purpose string, ipParam string,
	render func(*model.Rule) map[string]any, objectName string) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.RuleLookup(purpose))
	if err != nil {
		return nil, err
	}
	ip, err := wire.ResolveParam(p, ipParam, s.DB.IP)
	if err != nil {
		return nil, err
	}
	if ip != nil && ip.Released && purpose != model.PurposeLB {
		// FirewallManagerImpl.listFirewallRules and
		// RulesManagerImpl.listPortForwardingRules refuse an IP that is not
		// Allocated (IPAddressVO.readyToUse); a released IP keeps its uuid.
		what := map[string]string{model.PurposeFirewall: "firewall", model.PurposePF: "port forwarding"}[purpose]
		return nil, wire.InvalidParam("Ip address id=%d not ready for %s rules yet", ip.InternalID, what)
	}
	n, err := wire.ResolveParam(p, "networkid", s.DB.Network)
	if err != nil {
		return nil, err
	}
	// fordisplay is authorized for root admins only; the API layer drops it
	// from other callers' requests.
	display, displayGiven := p.Bool("fordisplay")
	displayGiven = displayGiven && c.IsAdmin()
	items := []map[string]any{}
	for _, r := range s.DB.Rules {
		switch {
		case r.Purpose != purpose,
			filter.Excludes(r, r.AccountID),
			ip != nil && r.IPID != ip.ID,
			n != nil && r.NetworkID != n.ID,
			displayGiven && r.ForDisplay != display,
			!displayGiven && !c.IsAdmin() && !r.ForDisplay,
			purpose == model.PurposeLB && p.Has("name") && !strings.EqualFold(p.Str("name"), r.Name),
			!wire.MatchesKeyword(p, r.Name, r.Description):
			continue
		}
		items = append(items, render(r))
	}
	if purpose != model.PurposeLB {
		// FirewallManagerImpl.listFirewallRules and
		// RulesManagerImpl.listPortForwardingRules search with
		// new Filter(<VO>.class, "id", false, ...): ORDER BY id DESC.
		// LoadBalancingRulesManagerImpl.searchForLoadBalancers sorts by id
		// ascending.
		slices.Reverse(items)
	}
	return s.ListBody(p, objectName, items)
}

func cmdListFirewallRules(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	return s.listRules(c, p, model.PurposeFirewall, "ipaddressid", s.renderFirewallRule, "firewallrule")
}

func cmdListPortForwardingRules(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	return s.listRules(c, p, model.PurposePF, "ipaddressid", s.renderPortForwardingRule, "portforwardingrule")
}

func cmdListLoadBalancerRules(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	return s.listRules(c, p, model.PurposeLB, "publicipid", s.renderLoadBalancerRule, "loadbalancerrule")
}

// requireIP resolves the required ipaddressid of a rule command.
func (s *Networks) requireIP(c *core.Caller, p wire.Params) (*model.PublicIP, *wire.APIError) {
	if _, err := p.Require("ipaddressid"); err != nil {
		return nil, err
	}
	ip, err := wire.ResolveParam(p, "ipaddressid", func(id string) *model.PublicIP {
		if ip := s.DB.IP(id); ip != nil && !ip.Released {
			return ip
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, ip.AccountID, "IP address "+ip.Address); err != nil {
		return nil, err
	}
	if ip.NetworkID == "" {
		return nil, wire.InvalidParam("Unable to create the rule; ip with specified id is not associated with any network")
	}
	return ip, nil
}

// parsePort parses an optional port parameter (1-65535).
func parsePort(p wire.Params, name string) (int, bool, *wire.APIError) {
	v, present, err := p.Long(name)
	if err != nil || !present {
		return 0, present, err
	}
	if v < 1 || v > 65535 {
		return 0, true, wire.InvalidParam("Invalid port: %d, ports must be between 1 and 65535", v)
	}
	return int(v), true, nil
}

func parseCidrs(p wire.Params, def []string) ([]string, *wire.APIError) {
	list := p.List("cidrlist")
	if len(list) == 0 {
		return def, nil
	}
	for _, cidr := range list {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			return nil, wire.InvalidParam("Source cidrs formatting error %s", cidr)
		}
	}
	return list, nil
}

// deleteRule is deleteFirewallRule / deletePortForwardingRule: async, the
// rule is revoked (with its related firewall rule) in the job.
func (s *Networks) deleteRule(c *core.Caller, p wire.Params, purpose, cmdClass string) (map[string]any, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	r, err := wire.ResolveParam(p, "id", s.DB.RuleLookup(purpose))
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, r.AccountID, "rule "+r.ID); err != nil {
		return nil, err
	}
	j := s.StartJob(c, cmdPkgFirewall+cmdClass, "FirewallRule", r.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			if err := jr.Step("apply"); err != nil {
				return nil, wire.InternalError("%s", core.FailText(err, "Failed to delete rule "+r.ID))
			}
			s.RevokeRule(r)
			return map[string]any{"success": true}, nil
		})
	return map[string]any{"jobid": j.ID}, nil
}

func cmdDeleteFirewallRule(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	return s.deleteRule(c, p, model.PurposeFirewall, "DeleteFirewallRuleCmd")
}

func cmdDeletePortForwardingRule(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	return s.deleteRule(c, p, model.PurposePF, "DeletePortForwardingRuleCmd")
}
