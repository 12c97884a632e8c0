package simulator

import (
	"net/netip"
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
func isDirectAccess(n *network) bool { return n != nil && n.netType == netTypeShared }

// seedSharedNetwork adds the zone's Shared network, on the loopback block
// reserved for it: gateway .1, guest IP range .2-.199.
func (s *Simulator) seedSharedNetwork(zoneID string) {
	st := s.st
	off := &networkOffering{internalID: st.nextID("netoffering"), id: s.newUUID(), name: sharedOfferingName,
		displayText: "Offering for Shared networks", conserveMode: true}
	st.netOffers = append(st.netOffers, off)
	b := s.sharedBlock
	host := func(h int) netip.Addr { return netip.AddrFrom4([4]byte{127, byte(b.a), byte(b.b), byte(h)}) }
	n := &network{internalID: st.nextID("network"), id: s.newUUID(), name: sharedNetworkName,
		displayText: sharedNetworkName, zoneID: zoneID, offeringID: off.id, netType: netTypeShared,
		state: netImplemented, inUse: map[netip.Addr]bool{}, created: s.now(),
		cidr: b.cidr(), gateway: host(1).String(),
		ipRange: ipRange{first: host(sharedRangeFirstHost), last: host(sharedRangeLastHost)}}
	st.networks = append(st.networks, n)
	st.seedIDs.sharedNetwork, st.seedIDs.sharedOffering = n.id, off.id
}

// openDirectSSH starts the SSH server of a VM on a directly accessed
// network, on its own address, port 22.
func (s *Simulator) openDirectSSH(v *vm) {
	if !isDirectAccess(s.st.network(v.networkID)) {
		return
	}
	t := s.sshTarget(v)
	if err := s.ep.OpenForward(v.ip, defaultSSHPort, t); err != nil {
		s.logf("open SSH of %s on %s: %v", v.name, v.ip, err)
	}
}

// closeDirectSSH stops it when the VM is expunged.
func (s *Simulator) closeDirectSSH(v *vm) {
	if isDirectAccess(s.st.network(v.networkID)) {
		s.ep.CloseForward(v.ip, defaultSSHPort)
	}
}
