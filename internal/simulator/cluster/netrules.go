package cluster

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// CKS network rule choreography of KubernetesClusterResourceModifierActionWorker,
// KubernetesClusterStartWorker, KubernetesClusterScaleWorker and
// KubernetesClusterDestroyWorker. Callers hold the lock.

const (
	// ClusterAPIPort is the Kubernetes API's port
	// (KubernetesClusterActionWorker.CLUSTER_API_PORT).
	ClusterAPIPort = 6443

	// NodesStartSSHPort is the first public port of the nodes' SSH
	// forwards (KubernetesClusterActionWorker.CLUSTER_NODES_DEFAULT_START_SSH_PORT).
	NodesStartSSHPort   = 2222
	etcdNodesStartPort  = 50000
	apiLBName           = "api-lb"
	apiLBDescription    = "LB rule for API access"
	errSSHFirewallRule  = "Firewall rule for node SSH access can't be provisioned"
	errNodeSSHFirewalls = "Failed to provision firewall rules for SSH access for the Kubernetes cluster : %s"
)

// clusterIP is the address CKS uses for SSH and the API: the cluster's own
// VPC IP (detail publicipid) or the network's source NAT IP.
func (s *Workers) clusterIP(c *model.Cluster) *model.PublicIP {
	if c.PublicIPID != "" {
		if p := s.DB.IP(c.PublicIPID); p != nil && !p.Released {
			return p
		}
		return nil
	}
	return s.DB.SourceNatIP(c.NetworkID)
}

// nodeLists splits the cluster's existing mapped VMs, in map order, into the
// node VMs ([controls..., workers...] as they sit in the map), externals and
// etcd VMs.
func (s *Workers) nodeLists(c *model.Cluster) (nodes, externals, etcd []*model.VM) {
	vms, rows := s.DB.ClusterVMs(c)
	for i, v := range vms {
		switch {
		case rows[i].Etcd:
			etcd = append(etcd, v)
		case rows[i].External:
			externals = append(externals, v)
		default:
			nodes = append(nodes, v)
		}
	}
	return nodes, externals, etcd
}

// addFirewallRulesForNodes creates the node SSH range 2222..end, with end
// computed from the VM map as 2222 + mapSize - X - E - 1, then one single
// port rule per external node.
func (s *Workers) addFirewallRulesForNodes(c *model.Cluster, ip *model.PublicIP, n *model.Network) error {
	var externalCount, etcdCount int
	rows := s.DB.MapRows(c.ID)
	for _, r := range rows {
		if r.External {
			externalCount++
		}
		if r.Etcd {
			etcdCount++
		}
	}
	endPort := NodesStartSSHPort + len(rows) - externalCount - etcdCount - 1
	if err := s.ProvisionFirewallRule(ip, n.ID, NodesStartSSHPort, endPort); err != nil {
		s.Logf("%s; caused by: %s", fmt.Sprintf(errNodeSSHFirewalls, c.Name), err.Text)
		return wire.ServerErr(errNodeSSHFirewalls, c.Name)
	}
	for i := range externalCount {
		port := endPort + 1 + i
		if err := s.ProvisionFirewallRule(ip, n.ID, port, port); err != nil {
			// Thrown inside the forEach lambda as a CloudRuntimeException,
			// which neither addFirewallRulesForNodes nor the scale worker
			// catches: no state transition.
			s.Logf("%s; caused by: %s", fmt.Sprintf(errNodeSSHFirewalls, c.Name), err.Text)
			return &wire.JavaException{Class: "com.cloud.utils.exception.CloudRuntimeException", Msg: fmt.Sprintf(errNodeSSHFirewalls, c.Name)}
		}
	}
	return nil
}

// scaleUpSSHOrder is the VM order scaleUpKubernetesClusterSize passes to the
// rule rebuild: the control and worker VMs in map order, then the external
// ones; each gets the forward 2222+i in that order.
func (s *Workers) scaleUpSSHOrder(c *model.Cluster) []*model.VM {
	nodes, externals, _ := s.nodeLists(c)
	return append(nodes, externals...)
}

