package cluster

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// CKS's network ACL items on a VPC tier
// (KubernetesClusterResourceModifierActionWorker.createVpcTierAclRules,
// provisionVpcTierAllowPortACLRule, removeVpcTierAclRules,
// removeVpcTierAllowPortACLRule). Callers hold the lock.

// etcdClientPort is ETCD_NODE_CLIENT_REQUEST_PORT, which CKS opens on a VPC
// tier's list once per etcd VM.
const etcdClientPort = 2379

// CKSACLProtocol is the protocol CKS gives its ACL items, and the only one
// its destroy matches (String.equals, so "tcp" items stay).
const CKSACLProtocol = "TCP"

// tierACLIsDefaultAllow reports whether the tier uses the default_allow
// list, on which CKS creates and removes no items
// (network.getNetworkACLId() == NetworkACL.DEFAULT_ALLOW).
func (s *Workers) tierACLIsDefaultAllow(n *model.Network) bool {
	acl := s.DB.ACL(n.ACLID)
	return acl != nil && acl.InternalID == model.ACLDefaultAllowID
}

// createVpcTierACLRules is createVpcTierAclRules: unless the tier uses
// default_allow, an item for the API (6443), then one for SSH (22), each
// moved to the top of the list. A failure of either is reported as the
// API's.
func (s *Workers) createVpcTierACLRules(c *model.Cluster, n *model.Network) error {
	if s.tierACLIsDefaultAllow(n) {
		return nil
	}
	for _, port := range []int{ClusterAPIPort, network.DefaultSSHPort} {
		if err := s.provisionVpcTierAllowPortACLRule(n, port); err != nil {
			s.Logf("ACL item %d of %s: %s", port, c.Name, err.Text)
			return wire.ServerErr("Failed to provision firewall rules for API access for the Kubernetes cluster : %s", c.Name)
		}
	}
	return nil
}

// provisionVpcTierAllowPortACLRule creates, through
// NetworkACLService.createNetworkACLItem, an Allow Ingress item "TCP" for
// one port on the tier's list without a CIDR list (so 0.0.0.0/0 and ::/0),
// moves it to the top (moveRuleToTheTopInACLList) and applies the list.
func (s *Workers) provisionVpcTierAllowPortACLRule(n *model.Network, port int) *wire.APIError {
	acl := s.DB.ACL(n.ACLID)
	if acl == nil {
		return wire.InvalidParam("Unable to find specified ACL.")
	}
	it, err := s.AllowIngress(acl, CKSACLProtocol, port, "")
	if err != nil {
		return err
	}
	s.MoveACLItemToTop(it)
	s.ApplyACL(acl.ID)
	return nil
}

// removeVpcTierACLRules is removeVpcTierAclRules: unless the tier uses
// default_allow, every item of its list that is Allow, protocol exactly
// "TCP" and port exactly 6443, then 22, is revoked: whoever created it,
// whatever its CIDRs or traffic type, and whichever tier shares the list.
func (s *Workers) removeVpcTierACLRules(n *model.Network) {
	if s.tierACLIsDefaultAllow(n) || s.DB.ACL(n.ACLID) == nil {
		return
	}
	for _, port := range []int{ClusterAPIPort, network.DefaultSSHPort} {
		for _, it := range s.DB.ACLItemsOf(n.ACLID) {
			if it.Protocol == CKSACLProtocol && it.HasPorts && it.Start == port && it.End == port && it.Action == network.ACLAllow {
				s.Logf("Revoking network ACL item %s (%s %d) of list %s", it.ID, it.Protocol, port, n.ACLID)
				s.RevokeACLItem(it)
			}
		}
	}
}
