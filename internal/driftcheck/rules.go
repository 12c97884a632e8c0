package driftcheck

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// rulesResult is the rules view of a cluster, or why it was not built.
type rulesResult struct {
	view *drift.RulesView
	// note says why the rules were not compared, when they should have been.
	note string
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
}

// load lists both kinds of rules, concurrently, on first use.
func (b *bulkRules) load(c *Checker, m *meter) error {
	b.once.Do(func() {
		ctx := b.ctx
		var wg sync.WaitGroup
		var fws []cloudstack.FirewallRule
		var pfs []cloudstack.PortForwardingRule
		var fwErr, pfErr error
		filter := cloudstack.ListRulesParams{ProjectID: b.projectID, ListAll: true}
		wg.Go(func() {
			m.call(cmdListFirewall)
			fws, fwErr = c.API.ListFirewallRules(ctx, filter)
		})
		wg.Go(func() {
			m.call(cmdListForwards)
			pfs, pfErr = c.API.ListPortForwardingRules(ctx, filter)
		})
		wg.Wait()
		if b.err = errors.Join(fwErr, pfErr); b.err != nil {
			return
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
func (c *Checker) rulesView(ctx context.Context, m *meter, cl *cloudstack.Cluster, bulk *bulkRules) (rulesResult, error) {
	if cl.NetworkID == "" {
		return rulesResult{note: "the cluster reports no network"}, nil
	}
	var (
		wg        sync.WaitGroup
		firewalls []cloudstack.FirewallRule
		forwards  []cloudstack.PortForwardingRule
		networks  []cloudstack.Network
		fwErr     error
		pfErr     error
		netErr    error
	)
	isolated := cl.IPAddressID != ""
	wg.Go(func() { forwards, pfErr = c.networkForwards(ctx, m, cl, bulk) })
	if isolated {
		wg.Go(func() { firewalls, fwErr = c.ipFirewall(ctx, m, cl, bulk) })
	} else {
		wg.Go(func() {
			m.call(cmdListNetworks)
			networks, netErr = c.API.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: cl.NetworkID, ProjectID: cl.ProjectID})
		})
	}
	wg.Wait()
	if err := cmp.Or(fwErr, pfErr, netErr); err != nil {
		return rulesResult{}, err
	}

	layout := rules.Layout{Network: rules.NetworkIsolated, Nodes: layoutNodes(cl), EtcdStartPort: c.EtcdSSHStartPort,
		IPAddressID: cl.IPAddressID, NetworkID: cl.NetworkID}
	if !isolated {
		net := findNetwork(networks, cl.NetworkID)
		switch {
		case net == nil:
			return rulesResult{note: "network " + cl.NetworkID + " is not visible to these credentials"}, nil
		case net.VPCID == "":
			// Shared and routed networks: CKS keeps no rules there.
			return rulesResult{}, nil
		}
		layout.Network = rules.NetworkVPC
		layout.IPAddressID = vpcAddressID(forwards, endpointHost(cl.Endpoint))
	}

	networkForwards := forwardRules(forwards)
	view := &drift.RulesView{Layout: layout, NetworkForwards: networkForwards}
	view.Rules = append(view.Rules, firewallRules(firewalls)...)
	for _, pf := range networkForwards {
		if layout.IPAddressID != "" && pf.IPAddressID == layout.IPAddressID {
			view.Rules = append(view.Rules, pf)
		}
	}
	return rulesResult{view: view}, nil
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