// mapSSHOrder is the VM order removeNodesFromCluster (a scale-down) passes:
// every VM of the map but the etcd ones, in map order, external nodes
// where they stand. The first C+W of them get the forwards of the node
// range, the rest the ports after it.
func (s *Workers) mapSSHOrder(c *model.Cluster) []*model.VM {
	vms, rows := s.DB.ClusterVMs(c)
	var out []*model.VM
	for i, v := range vms {
		if !rows[i].Etcd {
			out = append(out, v)
		}
	}
	return out
}

// provisionSSHPortForwards creates PF 2222+i -> 22 for each VM, in order.
func (s *Workers) provisionSSHPortForwards(ip *model.PublicIP, n *model.Network, vms []*model.VM) {
	for i, v := range vms {
		s.ProvisionPortForward(ip, n.ID, NodesStartSSHPort+i, network.DefaultSSHPort, v)
	}
}

// setupClusterNetworkRules is setupKubernetesClusterNetworkRules at
// creation: isolated (firewall range, 6443 firewall, PFs, api-lb) or VPC
// tier (ACL items for 6443 and 22, API access and PFs).
func (s *Workers) setupClusterNetworkRules(c *model.Cluster, n *model.Network, ip *model.PublicIP) error {
	nodes, externals, _ := s.nodeLists(c)
	controls := nodes[:min(int(c.ControlNodes), len(nodes))]
	if network.IsVPCTier(n) {
		if err := s.createVpcTierACLRules(c, n); err != nil {
			return err
		}
		if err := s.setupVPCAPIAccess(n, ip, controls); err != nil {
			return err
		}
		s.provisionSSHPortForwards(ip, n, append(nodes, externals...))
		return nil
	}
	if err := s.addFirewallRulesForNodes(c, ip, n); err != nil {
		return err
	}
	if err := s.ProvisionFirewallRule(ip, n.ID, ClusterAPIPort, ClusterAPIPort); err != nil {
		return errors.New(err.Text)
	}
	s.provisionSSHPortForwards(ip, n, append(nodes, externals...))
	if err := s.ProvisionLoadBalancer(ip, n.ID, apiLBName, apiLBDescription, ClusterAPIPort, controls); err != nil {
		return errors.New(err.Text)
	}
	return nil
}

// setupVPCAPIAccess gives a VPC cluster API access: an api-lb over the
// control nodes when the tier's offering is in conserve mode, else PF 6443
// to the first control VM.
func (s *Workers) setupVPCAPIAccess(n *model.Network, ip *model.PublicIP, controls []*model.VM) error {
	if len(controls) == 0 {
		return wire.ServerErr("no control node VM to provision API access to")
	}
	if off := s.DB.NetOffering(n.OfferingID); off != nil && off.ConserveMode {
		if err := s.ProvisionLoadBalancer(ip, n.ID, apiLBName, apiLBDescription, ClusterAPIPort, controls); err != nil {
			return errors.New(err.Text)
		}
		return nil
	}
	s.ProvisionPortForward(ip, n.ID, ClusterAPIPort, ClusterAPIPort, controls[0])
	return nil
}

