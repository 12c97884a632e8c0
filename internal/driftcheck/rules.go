package driftcheck

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// rulesResult is the rules view of a cluster: nil when the cluster's
// network has no CKS rules (shared and routed networks), a view with Err
// when the rules were asked for but the view could not be built.
type rulesResult struct {
	view *drift.RulesView
}

// rulesNotChecked is the view of rules that could not be read: it makes
// the check incomplete.
func rulesNotChecked(reason string) rulesResult {
	return rulesResult{view: &drift.RulesView{Err: errors.New(reason)}}
}

// bulkRules are the firewall rules and port forwards visible to the
// credentials, listed once for a whole fleet and indexed, so that each
// cluster needs no rule calls of its own.
type bulkRules struct {
	// ctx is the fleet's context: a cluster that gives up must not fail the
	// shared listing for the others.
	ctx context.Context
	// projectID is "" for the accounts' rules and allProjects for every
	// project's: CloudStack lists the two apart.
	projectID         string
	once              sync.Once
	err               error
	firewallByIP      map[string][]cloudstack.FirewallRule
	forwardsByNetwork map[string][]cloudstack.PortForwardingRule
	lbByIP            map[string][]cloudstack.LoadBalancerRule
}

// load lists the three kinds of rules, concurrently, on first use.
func (b *bulkRules) load(c *Checker, m *meter) error {
	b.once.Do(func() {
		ctx := b.ctx
		var wg sync.WaitGroup
		var fws []cloudstack.FirewallRule
		var pfs []cloudstack.PortForwardingRule
		var lbs []cloudstack.LoadBalancerRule
		var fwErr, pfErr, lbErr error
		filter := cloudstack.ListRulesParams{ProjectID: b.projectID, ListAll: true}
		wg.Go(func() {
			m.call(cmdListFirewall)
			fws, fwErr = c.API.ListFirewallRules(ctx, filter)
		})
		wg.Go(func() {
			m.call(cmdListForwards)
			pfs, pfErr = c.API.ListPortForwardingRules(ctx, filter)
		})
		wg.Go(func() {
			m.call(cmdListLB)
			lbs, lbErr = c.API.ListLoadBalancerRules(ctx, filter)
		})
		wg.Wait()
		if b.err = errors.Join(fwErr, pfErr, lbErr); b.err != nil {
			return
		}
		b.lbByIP = map[string][]cloudstack.LoadBalancerRule{}
		for _, lb := range lbs {
			b.lbByIP[lb.PublicIPID] = append(b.lbByIP[lb.PublicIPID], lb)
		}
		b.firewallByIP = map[string][]cloudstack.FirewallRule{}
		for _, fw := range fws {
			b.firewallByIP[fw.IPAddressID] = append(b.firewallByIP[fw.IPAddressID], fw)
		}
		b.forwardsByNetwork = map[string][]cloudstack.PortForwardingRule{}
		for _, pf := range pfs {
			b.forwardsByNetwork[pf.NetworkID] = append(b.forwardsByNetwork[pf.NetworkID], pf)
		}
	})
	return b.err
}

