package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// rulesFilter is implemented by the list params of firewall and
// port-forwarding rules, and by loadBalancerRulesFilter.
type rulesFilter interface {
	SetId(string)
	SetIpaddressid(string)
	SetNetworkid(string)
	SetProjectid(string)
	SetListall(bool)
	SetPage(int)
	SetPagesize(int)
}

// applyRulesFilter sets the filters p holds, and the page to fetch.
func applyRulesFilter(lp rulesFilter, p ListRulesParams, page, pageSize int) {
	if p.ID != "" {
		lp.SetId(p.ID)
	}
	if p.IPAddressID != "" {
		lp.SetIpaddressid(p.IPAddressID)
	}
	if p.NetworkID != "" {
		lp.SetNetworkid(p.NetworkID)
	}
	if p.ProjectID != "" {
		lp.SetProjectid(p.ProjectID)
	}
	if p.ListAll {
		lp.SetListall(true)
	}
	lp.SetPage(page)
	lp.SetPagesize(pageSize)
}

// loadBalancerRulesFilter filters load balancer rules on their public IP
// (publicipid), which the other rule lists call ipaddressid.
type loadBalancerRulesFilter struct {
	*csgo.ListLoadBalancerRulesParams
}

func (f loadBalancerRulesFilter) SetIpaddressid(id string) { f.SetPublicipid(id) }

// listRules lists one kind of rule, all pages, as a read (retried): list
// fetches one page of CloudStack's rules and the total count it reports,
// and convert turns each into ours, given its place in the server's listing
// (0 for the first listed). Firewall rules, port forwards and load balancer
// rules differ only in those two.
func listRules[Raw, Rule any](ctx context.Context, c *Client, command string, id func(Rule) string,
	list func(cs *csgo.CloudStackClient, page, pageSize int) ([]Raw, int, error), convert func(raw Raw, listed int) Rule,
) ([]Rule, error) {
	type listed struct {
		rules []Raw
		count int
	}
	return collectPages(ctx, command, c.pageSize, id,
		func(ctx context.Context, page, pageSize int) ([]Rule, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (listed, error) {
					rules, count, err := list(cs, page, pageSize)
					return listed{rules: rules, count: count}, err
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]Rule, 0, len(r.rules))
			for i, raw := range r.rules {
				out = append(out, convert(raw, (page-1)*pageSize+i))
			}
			return out, r.count, nil
		})
}

// startRuleJob sends a command that creates or deletes a rule and so
// starts an async job. It is a write: it is sent once.
func startRuleJob[Resp any](ctx context.Context, c *Client, command string,
	send func(cs *csgo.CloudStackClient) (Resp, error), ref func(Resp) AsyncRef,
) (AsyncRef, error) {
	out, _, err := call(ctx, c, command, callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := send(cs)
			if err != nil {
				return AsyncRef{}, err
			}
			return ref(r), nil
		})
	return out, err
}

// ListFirewallRules lists ingress firewall rules, all pages.
func (c *Client) ListFirewallRules(ctx context.Context, p ListRulesParams) ([]FirewallRule, error) {
	return listRules(ctx, c, "listFirewallRules", func(r FirewallRule) string { return r.ID },
		func(cs *csgo.CloudStackClient, page, pageSize int) ([]*csgo.FirewallRule, int, error) {
			lp := cs.Firewall.NewListFirewallRulesParams()
			applyRulesFilter(lp, p, page, pageSize)
			r, err := cs.Firewall.ListFirewallRules(lp)
			if err != nil {
				return nil, 0, err
			}
			return r.FirewallRules, r.Count, nil
		},
		func(fw *csgo.FirewallRule, listed int) FirewallRule {
			return FirewallRule{
				Listed:      listed,
				ID:          fw.Id,
				Protocol:    fw.Protocol,
				StartPort:   fw.Startport,
				EndPort:     fw.Endport,
				CIDRList:    splitCIDRs(fw.Cidrlist),
				IPAddressID: fw.Ipaddressid,
				IPAddress:   fw.Ipaddress,
				NetworkID:   fw.Networkid,
				State:       fw.State,
			}
		})
}

// CreateFirewallRule starts a create job. A conflicting rule fails at once
// with 537 (KindConflict).
func (c *Client) CreateFirewallRule(ctx context.Context, p CreateFirewallRuleParams) (AsyncRef, error) {
	return startRuleJob(ctx, c, "createFirewallRule",
		func(cs *csgo.CloudStackClient) (*csgo.CreateFirewallRuleResponse, error) {
			cp := cs.Firewall.NewCreateFirewallRuleParams(p.IPAddressID, p.Protocol)
			setPortsAndCIDRs(cp, p.StartPort, p.EndPort, p.CIDRList)
			return cs.Firewall.CreateFirewallRule(cp)
		},
		func(r *csgo.CreateFirewallRuleResponse) AsyncRef { return AsyncRef{ID: r.Id, JobID: r.JobID} })
}

// DeleteFirewallRule starts a delete job.
func (c *Client) DeleteFirewallRule(ctx context.Context, id string) (AsyncRef, error) {
	return startRuleJob(ctx, c, "deleteFirewallRule",
		func(cs *csgo.CloudStackClient) (*csgo.DeleteFirewallRuleResponse, error) {
			return cs.Firewall.DeleteFirewallRule(cs.Firewall.NewDeleteFirewallRuleParams(id))
		},
		func(r *csgo.DeleteFirewallRuleResponse) AsyncRef { return AsyncRef{JobID: r.JobID} })
}