// setupEtcdNetworkRules gives etcd VM j a firewall rule 50000+j on an
// isolated network, or on a VPC tier whose list is not default_allow an ACL
// item for TCP 2379 moved to the top (one per etcd VM, all alike), then PF
// 50000+j -> 22.
func (s *Workers) setupEtcdNetworkRules(c *model.Cluster, n *model.Network, ip *model.PublicIP) error {
	_, _, etcd := s.nodeLists(c)
	for j, v := range etcd {
		port := etcdNodesStartPort + j
		switch {
		case !network.IsVPCTier(n):
			if err := s.ProvisionFirewallRule(ip, n.ID, port, port); err != nil {
				return errors.New(err.Text)
			}
		case !s.tierACLIsDefaultAllow(n):
			if err := s.provisionVpcTierAllowPortACLRule(n, etcdClientPort); err != nil {
				s.Logf("ACL item %d of %s: %s", etcdClientPort, c.Name, err.Text)
				return wire.ServerErr("Failed to provision ACL rules for etcd client access for the Kubernetes cluster : %s", c.Name)
			}
		}
		s.ProvisionPortForward(ip, n.ID, port, network.DefaultSSHPort, v)
	}
	return nil
}

// errPortlessRuleNPE is the NullPointerException of removeSshFirewallRule
// before #12806: the Integer ports of a TCP firewall rule without ports are
// unboxed into portForwardingRulesDao.findByNetworkAndPorts(long, int, int).
var errPortlessRuleNPE = &wire.JavaException{Msg: `Cannot invoke "java.lang.Integer.intValue()" because the return value of "com.cloud.network.rules.FirewallRuleVO.getSourcePortStart()" is null`}

// removeSshFirewallRule is KubernetesClusterResourceModifierActionWorker.
// removeSshFirewallRule: it revokes ONE firewall rule for node SSH access
// and returns it. It reads the IP's not-revoked TCP firewall rules
// (firewallRulesDao.listByIpPurposeProtocolAndNotRevoked, no ORDER BY: in
// practice ascending id, the reverse of what listFirewallRules shows) and
// picks the first that starts at 2222 or whose twin port forward (same
// public ports, anywhere in the network) goes to port 22, which lets an etcd
// rule win once the node range was re-created with a higher id (#14159).
// Rules without ports are skipped (#12806); before that fix (profile
// 4.22.0.0) reaching one throws a NullPointerException. PR #14165 (profile
// pr14165) first looks for the rule starting at 2222.
func (s *Workers) removeSshFirewallRule(ip *model.PublicIP, n *model.Network) (*model.Rule, error) {
	fws := s.tcpFirewallRules(ip)
	var pick *model.Rule
	if s.Profile.PreferNodeSSHRule {
		pick = nodeRangeFirewallRule(fws)
	}
	if pick == nil {
		var err error
		if pick, err = s.firstSSHFirewallRule(fws, n); err != nil {
			return nil, err
		}
	}
	if pick != nil {
		s.Logf("The SSH firewall rule %s with the id %d was revoked", javaString(pick.Name), pick.InternalID)
		s.RevokeRule(pick)
	}
	return pick, nil
}

// tcpFirewallRules are the not-revoked TCP firewall rules of the IP in the
// order the workers read them:
// firewallRulesDao.listByIpPurposeProtocolAndNotRevoked(ip, Firewall, TCP),
// hidden (fordisplay=false) rules included.
func (s *Workers) tcpFirewallRules(ip *model.PublicIP) []*model.Rule {
	var fws []*model.Rule
	for _, r := range s.RulesOnIP(ip.ID, model.PurposeFirewall) {
		if r.Protocol == "tcp" {
			fws = append(fws, r)
		}
	}
	return s.WorkerOrder(fws)
}

// nodeRangeFirewallRule is PR #14165's first look: the rule starting at
// 2222.
func nodeRangeFirewallRule(fws []*model.Rule) *model.Rule {
	for _, fw := range fws {
		if fw.HasPorts && fw.Start == NodesStartSSHPort {
			return fw
		}
	}
	return nil
}