// rulesView reads the rules of the cluster's public IP and the port
// forwards of its network (the #14159 predicate and cleanup look at the
// whole network). Isolated networks need the firewall rules of the IP and
// the network's forwards; a VPC tier only forwards (its IP has no firewall);
// shared and routed networks have no CKS rules at all. The network is only
// looked up when the cluster has no source NAT IP, so an isolated cluster
// costs two calls. A project's rules and network are listed with its
// projectid, without which CloudStack leaves them out.
func (c *Checker) rulesView(ctx context.Context, m *meter, cl *cloudstack.Cluster, opts Options, bulk *bulkRules) (rulesResult, error) {
	if cl.NetworkID == "" {
		return rulesNotChecked("the cluster reports no network"), nil
	}
	var (
		wg        sync.WaitGroup
		firewalls []cloudstack.FirewallRule
		forwards  []cloudstack.PortForwardingRule
		lbs       []cloudstack.LoadBalancerRule
		networks  []cloudstack.Network
		fwErr     error
		pfErr     error
		lbErr     error
		netErr    error
	)
	isolated := cl.IPAddressID != ""
	wg.Go(func() { forwards, pfErr = c.networkForwards(ctx, m, cl, bulk) })
	if isolated {
		wg.Go(func() { firewalls, fwErr = c.ipFirewall(ctx, m, cl, bulk) })
		wg.Go(func() { lbs, lbErr = c.ipLoadBalancers(ctx, m, cl, bulk) })
	} else {
		wg.Go(func() {
			m.call(cmdListNetworks)
			networks, netErr = c.API.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: cl.NetworkID, ProjectID: cl.ProjectID})
		})
	}
	wg.Wait()
	if err := cmp.Or(fwErr, pfErr, lbErr, netErr); err != nil {
		return rulesResult{}, err
	}

	layout := rules.Layout{Network: rules.NetworkIsolated, Nodes: clusterview.LayoutNodes(cl), EtcdStartPort: c.EtcdSSHStartPort,
		IPAddressID: cl.IPAddressID, NetworkID: cl.NetworkID, SSHCIDRs: opts.SSHCIDRs, APICIDRs: opts.APICIDRs}
	var tier vpcTierView
	if !isolated {
		net := findNetwork(networks, cl.NetworkID)
		switch {
		case net == nil:
			return rulesNotChecked("network " + cl.NetworkID + " is not visible to these credentials"), nil
		case net.VPCID == "":
			// Shared and routed networks: CKS keeps no rules there.
			return rulesResult{}, nil
		}
		layout.Network = rules.NetworkVPC
		layout.IPAddressID = vpcAddressID(forwards, clusterview.EndpointHost(cl))
		var err error
		if tier, err = c.readVPCTier(ctx, m, cl, net, layout.IPAddressID, bulk); err != nil {
			return rulesResult{}, err
		}
		layout.VPCAPI = tier.api
		lbs = nil // listed by readVPCTier, and only on the load balancer path
	}

	networkForwards := forwardRules(forwards)
	view := &drift.RulesView{Layout: layout, NetworkForwards: networkForwards, ACL: tier.acl,
		LoadBalancersListed: isolated || tier.api == rules.VPCAPILoadBalancer && layout.IPAddressID != ""}
	view.Rules = append(view.Rules, tier.lbs...)
	view.Rules = append(view.Rules, firewallRules(firewalls)...)
	for _, pf := range networkForwards {
		if layout.IPAddressID != "" && pf.IPAddressID == layout.IPAddressID {
			view.Rules = append(view.Rules, pf)
		}
	}
	for _, lb := range lbs {
		view.Rules = append(view.Rules, clusterview.LoadBalancerRule(lb))
	}
	if start, ok := rules.DetectEtcdStartPort(layout, view.Rules); ok {
		view.Layout.EtcdStartPort = start
	}
	if hasPortlessTCPRule(view.Rules) {
		m.call(cmdCapabilities)
		version, err := c.API.CloudStackVersion(ctx)
		view.Server.PortlessRuleBreaksScale = err != nil || clusterview.PortlessRuleBreaksScale(version)
	}
	return rulesResult{view: view}, nil
}

func hasPortlessTCPRule(rs []rules.Rule) bool {
	for _, r := range rs {
		if r.Kind == rules.KindFirewall && r.StartPort <= 0 && strings.EqualFold(strings.TrimSpace(r.Protocol), rules.ProtocolTCP) {
			return true
		}
	}
	return false
}

func (c *Checker) ipLoadBalancers(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) ([]cloudstack.LoadBalancerRule, error) {
	if bulk != nil {
		if err := bulk.load(c, m); err != nil {
			return nil, err
		}
		return bulk.lbByIP[cl.IPAddressID], nil
	}
	m.call(cmdListLB)
	return c.API.ListLoadBalancerRules(ctx, cloudstack.ListRulesParams{IPAddressID: cl.IPAddressID, ProjectID: cl.ProjectID})
}

func (c *Checker) networkForwards(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) ([]cloudstack.PortForwardingRule, error) {
	if bulk != nil {
		if err := bulk.load(c, m); err != nil {
			return nil, err
		}
		return bulk.forwardsByNetwork[cl.NetworkID], nil
	}
	m.call(cmdListForwards)
	return c.API.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{NetworkID: cl.NetworkID, ProjectID: cl.ProjectID})
}

func (c *Checker) ipFirewall(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) ([]cloudstack.FirewallRule, error) {
	if bulk != nil {
		if err := bulk.load(c, m); err != nil {
			return nil, err
		}
		return bulk.firewallByIP[cl.IPAddressID], nil
	}
	m.call(cmdListFirewall)
	return c.API.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: cl.IPAddressID, ProjectID: cl.ProjectID})
}

func findNetwork(list []cloudstack.Network, id string) *cloudstack.Network {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// vpcAddressID finds the id of the cluster's VPC public IP from the
// forwards that use its address; "" when none does (all forwards gone).
func vpcAddressID(forwards []cloudstack.PortForwardingRule, address string) string {
	if address == "" {
		return ""
	}
	for _, pf := range forwards {
		if pf.IPAddress == address && pf.IPAddressID != "" {
			return pf.IPAddressID
		}
	}
	return ""
}
