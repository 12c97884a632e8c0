package simulator

import (
	"net"
	"slices"
	"strings"
)

// listRules lists rules of one purpose with the common filters: id, the
// IP, networkid, ownership, keyword and fordisplay. Rules created with
// fordisplay=false are hidden from callers other than root admins
// (ListFirewallRulesCmd.getDisplay; the fordisplay parameter is authorized
// for root admins only), though the workers still evaluate them.
func (s *Simulator) listRules(c *caller, p params, purpose string, ipParam string,
	render func(*rule) map[string]any, objectName string) (map[string]any, *apiError) {
	filter, err := newListFilter(s, c, p, s.st.ruleLookup(purpose))
	if err != nil {
		return nil, err
	}
	ip, err := resolveParam(p, ipParam, s.st.ip)
	if err != nil {
		return nil, err
	}
	if ip != nil && ip.released && purpose != purposeLB {
		// FirewallManagerImpl.listFirewallRules and
		// RulesManagerImpl.listPortForwardingRules refuse an IP that is not
		// Allocated (IPAddressVO.readyToUse); a released IP keeps its uuid.
		what := map[string]string{purposeFirewall: "firewall", purposePF: "port forwarding"}[purpose]
		return nil, invalidParam("Ip address id=%d not ready for %s rules yet", ip.internalID, what)
	}
	n, err := resolveParam(p, "networkid", s.st.network)
	if err != nil {
		return nil, err
	}
	// fordisplay is authorized for root admins only; the API layer drops it
	// from other callers' requests.
	display, displayGiven := p.boolean("fordisplay")
	displayGiven = displayGiven && c.isAdmin()
	items := []map[string]any{}
	for _, r := range s.st.rules {
		switch {
		case r.purpose != purpose,
			filter.excludes(r, r.accountID),
			ip != nil && r.ipID != ip.id,
			n != nil && r.networkID != n.id,
			displayGiven && r.forDisplay != display,
			!displayGiven && !c.isAdmin() && !r.forDisplay,
			purpose == purposeLB && p.has("name") && !strings.EqualFold(p.str("name"), r.name),
			!matchesKeyword(p, r.name, r.description):
			continue
		}
		items = append(items, render(r))
	}
	if purpose != purposeLB {
		// FirewallManagerImpl.listFirewallRules and
		// RulesManagerImpl.listPortForwardingRules search with
		// new Filter(<VO>.class, "id", false, ...): ORDER BY id DESC.
		// LoadBalancingRulesManagerImpl.searchForLoadBalancers sorts by id
		// ascending.
		slices.Reverse(items)
	}
	return s.listBody(p, objectName, items)
}

func cmdListFirewallRules(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	return s.listRules(c, p, purposeFirewall, "ipaddressid", s.renderFirewallRule, "firewallrule")
}

func cmdListPortForwardingRules(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	return s.listRules(c, p, purposePF, "ipaddressid", s.renderPortForwardingRule, "portforwardingrule")
}

func cmdListLoadBalancerRules(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	return s.listRules(c, p, purposeLB, "publicipid", s.renderLoadBalancerRule, "loadbalancerrule")
}

// requireIP resolves the required ipaddressid of a rule command.
func (s *Simulator) requireIP(c *caller, p params) (*publicIP, *apiError) {
	if _, err := p.require("ipaddressid"); err != nil {
		return nil, err
	}
	ip, err := resolveParam(p, "ipaddressid", func(id string) *publicIP {
		if ip := s.st.ip(id); ip != nil && !ip.released {
			return ip
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, ip.accountID, "IP address "+ip.address); err != nil {
		return nil, err
	}
	if ip.networkID == "" {
		return nil, invalidParam("Unable to create the rule; ip with specified id is not associated with any network")
	}
	return ip, nil
}

// parsePort parses an optional port parameter (1-65535).
func parsePort(p params, name string) (int, bool, *apiError) {
	v, present, err := p.long(name)
	if err != nil || !present {
		return 0, present, err
	}
	if v < 1 || v > 65535 {
		return 0, true, invalidParam("Invalid port: %d, ports must be between 1 and 65535", v)
	}
	return int(v), true, nil
}

func parseCidrs(p params, def []string) ([]string, *apiError) {
	list := p.list("cidrlist")
	if len(list) == 0 {
		return def, nil
	}
	for _, cidr := range list {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			return nil, invalidParam("Source cidrs formatting error %s", cidr)
		}
	}
	return list, nil
}

// deleteRule is deleteFirewallRule / deletePortForwardingRule: async, the
// rule is revoked (with its related firewall rule) in the job.
func (s *Simulator) deleteRule(c *caller, p params, purpose, cmdClass string) (map[string]any, *apiError) {
	if _, err := p.require("id"); err != nil {
		return nil, err
	}
	r, err := resolveParam(p, "id", s.st.ruleLookup(purpose))
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, r.accountID, "rule "+r.id); err != nil {
		return nil, err
	}
	j := s.startJob(c, cmdPkgFirewall+cmdClass, "FirewallRule", r.id, 1,
		func(jr *jobRun) (any, *apiError) {
			jr.op = "rule"
			if err := jr.step("apply"); err != nil {
				return nil, internalError("%s", failText(err, "Failed to delete rule "+r.id))
			}
			s.revokeRule(r)
			return map[string]any{"success": true}, nil
		})
	return map[string]any{"jobid": j.id}, nil
}

func cmdDeleteFirewallRule(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	return s.deleteRule(c, p, purposeFirewall, "DeleteFirewallRuleCmd")
}

func cmdDeletePortForwardingRule(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	return s.deleteRule(c, p, purposePF, "DeletePortForwardingRuleCmd")
}
