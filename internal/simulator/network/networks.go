// Package network is the simulator's area of networks and their rules:
// isolated networks, VPCs and their tiers, the Shared network, public and
// guest IP addresses on the loopback blocks, firewall, port forwarding and
// load balancer rules in the shared firewall_rules table, and network ACL
// lists and items. It stands on catalog; the CKS workers above it reach it
// through a *Networks.
package network

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/loopback"
)

// cmdPkgFirewall is the Java package of the rule commands, reported in
// queryAsyncJobResult's cmd field.
const cmdPkgFirewall = "org.apache.cloudstack.api.command.user.firewall."

// Networks is the networks and rules area of one simulator, with the
// loopback blocks its addresses come from.
type Networks struct {
	*catalog.Catalog

	block loopback.Block
	// extraBlocks are the public IP blocks beyond block (PublicIPBlocks).
	extraBlocks []loopback.Block
	// sharedBlock is the loopback /24 of the Shared network's guest range.
	sharedBlock loopback.Block
}

// New returns the area on the catalogue, with its loopback blocks
// reserved: the first public block drawn from the runtime's generator,
// then publicIPBlocks-1 more and the Shared network's, each from a
// generator of its own so that the ids drawn later keep their values.
func New(cat *catalog.Catalog, publicIPBlocks int) (*Networks, error) {
	s := &Networks{Catalog: cat}
	block, err := loopback.Reserve(s.RNG)
	if err != nil {
		return nil, err
	}
	s.block = block
	if err := s.reserveExtraBlocks(publicIPBlocks); err != nil {
		block.Release()
		return nil, err
	}
	shared, err := loopback.Reserve(core.NewRNG(sharedBlockSeed(s.Opts.Seed)))
	if err != nil {
		block.Release()
		s.releaseExtraBlocks()
		return nil, err
	}
	s.sharedBlock = shared
	return s, nil
}

// ReleaseBlocks gives the loopback blocks back when the simulator closes.
func (s *Networks) ReleaseBlocks() {
	s.block.Release()
	s.releaseExtraBlocks()
	s.sharedBlock.Release()
}

// PublicBlockCIDR is the first block of the zone's public IPs.
func (s *Networks) PublicBlockCIDR() string { return s.block.CIDR() }

// SharedBlockCIDR is the Shared network's block.
func (s *Networks) SharedBlockCIDR() string { return s.sharedBlock.CIDR() }

// Commands are the area's API commands, by name.
var Commands = map[string]core.Handler[*Networks]{
	"listFirewallRules":        cmdListFirewallRules,
	"createFirewallRule":       cmdCreateFirewallRule,
	"deleteFirewallRule":       cmdDeleteFirewallRule,
	"listPortForwardingRules":  cmdListPortForwardingRules,
	"createPortForwardingRule": cmdCreatePortForwardingRule,
	"deletePortForwardingRule": cmdDeletePortForwardingRule,
	"listLoadBalancerRules":    cmdListLoadBalancerRules,
	"listPublicIpAddresses":    cmdListPublicIPAddresses,
	"listNetworks":             cmdListNetworks,
	"listNetworkACLLists":      cmdListNetworkACLLists,
	"listNetworkACLs":          cmdListNetworkACLs,
	"createNetworkACL":         cmdCreateNetworkACL,
	"deleteNetworkACL":         cmdDeleteNetworkACL,
	"moveNetworkAclItem":       cmdMoveNetworkAclItem,
	"updateNetworkACLItem":     cmdUpdateNetworkACLItem,
}
