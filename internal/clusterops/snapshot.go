package clusterops

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Snapshot is a cluster as read at one moment, with the rules on its
// public IP and the port forwards of its network.
type Snapshot struct {
	Cluster cloudstack.Cluster
	// Layout is the network kind, the VM map with roles and the etcd SSH
	// start port read from the etcd forwards, which decide the rules CKS
	// owns. Layout.Network is NetworkDirect on Shared and Routed networks,
	// and on an isolated network without a public IP.
	Layout rules.Layout
	// PublicIP is the address CKS keeps its rules on (the source NAT IP,
	// or the cluster's VPC IP); empty on direct networks.
	PublicIP   string
	PublicIPID string
	// Rules are the rules on PublicIPID, as clusterview.ReadRules reads
	// them.
	Rules []rules.Rule
	// NetworkForwards are the port forwards of the whole network, which
	// both the scale's SSH rule selector and its forward cleanup look at.
	NetworkForwards []rules.Rule
	// Classification compares Rules with what the provider keeps for Layout.
	Classification rules.Classification
	// Sync is what it takes to reach the provider's layout.
	Sync rules.Plan
	// ACL is a VPC tier's network ACL list with its items, nil elsewhere or
	// when the tier names none; TierName and VPCID are the tier's.
	ACL      *rules.TierACL
	TierName string
	VPCID    string
	// ACLClassification compares ACL with the items CKS keeps there; its
	// missing items are created with Sync.
	ACLClassification rules.ACLClassification
}

// Nodes returns the VM map with roles and SSH ports.
func (s *Snapshot) Nodes() []Node {
	return NodesOf(&s.Cluster, s.Layout.Network, s.Layout.EtcdStartPort)
}

// NodesAfterSync returns the nodes as a refresh will read them once the
// sync plan has run: each node's SSH port is the one of the forward the
// plan creates for it, else its forward's, else the one CKS gives.
func (s *Snapshot) NodesAfterSync() []Node {
	ports := map[string]int{}
	for _, n := range s.Layout.Nodes {
		if p, ok := s.Classification.ForwardPort(n.ID); ok {
			ports[n.ID] = p
		}
	}
	for _, a := range s.Sync.Actions() {
		if a.Op == rules.OpCreate && (a.Purpose == rules.PurposeNodeSSHForward || a.Purpose == rules.PurposeEtcdForward) {
			ports[a.Rule.VMID] = a.Rule.StartPort
		}
	}
	return nodesWithPorts(&s.Cluster, s.Layout.Network, s.Layout.EtcdStartPort, ports)
}

// Direct reports whether the cluster's network carries no CKS rules.
func (s *Snapshot) Direct() bool { return s.Layout.Network == rules.NetworkDirect }

// InSync reports whether the SSH rules, as read, are the provider's
// layout: nothing to change, and nothing a user rule keeps from being
// created.
func (s *Snapshot) InSync() bool {
	return s.Direct() || (s.Sync.Empty() && len(s.Sync.Blocked) == 0 && s.ACLClassification.InSync())
}

// OnlyBlocked reports whether the only difference from the provider's
// layout is rules a user rule keeps from being created: no apply can change
// that until the user's rule changes.
func (s *Snapshot) OnlyBlocked() bool {
	return !s.Direct() && s.Sync.Empty() && len(s.Sync.Blocked) > 0 && s.ACLClassification.InSync()
}

// Snapshot reads the cluster, the firewall rules on its public IP and the
// port forwards of its network (CKS's are on the IP; the scale's selector
// and cleanup look at the whole network), and classifies them against the
// provider's layout for in.
func (e *Engine) Snapshot(ctx context.Context, clusterID string, in Intent) (*Snapshot, error) {
	c, err := e.api.GetKubernetesCluster(ctx, clusterID)
	if err != nil {
		return nil, fmt.Errorf("reading Kubernetes cluster %s: %w", clusterID, err)
	}
	return e.snapshotOf(ctx, c, in)
}

