package network

import (
	"net/netip"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// Shared guest networks. A Shared network is zone-wide, has no source NAT
// IP, no firewall and no port forwarding: CKS reaches its VMs directly on
// their guest addresses (KubernetesClusterManagerImpl.IsDirectAccess, which
// is true for Shared and ROUTED networks; ROUTED is not modelled). Callers
// hold the lock.

const (
	NetTypeShared        = "Shared"
	SharedNetworkName    = "sim-shared-network"
	sharedOfferingName   = "DefaultSharedNetworkOffering"
	sharedRangeFirstHost = 2
	// sharedRangeLastHost ends the guest IP range below the sentinel, so
	// that .200-.253 stay outside it, free for external load balancers.
	sharedRangeLastHost = 199
)

// IsDirectAccess is KubernetesClusterManagerImpl.IsDirectAccess: a network
// whose VMs CKS reaches on their own addresses, with no rules.
func IsDirectAccess(n *model.Network) bool { return n != nil && n.NetType == NetTypeShared }

// SeedSharedNetwork adds the zone's Shared network, on the loopback block
// reserved for it: gateway .1, guest IP range .2-.199.
func (s *Networks) SeedSharedNetwork(zoneID string) {
	st := s.DB
	off := &model.NetworkOffering{InternalID: st.NextID("netoffering"), ID: s.NewUUID(), Name: sharedOfferingName,
		DisplayText: "Offering for Shared networks", ConserveMode: true}
	st.NetOffers = append(st.NetOffers, off)
	b := s.sharedBlock
	n := &model.Network{InternalID: st.NextID("network"), ID: s.NewUUID(), Name: SharedNetworkName,
		DisplayText: SharedNetworkName, ZoneID: zoneID, OfferingID: off.ID, NetType: NetTypeShared,
		State: model.NetworkImplemented, InUse: map[netip.Addr]bool{}, Created: s.Now(),
		CIDR: b.CIDR(), Gateway: b.Host(1).String(),
		IPRange: model.IPRange{First: b.Host(sharedRangeFirstHost), Last: b.Host(sharedRangeLastHost)}}
	st.Networks = append(st.Networks, n)
	st.SeedIDs.SharedNetwork, st.SeedIDs.SharedOffering = n.ID, off.ID
}

// OpenDirectSSH starts the SSH server of a VM on a directly accessed
// network, on its own address, port 22.
func (s *Networks) OpenDirectSSH(v *model.VM) {
	if !IsDirectAccess(s.DB.Network(v.NetworkID)) {
		return
	}
	t := s.SSHTarget(v)
	if err := s.EP.OpenForward(v.IP, DefaultSSHPort, t); err != nil {
		s.Logf("open SSH of %s on %s: %v", v.Name, v.IP, err)
	}
}

// CloseDirectSSH stops it when the VM is expunged.
func (s *Networks) CloseDirectSSH(v *model.VM) {
	if IsDirectAccess(s.DB.Network(v.NetworkID)) {
		s.EP.CloseForward(v.IP, DefaultSSHPort)
	}
}