// firstSSHFirewallRule is the pick of 4.22 (the fallback under pr14165):
// the first rule that starts at 2222 or has a twin PF to port 22. A rule
// without ports is skipped (#12806), or throws before that fix
// (portlessRuleNPE).
func (s *Workers) firstSSHFirewallRule(fws []*model.Rule, n *model.Network) (*model.Rule, error) {
	for _, fw := range fws {
		if !fw.HasPorts {
			if s.Profile.PortlessRuleNPE {
				return nil, errPortlessRuleNPE
			}
			continue
		}
		// The twin is looked up even for a rule at 2222: each lookup draws
		// from the seeded random source.
		pf := s.findPFByNetworkAndPorts(n.ID, fw.Start, fw.End)
		if fw.Start == NodesStartSSHPort || (pf != nil && pf.PrivateStart == network.DefaultSSHPort) {
			return fw, nil
		}
	}
	return nil, nil
}

// findPFByNetworkAndPorts is portForwardingRulesDao.findByNetworkAndPorts, a
// findOneBy with ORDER BY RAND() LIMIT 1: when several port forwards in the
// network have the same public ports, which one is returned is random
// (seeded by Options.Seed).
func (s *Workers) findPFByNetworkAndPorts(networkID string, start, end int) *model.Rule {
	var found []*model.Rule
	for _, r := range s.RulesInNetwork(networkID, model.PurposePF) {
		if r.Start == start && r.End == end {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return found[s.TwinRNG.IntN(len(found))]
}

// removePortForwardingRules revokes every PF rule in the network (any public
// IP, user rules included) whose public start port is in [start, end]
// (KubernetesClusterResourceModifierActionWorker.removePortForwardingRules).
func (s *Workers) removePortForwardingRules(n *model.Network, start, end int) {
	for _, r := range s.RulesInNetwork(n.ID, model.PurposePF) {
		if r.Start >= start && r.Start <= end {
			s.Logf("The Port forwarding rule [%s] with the id [%d] was mark as revoked.", javaString(r.Name), r.InternalID)
			s.RevokeRule(r)
		}
	}
}

// scaleNetworkRules is KubernetesClusterScaleWorker.
// scaleKubernetesClusterNetworkRules after nodes were added or removed. On
// an isolated network (scaleKubernetesClusterIsolatedNetworkRules) it
// revokes the rule removeSshFirewallRule picks, removes every PF of the
// network from 2222 to that rule's end, then creates the node range and the
// node PFs again; a VPC tier (scaleKubernetesClusterVpcTierRules) gets its
// node PFs re-created. A *wire.JavaException is an exception the worker does not
// catch.
func (s *Workers) scaleNetworkRules(c *model.Cluster, all []*model.VM) error {
	n := s.DB.Network(c.NetworkID)
	if network.IsDirectAccess(n) {
		return nil // scaleKubernetesClusterNetworkRules: no rules on a directly accessed network
	}
	ip := s.clusterIP(c)
	if n == nil || ip == nil {
		return wire.ServerErr("No source NAT IP addresses found for network : %s, Kubernetes cluster : %s", c.NetworkID, c.Name)
	}
	if network.IsVPCTier(n) {
		s.removePortForwardingRules(n, NodesStartSSHPort, NodesStartSSHPort+len(all)-1)
		s.provisionSSHPortForwards(ip, n, all)
		return nil
	}
	fw, err := s.removeSshFirewallRule(ip, n)
	if err != nil {
		return err
	}
	end := NodesStartSSHPort + len(all) - 1
	switch {
	case fw != nil:
		end = fw.End
	case s.Profile.Before4221:
		return wire.ServerErr(errSSHFirewallRule)
	default:
		s.Logf("SSH firewall rule not found for Kubernetes cluster: %s. It may have been manually deleted or modified.", c.Name)
	}
	s.removePortForwardingRules(n, NodesStartSSHPort, end)
	if err := s.addFirewallRulesForNodes(c, ip, n); err != nil {
		return err
	}
	s.provisionSSHPortForwards(ip, n, all)
	return nil
}

// ControlSSHReachable reports whether CKS can run kubectl over SSH through
// getKubernetesClusterServerIpSshPort's (cluster IP, 2222): an active PF on
// the cluster IP at 2222 to port 22 of a running control VM (only control
// nodes hold the admin kubeconfig).
func (s *Workers) ControlSSHReachable(c *model.Cluster) bool {
	if network.IsDirectAccess(s.DB.Network(c.NetworkID)) {
		return s.directControlTarget(c) != nil
	}
	ip := s.clusterIP(c)
	if ip == nil {
		return false
	}
	v := s.sshForwardTarget(ip, NodesStartSSHPort)
	return v != nil && v.Role == model.RoleControl
}

// sshForwardTarget returns the running VM an SSH connection to the IP's
// public port reaches (an active PF to port 22 that the tier's network ACL
// lets in), or nil.
func (s *Workers) sshForwardTarget(ip *model.PublicIP, port int) *model.VM {
	for _, r := range s.RulesOnIP(ip.ID, model.PurposePF) {
		if r.Start <= port && port <= r.End && r.PrivateStart == network.DefaultSSHPort && r.State == model.RuleActive && s.ForwardAllowed(r) {
			if v := s.DB.VM(r.VMID); v != nil && v.State == model.VMRunning {
				return v
			}
		}
	}
	return nil
}

// readyNodeCount is the kubectl ready count CKS compares with C+W+E (after
// adding E).
func (s *Workers) readyNodeCount(c *model.Cluster) int {
	count := 0
	for _, node := range s.DB.NodesOf(c.ID) {
		if s.NodeReady(node) {
			count++
		}
	}
	return count
}

// APIReachable reports whether KubernetesClusterUtil.
// isKubernetesClusterServerRunning would get an answer from
// https://<cluster IP>:6443/version: the cluster's API endpoint exists, on
// an isolated network an ingress firewall rule opens 6443 (on a VPC tier the
// network ACL lets 6443 in), and the api-lb load balancer (or, on a VPC tier
// without conserve mode, PF 6443) reaches a running control VM.
func (s *Workers) APIReachable(c *model.Cluster) bool {
	ip := s.clusterIP(c)
	n := s.DB.Network(c.NetworkID)
	if network.IsDirectAccess(n) {
		return s.directAPIReachable(c)
	}
	if ip == nil || n == nil || c.Endpoint == "" {
		return false
	}
	if !network.IsVPCTier(n) && !s.apiFirewallOpen(ip) || network.IsVPCTier(n) && !s.ACLAllowsIngress(n, ClusterAPIPort) {
		return false
	}
	return s.apiReachesControl(ip)
}

// apiFirewallOpen reports whether an ingress firewall rule on the IP lets
// TCP 6443 in.
func (s *Workers) apiFirewallOpen(ip *model.PublicIP) bool {
	for _, r := range s.RulesOnIP(ip.ID, model.PurposeFirewall) {
		if (r.Protocol == "tcp" || r.Protocol == "all") && (!r.HasPorts || (r.Start <= ClusterAPIPort && ClusterAPIPort <= r.End)) {
			return true
		}
	}
	return false
}

// apiReachesControl reports whether the IP's api-lb, or its PF 6443, leads
// to a running control VM.
func (s *Workers) apiReachesControl(ip *model.PublicIP) bool {
	for _, r := range s.RulesOnIP(ip.ID, "") {
		switch {
		case r.Purpose == model.PurposeLB && r.Start == ClusterAPIPort:
			if slices.ContainsFunc(r.LBMembers, s.runningControlVM) {
				return true
			}
		case r.Purpose == model.PurposePF && r.Start == ClusterAPIPort && r.PrivateStart == ClusterAPIPort && s.runningControlVM(r.VMID):
			return true
		}
	}
	return false
}

func (s *Workers) runningControlVM(vmID string) bool {
	v := s.DB.VM(vmID)
	return v != nil && v.State == model.VMRunning && v.Role == model.RoleControl
}

// javaString is how Java prints a String that may be null (empty here).
func javaString(v string) string {
	if v == "" {
		return "null"
	}
	return v
}