// snapshotOf reads the rules of an already read cluster.
func (e *Engine) snapshotOf(ctx context.Context, c *cloudstack.Cluster, in Intent) (*Snapshot, error) {
	kind, ipID, ip, err := e.locateRules(ctx, c, in.Network)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Cluster: *c, Layout: clusterview.Layout(c, kind, e.opts.EtcdSSHStartPort), PublicIP: ip, PublicIPID: ipID}
	s.Layout.IPAddressID = ipID
	s.Layout.SourceCIDRs = in.SourceCIDRs
	if kind == rules.NetworkDirect {
		s.Classification = rules.Classify(s.Layout, nil)
		return s, nil
	}
	if kind == rules.NetworkVPC {
		if err := e.readTier(ctx, s); err != nil {
			return nil, err
		}
	}
	if err := e.readRules(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// readRules (re)lists the rules of the snapshot's IP and network and
// recomputes the classification and the sync plan: two calls, made at
// once (neither depends on the other).
func (e *Engine) readRules(ctx context.Context, s *Snapshot) error {
	var rec clusterview.RuleRecords
	var fwErr error
	var wg sync.WaitGroup
	if s.Layout.Network == rules.NetworkIsolated {
		wg.Go(func() {
			rec.Firewalls, fwErr = e.api.ListFirewallRules(ctx, cloudstack.ListRulesParams{IPAddressID: s.PublicIPID, ProjectID: s.projectID(), ListAll: true})
		})
	}
	forwards, err := e.api.ListPortForwardingRules(ctx, cloudstack.ListRulesParams{NetworkID: s.Cluster.NetworkID,
		ProjectID: s.projectID(), ListAll: true})
	wg.Wait()
	if fwErr != nil {
		return fmt.Errorf("listing the firewall rules of IP %s: %w", s.PublicIP, fwErr)
	}
	if err != nil {
		return fmt.Errorf("listing the port forwards of network %s: %w", s.Cluster.NetworkID, err)
	}
	rec.Forwards = forwards
	if rec.LoadBalancers, err = e.vpcLoadBalancers(ctx, s); err != nil {
		return err
	}
	read := clusterview.ReadRules(s.Layout, rec)
	s.Layout, s.Rules, s.NetworkForwards = read.Layout, read.OnIP, read.NetworkForwards
	s.Classification = rules.Classify(s.Layout, s.Rules)
	s.Sync = rules.PlanSync(s.Layout, s.Classification)
	s.classifyACL()
	return nil
}

// vpcLoadBalancers lists the load balancer rules of a VPC tier cluster's IP
// when CKS balances its API there (a conserve-mode offering), so that the
// api-lb it requires is seen.
func (e *Engine) vpcLoadBalancers(ctx context.Context, s *Snapshot) ([]cloudstack.LoadBalancerRule, error) {
	if s.Layout.Network != rules.NetworkVPC || s.Layout.VPCAPI != rules.VPCAPILoadBalancer {
		return nil, nil
	}
	lbs, err := e.api.ListLoadBalancerRules(ctx, cloudstack.ListRulesParams{IPAddressID: s.PublicIPID, ProjectID: s.projectID(), ListAll: true})
	if err != nil {
		return nil, fmt.Errorf("listing the load balancer rules of IP %s: %w", s.PublicIP, err)
	}
	return lbs, nil
}

// projectID is the project owning the cluster, "" for an account's: a
// project's rules, addresses and networks are listed only with projectid.
func (s *Snapshot) projectID() string { return s.Cluster.ProjectID }

// rulesOnIP lists the firewall rules and forwards of one IP of the project
// (or, with projectID "", of the accounts).
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
	return append(clusterview.FirewallRules(fws), clusterview.ForwardRules(pfs)...), nil
}

// locateRules finds the network kind and the public IP CKS keeps the
// cluster's rules on, as
// KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort does.
func (e *Engine) locateRules(ctx context.Context, c *cloudstack.Cluster, known rules.NetworkKind) (kind rules.NetworkKind, ipID, ip string, err error) {
	if c.NetworkID == "" || known == rules.NetworkDirect {
		return rules.NetworkDirect, "", "", nil
	}
	if known == rules.NetworkIsolated && c.IPAddressID != "" {
		return rules.NetworkIsolated, c.IPAddressID, c.IPAddress, nil
	}
	if known == "" {
		if known, err = NetworkKindOf(ctx, e.api, c); err != nil {
			return "", "", "", err
		}
	}
	switch known {
	case rules.NetworkVPC:
		ipID, ip, err = e.vpcClusterIP(ctx, c)
		if err != nil || ipID == "" {
			return rules.NetworkDirect, "", "", err
		}
		return rules.NetworkVPC, ipID, ip, nil
	case rules.NetworkIsolated:
		if c.IPAddressID != "" {
			return rules.NetworkIsolated, c.IPAddressID, c.IPAddress, nil
		}
		sourceNat := true
		ips, err := e.api.ListPublicIPAddresses(ctx, cloudstack.ListPublicIPParams{
			AssociatedNetworkID: c.NetworkID, IsSourceNat: &sourceNat, ProjectID: c.ProjectID, ListAll: true})
		if err != nil {
			return "", "", "", fmt.Errorf("listing the source NAT IP of network %s: %w", c.NetworkID, err)
		}
		if id, address, ok := clusterview.SourceNATAddress(ips); ok {
			return rules.NetworkIsolated, id, address, nil
		}
	}
	return rules.NetworkDirect, "", "", nil
}

// vpcClusterIP finds the cluster's own VPC IP, the host of its endpoint
// (listKubernetesClusters leaves ipaddress empty on VPC tiers).
func (e *Engine) vpcClusterIP(ctx context.Context, c *cloudstack.Cluster) (id, ip string, err error) {
	if c.IPAddressID != "" {
		return c.IPAddressID, c.IPAddress, nil
	}
	host := clusterview.EndpointHost(c)
	if host == "" {
		return "", "", nil
	}
	ips, err := e.api.ListPublicIPAddresses(ctx, cloudstack.ListPublicIPParams{IPAddress: host, ProjectID: c.ProjectID, ListAll: true})
	if err != nil {
		return "", "", fmt.Errorf("looking up the VPC IP %s of cluster %s: %w", host, c.Name, err)
	}
	if id, ok := clusterview.AddressID(ips, host); ok {
		return id, host, nil
	}
	return "", "", nil
}
