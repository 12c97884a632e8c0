package simulator

import (
	"net/netip"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// Shared guest networks. A Shared network is zone-wide, has no source NAT
// IP, no firewall and no port forwarding: CKS reaches its VMs directly on
// their guest addresses (KubernetesClusterManagerImpl.isDirectAccess, which
// is true for Shared and ROUTED networks; ROUTED is not modelled). Callers
// hold s.mu.

const (
	netTypeShared        = "Shared"
	sharedNetworkName    = "sim-shared-network"
	sharedOfferingName   = "DefaultSharedNetworkOffering"
	sharedRangeFirstHost = 2
	// sharedRangeLastHost ends the guest IP range below the sentinel, so
	// that .200-.253 stay outside it, free for external load balancers.
	sharedRangeLastHost = 199
)

// isDirectAccess is KubernetesClusterManagerImpl.isDirectAccess: a network
// whose VMs CKS reaches on their own addresses, with no rules.
func isDirectAccess(n *model.Network) bool { return n != nil && n.NetType == netTypeShared }

// seedSharedNetwork adds the zone's Shared network, on the loopback block
// reserved for it: gateway .1, guest IP range .2-.199.
func (s *Simulator) seedSharedNetwork(zoneID string) {
	st := s.rt.DB
	off := &model.NetworkOffering{InternalID: st.NextID("netoffering"), ID: s.rt.NewUUID(), Name: sharedOfferingName,
		DisplayText: "Offering for Shared networks", ConserveMode: true}
	st.NetOffers = append(st.NetOffers, off)
	b := s.sharedBlock
	n := &model.Network{InternalID: st.NextID("network"), ID: s.rt.NewUUID(), Name: sharedNetworkName,
		DisplayText: sharedNetworkName, ZoneID: zoneID, OfferingID: off.ID, NetType: netTypeShared,
		State: model.NetworkImplemented, InUse: map[netip.Addr]bool{}, Created: s.rt.Now(),
		CIDR: b.CIDR(), Gateway: b.Host(1).String(),
		IPRange: model.IPRange{First: b.Host(sharedRangeFirstHost), Last: b.Host(sharedRangeLastHost)}}
	st.Networks = append(st.Networks, n)
	st.SeedIDs.SharedNetwork, st.SeedIDs.SharedOffering = n.ID, off.ID
}

// openDirectSSH starts the SSH server of a VM on a directly accessed
// network, on its own address, port 22.
func (s *Simulator) openDirectSSH(v *model.VM) {
	if !isDirectAccess(s.rt.DB.Network(v.NetworkID)) {
		return
	}
	t := s.sshTarget(v)
	if err := s.rt.EP.OpenForward(v.IP, defaultSSHPort, t); err != nil {
		s.rt.Logf("open SSH of %s on %s: %v", v.Name, v.IP, err)
	}
}

// closeDirectSSH stops it when the VM is expunged.
func (s *Simulator) closeDirectSSH(v *model.VM) {
	if isDirectAccess(s.rt.DB.Network(v.NetworkID)) {
		s.rt.EP.CloseForward(v.IP, defaultSSHPort)
	}
}
