package driftcheck

import (
	"cmp"
	"context"
	"errors"
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
	rec, net, err := c.ruleRecords(ctx, m, cl, bulk)
	if err != nil {
		return rulesResult{}, err
	}
	kind := clusterview.NetworkKind(cl, nil) // isolated when it has a source NAT IP
	if cl.IPAddressID == "" {
		if net == nil {
			return rulesNotChecked("network " + cl.NetworkID + " is not visible to these credentials"), nil
		}
		if kind = clusterview.NetworkKind(cl, net); kind != rules.NetworkVPC {
			// Shared and routed networks: CKS keeps no rules there; nor
			// does it on an isolated network without one source NAT IP.
			return rulesResult{}, nil
		}
	}
	layout := clusterview.Layout(cl, kind, c.EtcdSSHStartPort)
	layout.IPAddressID, layout.SSHCIDRs, layout.APICIDRs = cl.IPAddressID, opts.SSHCIDRs, opts.APICIDRs
	var acl *rules.TierACL
	if kind == rules.NetworkVPC {
		tier := clusterview.TierOf(net)
		layout.IPAddressID = clusterview.ForwardedAddressID(rec.Forwards, clusterview.EndpointHost(cl))
		layout.VPCAPI = tier.API
		if rec.LoadBalancers, acl, err = c.readVPCTier(ctx, m, cl, tier, layout.IPAddressID, bulk); err != nil {
			return rulesResult{}, err
		}
	}
	read := clusterview.ReadRules(layout, rec)
	view := &drift.RulesView{Layout: read.Layout, Rules: read.OnIP, NetworkForwards: read.NetworkForwards, ACL: acl,
		LoadBalancersListed: kind == rules.NetworkIsolated || layout.VPCAPI == rules.VPCAPILoadBalancer && layout.IPAddressID != ""}
	view.Server = clusterview.ServerFor(view.Rules, func() (string, error) {
		m.call(cmdCapabilities)
		return c.API.CloudStackVersion(ctx)
	})
	return rulesResult{view: view}, nil
}

// ruleRecords lists, concurrently, what the rules view of a cluster is
// read from: the forwards of its network and, on an isolated network (a
// source NAT IP), the firewall and load balancer rules of the IP, else the
// network, which tells a VPC tier (whose records readVPCTier lists) from a
// network without CKS rules.
func (c *Checker) ruleRecords(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules,
) (clusterview.RuleRecords, *cloudstack.Network, error) {
	var (
		wg                          sync.WaitGroup
		rec                         clusterview.RuleRecords
		networks                    []cloudstack.Network
		fwErr, pfErr, lbErr, netErr error
	)
	wg.Go(func() { rec.Forwards, pfErr = c.networkForwards(ctx, m, cl, bulk) })
	if cl.IPAddressID != "" {
		wg.Go(func() { rec.Firewalls, fwErr = c.ipFirewall(ctx, m, cl, bulk) })
		wg.Go(func() { rec.LoadBalancers, lbErr = c.loadBalancersOf(ctx, m, cl.ProjectID, cl.IPAddressID, bulk) })
	} else {
		wg.Go(func() {
			m.call(cmdListNetworks)
			networks, netErr = c.API.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: cl.NetworkID, ProjectID: cl.ProjectID})
		})
	}
	wg.Wait()
	if err := cmp.Or(fwErr, pfErr, lbErr, netErr); err != nil {
		return rec, nil, err
	}
	return rec, clusterview.FindNetwork(networks, cl.NetworkID), nil
}

// listed are a cluster's records of one kind: the fleet's shared listing's
// (pick), or one call of command of the cluster's own (list).
func listed[T any](c *Checker, m *meter, bulk *bulkRules, pick func(*bulkRules) []T, command string, list func() ([]T, error)) ([]T, error) {
	if bulk != nil {
		if err := bulk.load(c, m); err != nil {
			return nil, err
		}
		return pick(bulk), nil
	}
	m.call(command)
	return list()
}

func (c *Checker) loadBalancersOf(ctx context.Context, m *meter, projectID, ipID string, bulk *bulkRules) ([]cloudstack.LoadBalancerRule, error) {
	return listed(c, m, bulk, func(b *bulkRules) []cloudstack.LoadBalancerRule { return b.lbByIP[ipID] }, cmdListLB,
		func() ([]cloudstack.LoadBalancerRule, error) {
			return c.API.ListLoadBalancerRules(ctx, cloudstack.ListRulesParams{IPAddressID: ipID, ProjectID: projectID})
		})
}

func (c *Checker) networkForwards(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) ([]cloudstack.PortForwardingRule, error) {
	return listed(c, m, bulk, func(b *bulkRules) []cloudstack.PortForwardingRule { return b.forwardsByNetwork[cl.NetworkID] },
		cmdListForwards, func() ([]cloudstack.PortForwardingRule, error) {
			return c.API.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{NetworkID: cl.NetworkID, ProjectID: cl.ProjectID})
		})
}

func (c *Checker) ipFirewall(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) ([]cloudstack.FirewallRule, error) {
	return listed(c, m, bulk, func(b *bulkRules) []cloudstack.FirewallRule { return b.firewallByIP[cl.IPAddressID] },
		cmdListFirewall, func() ([]cloudstack.FirewallRule, error) {
			return c.API.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: cl.IPAddressID, ProjectID: cl.ProjectID})
		})
}