// ListPortForwardingRules lists port-forwarding rules, all pages. CloudStack
// sends the ports as strings; they are converted here.
func (c *Client) ListPortForwardingRules(ctx context.Context, p ListRulesParams) ([]PortForwardingRule, error) {
	return listRules(ctx, c, "listPortForwardingRules", func(r PortForwardingRule) string { return r.ID },
		func(cs *csgo.CloudStackClient, page, pageSize int) ([]*csgo.PortForwardingRule, int, error) {
			lp := cs.Firewall.NewListPortForwardingRulesParams()
			applyRulesFilter(lp, p, page, pageSize)
			r, err := cs.Firewall.ListPortForwardingRules(lp)
			if err != nil {
				return nil, 0, err
			}
			return r.PortForwardingRules, r.Count, nil
		},
		func(pf *csgo.PortForwardingRule, _ int) PortForwardingRule {
			return PortForwardingRule{
				ID:                 pf.Id,
				Protocol:           pf.Protocol,
				PublicPort:         atoiOrZero(pf.Publicport),
				PublicEndPort:      atoiOrZero(pf.Publicendport),
				PrivatePort:        atoiOrZero(pf.Privateport),
				PrivateEndPort:     atoiOrZero(pf.Privateendport),
				VirtualMachineID:   pf.Virtualmachineid,
				VirtualMachineName: pf.Virtualmachinename,
				VMGuestIP:          pf.Vmguestip,
				CIDRList:           splitCIDRs(pf.Cidrlist),
				IPAddressID:        pf.Ipaddressid,
				IPAddress:          pf.Ipaddress,
				NetworkID:          pf.Networkid,
				State:              pf.State,
			}
		})
}

// CreatePortForwardingRule starts a create job; openfirewall is always sent.
func (c *Client) CreatePortForwardingRule(ctx context.Context, p CreatePortForwardingRuleParams) (AsyncRef, error) {
	return startRuleJob(ctx, c, "createPortForwardingRule",
		func(cs *csgo.CloudStackClient) (*csgo.CreatePortForwardingRuleResponse, error) {
			cp := cs.Firewall.NewCreatePortForwardingRuleParams(p.IPAddressID, p.PrivatePort, p.Protocol,
				p.PublicPort, p.VirtualMachineID)
			if p.PrivateEndPort != 0 {
				cp.SetPrivateendport(p.PrivateEndPort)
			}
			if p.PublicEndPort != 0 {
				cp.SetPublicendport(p.PublicEndPort)
			}
			if p.NetworkID != "" {
				cp.SetNetworkid(p.NetworkID)
			}
			if len(p.CIDRList) > 0 {
				cp.SetCidrlist(p.CIDRList)
			}
			cp.SetOpenfirewall(p.OpenFirewall)
			return cs.Firewall.CreatePortForwardingRule(cp)
		},
		func(r *csgo.CreatePortForwardingRuleResponse) AsyncRef { return AsyncRef{ID: r.Id, JobID: r.JobID} })
}

// DeletePortForwardingRule starts a delete job.
func (c *Client) DeletePortForwardingRule(ctx context.Context, id string) (AsyncRef, error) {
	return startRuleJob(ctx, c, "deletePortForwardingRule",
		func(cs *csgo.CloudStackClient) (*csgo.DeletePortForwardingRuleResponse, error) {
			return cs.Firewall.DeletePortForwardingRule(cs.Firewall.NewDeletePortForwardingRuleParams(id))
		},
		func(r *csgo.DeletePortForwardingRuleResponse) AsyncRef { return AsyncRef{JobID: r.JobID} })
}

// ListLoadBalancerRules lists load balancer rules, all pages. IPAddressID
// filters on the rule's public IP (publicipid).
func (c *Client) ListLoadBalancerRules(ctx context.Context, p ListRulesParams) ([]LoadBalancerRule, error) {
	return listRules(ctx, c, "listLoadBalancerRules", func(r LoadBalancerRule) string { return r.ID },
		func(cs *csgo.CloudStackClient, page, pageSize int) ([]*csgo.LoadBalancerRule, int, error) {
			lp := cs.LoadBalancer.NewListLoadBalancerRulesParams()
			applyRulesFilter(loadBalancerRulesFilter{lp}, p, page, pageSize)
			r, err := cs.LoadBalancer.ListLoadBalancerRules(lp)
			if err != nil {
				return nil, 0, err
			}
			return r.LoadBalancerRules, r.Count, nil
		},
		func(lb *csgo.LoadBalancerRule, _ int) LoadBalancerRule {
			return LoadBalancerRule{
				ID:          lb.Id,
				Name:        lb.Name,
				Protocol:    lb.Protocol,
				PublicPort:  atoiOrZero(lb.Publicport),
				PrivatePort: atoiOrZero(lb.Privateport),
				Algorithm:   lb.Algorithm,
				PublicIPID:  lb.Publicipid,
				PublicIP:    lb.Publicip,
				NetworkID:   lb.Networkid,
				State:       lb.State,
			}
		})
}
