package clusterops

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Snapshot is a cluster as read at one moment, with every rule on its
// public IP and the port forwards of its network.
type Snapshot struct {
	Cluster cloudstack.Cluster
	// Layout is the network kind and the VM map with roles, which decide
	// the rules CKS owns. Layout.Network is NetworkDirect on Shared and
	// Routed networks, and on an isolated network without a public IP.
	Layout rules.Layout
	// PublicIP is the address CKS keeps its rules on (the source NAT IP,
	// or the cluster's VPC IP); empty on direct networks.
	PublicIP   string
	PublicIPID string
	// Rules are the firewall rules, then the port forwards, then the load
	// balancer rules on PublicIPID, each kind in CloudStack's list order
	// (ascending id).
	Rules []rules.Rule
	// NetworkForwards are the port forwards of the whole network, which
	// both removeSshFirewallRule's predicate and the server's forward
	// cleanup look at.
	NetworkForwards []rules.Rule
	// Classification compares Rules with what CKS owns for Layout.
	Classification rules.Classification
	// Hazards are what the next scale would get wrong (isolated only).
	Hazards []rules.Hazard
}

// Nodes returns the VM map with roles and SSH ports.
func (s *Snapshot) Nodes() []Node {
	return NodesOf(&s.Cluster, s.Layout.Network, s.Layout.EtcdStartPort)
}

// Direct reports whether the cluster's network carries no CKS rules.
func (s *Snapshot) Direct() bool { return s.Layout.Network == rules.NetworkDirect }

// NodeSSHRange returns the CKS node SSH firewall range, if there is one.
func (s *Snapshot) NodeSSHRange() (rules.Rule, bool) {
	for _, cr := range s.Classification.Rules {
		if cr.Purpose == rules.PurposeNodeSSHRange {
			return cr.Rule, true
		}
	}
	return rules.Rule{}, false
}

// Snapshot reads the cluster plus every firewall, PF and LB rule on its public IP, and the network's PFs
// (needed by the bug's predicate and range cleanup), and builds the rules.Layout (isolated / VPC / direct)
// from the VM map (roles from isetcdnode + naming).
func (e *Engine) Snapshot(ctx context.Context, clusterID string) (*Snapshot, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	return e.snapshotOf(ctx, c)
}

// snapshotOf reads the rules of an already read cluster. It makes no
// listKubernetesClusters call, which matters between a start and the scale
// that follows it (see Recover).
func (e *Engine) snapshotOf(ctx context.Context, c *cloudstack.Cluster) (*Snapshot, error) {
	kind, ipID, ip, err := e.locateRules(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Cluster: *c, Layout: layoutFor(c, kind, e.opts.EtcdSSHStartPort), PublicIP: ip, PublicIPID: ipID}
	s.Layout.IPAddressID = ipID
	if kind == rules.NetworkDirect {
		s.Classification = rules.Classify(s.Layout, nil)
		return s, nil
	}
	if err := e.readRules(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// readRules (re)lists the rules of the snapshot's IP and network and
// recomputes the classification and hazards.
func (e *Engine) readRules(ctx context.Context, s *Snapshot) error {
	onIP, err := e.rulesOnIP(ctx, s.projectID(), s.PublicIPID)
	if err != nil {
		return err
	}
	pfs, err := e.api.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{NetworkID: s.Cluster.NetworkID,
		ProjectID: s.projectID(), ListAll: true})
	if err != nil {
		return fmt.Errorf("listing the port forwards of network %s: %w", s.Cluster.NetworkID, err)
	}
	s.Rules = onIP
	s.NetworkForwards = nil
	for _, pf := range pfs {
		if active(pf.State) {
			s.NetworkForwards = append(s.NetworkForwards, forwardRule(pf))
		}
	}
	s.Classification = rules.Classify(s.Layout, s.Rules)
	s.Hazards = rules.Hazards(s.Layout, s.Rules, s.NetworkForwards)
	return nil
}

// projectID is the project owning the cluster, "" for an account's: a
// project's rules, addresses and networks are listed only with projectid.
func (s *Snapshot) projectID() string { return s.Cluster.ProjectID }

// rulesOnIP lists the firewall rules, forwards and LB rules of one IP of
// the project (or, with projectID "", of the accounts).
func (e *Engine) rulesOnIP(ctx context.Context, projectID, ipID string) ([]rules.Rule, error) {
	filter := cloudstack.ListRulesParams{IPAddressID: ipID, ProjectID: projectID, ListAll: true}
	fws, err := e.api.ListFirewallRules(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("listing the firewall rules of IP %s: %w", ipID, err)
	}
	pfs, err := e.api.ListPortForwardingRules(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("listing the port forwards of IP %s: %w", ipID, err)
	}
	lbs, err := e.api.ListLoadBalancerRules(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("listing the load balancer rules of IP %s: %w", ipID, err)
	}
	out := make([]rules.Rule, 0, len(fws)+len(pfs)+len(lbs))
	for _, fw := range fws {
		if active(fw.State) {
			out = append(out, firewallRule(fw))
		}
	}
	for _, pf := range pfs {
		if active(pf.State) {
			out = append(out, forwardRule(pf))
		}
	}
	for _, lb := range lbs {
		if active(lb.State) {
			out = append(out, loadBalancerRule(lb))
		}
	}
	return out, nil
}

// locateRules finds the network kind and the public IP CKS keeps the
// cluster's rules on (spec §2.2, §6).
func (e *Engine) locateRules(ctx context.Context, c *cloudstack.Cluster) (kind rules.NetworkKind, ipID, ip string, err error) {
	if c.NetworkID == "" {
		return rules.NetworkDirect, "", "", nil
	}
	nets, err := e.api.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: c.NetworkID, ProjectID: c.ProjectID})
	if err != nil && !cloudstack.IsNotFound(err) {
		return "", "", "", fmt.Errorf("reading network %s of cluster %s: %w", c.NetworkID, c.Name, err)
	}
	var n *cloudstack.Network
	for i := range nets {
		if nets[i].ID == c.NetworkID {
			n = &nets[i]
		}
	}
	switch {
	case n != nil && strings.EqualFold(n.Type, "Shared"):
		return rules.NetworkDirect, "", "", nil
	case n != nil && n.VPCID != "":
		ipID, ip, err = e.vpcClusterIP(ctx, c, n.VPCID)
		if err != nil || ipID == "" {
			return rules.NetworkDirect, "", "", err
		}
		return rules.NetworkVPC, ipID, ip, nil
	}
	if c.IPAddressID != "" {
		return rules.NetworkIsolated, c.IPAddressID, c.IPAddress, nil
	}
	sourceNat := true
	ips, err := e.api.ListPublicIPAddresses(ctx, cloudstack.ListPublicIPParams{
		AssociatedNetworkID: c.NetworkID, IsSourceNat: &sourceNat, ProjectID: c.ProjectID, ListAll: true})
	if err != nil {
		return "", "", "", fmt.Errorf("listing the source NAT IP of network %s: %w", c.NetworkID, err)
	}
	for _, p := range ips {
		if p.IsSourceNat {
			return rules.NetworkIsolated, p.ID, p.IPAddress, nil
		}
	}
	// An isolated network without a source NAT IP is routed: no CKS rules.
	return rules.NetworkDirect, "", "", nil
}

