package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// rulesFilter is implemented by the list params of firewall and
// port-forwarding rules.
type rulesFilter interface {
	SetId(string)
	SetIpaddressid(string)
	SetNetworkid(string)
	SetProjectid(string)
	SetListall(bool)
	SetPage(int)
	SetPagesize(int)
}

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

// ListFirewallRules lists ingress firewall rules, all pages.
func (c *Client) ListFirewallRules(ctx context.Context, p ListRulesParams) ([]FirewallRule, error) {
	const command = "listFirewallRules"
	return collectPages(ctx, command, c.pageSize, func(r FirewallRule) string { return r.ID },
		func(ctx context.Context, page, pageSize int) ([]FirewallRule, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListFirewallRulesResponse, error) {
					lp := cs.Firewall.NewListFirewallRulesParams()
					applyRulesFilter(lp, p, page, pageSize)
					return cs.Firewall.ListFirewallRules(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]FirewallRule, 0, len(r.FirewallRules))
			for _, fw := range r.FirewallRules {
				out = append(out, FirewallRule{
					ID:          fw.Id,
					Protocol:    fw.Protocol,
					StartPort:   fw.Startport,
					EndPort:     fw.Endport,
					CIDRList:    splitCIDRs(fw.Cidrlist),
					IPAddressID: fw.Ipaddressid,
					IPAddress:   fw.Ipaddress,
					NetworkID:   fw.Networkid,
					State:       fw.State,
				})
			}
			return out, r.Count, nil
		})
}

// CreateFirewallRule starts a create job. A conflicting rule fails at once
// with 537 (KindConflict).
func (c *Client) CreateFirewallRule(ctx context.Context, p CreateFirewallRuleParams) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "createFirewallRule", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			cp := cs.Firewall.NewCreateFirewallRuleParams(p.IPAddressID, p.Protocol)
			if p.StartPort != 0 {
				cp.SetStartport(p.StartPort)
			}
			if p.EndPort != 0 {
				cp.SetEndport(p.EndPort)
			}
			if len(p.CIDRList) > 0 {
				cp.SetCidrlist(p.CIDRList)
			}
			r, err := cs.Firewall.CreateFirewallRule(cp)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{ID: r.Id, JobID: r.JobID}, nil
		})
	return ref, err
}

// DeleteFirewallRule starts a delete job.
func (c *Client) DeleteFirewallRule(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "deleteFirewallRule", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Firewall.DeleteFirewallRule(cs.Firewall.NewDeleteFirewallRuleParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// ListPortForwardingRules lists port-forwarding rules, all pages. CloudStack
// sends the ports as strings; they are converted here.
func (c *Client) ListPortForwardingRules(ctx context.Context, p ListRulesParams) ([]PortForwardingRule, error) {
	const command = "listPortForwardingRules"
	return collectPages(ctx, command, c.pageSize, func(r PortForwardingRule) string { return r.ID },
		func(ctx context.Context, page, pageSize int) ([]PortForwardingRule, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListPortForwardingRulesResponse, error) {
					lp := cs.Firewall.NewListPortForwardingRulesParams()
					applyRulesFilter(lp, p, page, pageSize)
					return cs.Firewall.ListPortForwardingRules(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]PortForwardingRule, 0, len(r.PortForwardingRules))
			for _, pf := range r.PortForwardingRules {
				out = append(out, PortForwardingRule{
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
				})
			}
			return out, r.Count, nil
		})
}

// CreatePortForwardingRule starts a create job; openfirewall is always sent.
func (c *Client) CreatePortForwardingRule(ctx context.Context, p CreatePortForwardingRuleParams) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "createPortForwardingRule", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
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
			r, err := cs.Firewall.CreatePortForwardingRule(cp)
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{ID: r.Id, JobID: r.JobID}, nil
		})
	return ref, err
}

// DeletePortForwardingRule starts a delete job.
func (c *Client) DeletePortForwardingRule(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "deletePortForwardingRule", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Firewall.DeletePortForwardingRule(cs.Firewall.NewDeletePortForwardingRuleParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// ListLoadBalancerRules lists load balancer rules, all pages. IPAddressID
// filters on the rule's public IP (publicipid).
func (c *Client) ListLoadBalancerRules(ctx context.Context, p ListRulesParams) ([]LoadBalancerRule, error) {
	const command = "listLoadBalancerRules"
	return collectPages(ctx, command, c.pageSize, func(r LoadBalancerRule) string { return r.ID },
		func(ctx context.Context, page, pageSize int) ([]LoadBalancerRule, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListLoadBalancerRulesResponse, error) {
					lp := cs.LoadBalancer.NewListLoadBalancerRulesParams()
					if p.ID != "" {
						lp.SetId(p.ID)
					}
					if p.IPAddressID != "" {
						lp.SetPublicipid(p.IPAddressID)
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
					return cs.LoadBalancer.ListLoadBalancerRules(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]LoadBalancerRule, 0, len(r.LoadBalancerRules))
			for _, lb := range r.LoadBalancerRules {
				out = append(out, LoadBalancerRule{
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
				})
			}
			return out, r.Count, nil
		})
}