// vpcClusterIP finds the cluster's own VPC IP, the host of its endpoint
// (listKubernetesClusters leaves ipaddress empty on VPC tiers).
func (e *Engine) vpcClusterIP(ctx context.Context, c *cloudstack.Cluster, vpcID string) (id, ip string, err error) {
	if c.IPAddressID != "" {
		return c.IPAddressID, c.IPAddress, nil
	}
	host := endpointHost(c.Endpoint)
	if host == "" {
		return "", "", nil
	}
	ips, err := e.api.ListPublicIPAddresses(ctx, cloudstack.ListPublicIPParams{IPAddress: host, VPCID: vpcID,
		ProjectID: c.ProjectID, ListAll: true})
	if err != nil {
		return "", "", fmt.Errorf("looking up the VPC IP %s of cluster %s: %w", host, c.Name, err)
	}
	for _, p := range ips {
		if p.IPAddress == host {
			return p.ID, p.IPAddress, nil
		}
	}
	return "", "", nil
}

// endpointHost returns the host of https://<ip>:6443/.
func endpointHost(endpoint string) string {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || u.Host == "" {
		return ""
	}
	host, _, err := net.SplitHostPort(u.Host)
	if err != nil {
		return u.Host
	}
	return host
}

// active reports whether a listed rule is in force or about to be.
func active(state string) bool {
	switch strings.ToLower(state) {
	case "revoke", "deleting":
		return false
	}
	return true
}

func firewallRule(fw cloudstack.FirewallRule) rules.Rule {
	return rules.Rule{ID: fw.ID, Kind: rules.KindFirewall, Protocol: fw.Protocol, StartPort: fw.StartPort,
		EndPort: fw.EndPort, CIDRs: fw.CIDRList, IPAddressID: fw.IPAddressID, NetworkID: fw.NetworkID}
}

func forwardRule(pf cloudstack.PortForwardingRule) rules.Rule {
	return rules.Rule{ID: pf.ID, Kind: rules.KindPortForward, Protocol: pf.Protocol, StartPort: pf.PublicPort,
		EndPort: pf.PublicEndPort, PrivatePort: pf.PrivatePort, PrivateEndPort: pf.PrivateEndPort,
		VMID: pf.VirtualMachineID, CIDRs: pf.CIDRList, IPAddressID: pf.IPAddressID, NetworkID: pf.NetworkID}
}

func loadBalancerRule(lb cloudstack.LoadBalancerRule) rules.Rule {
	return rules.Rule{ID: lb.ID, Kind: rules.KindLoadBalancer, Protocol: lb.Protocol, StartPort: lb.PublicPort,
		EndPort: lb.PublicPort, PrivatePort: lb.PrivatePort, PrivateEndPort: lb.PrivatePort,
		IPAddressID: lb.PublicIPID, NetworkID: lb.NetworkID}
}
