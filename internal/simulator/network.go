package simulator

import (
	"net/netip"
)

// Networks and public IPs. Callers hold s.mu.

// Guest CIDR sizes: CloudStack's default guest CIDR is a /24; /16 is the
// largest the simulator lays out and /29 the smallest with room for VMs.
const (
	defaultGuestCIDRPrefix = 24
	minGuestCIDRPrefix     = 16
	maxGuestCIDRPrefix     = 29
)

// newNetwork creates a network in state Allocated. Isolated networks get
// their own guest CIDR: 10.1.N.0/24 by default, or consecutive blocks of
// Options.GuestCIDRPrefix inside 10.1.0.0-10.255.255.255.
func (s *Simulator) newNetwork(name, zoneID, offeringID, accountID, vpcID, aclID string) *network {
	st := s.st
	n := &network{internalID: st.nextID("network"), id: s.newUUID(), name: name, displayText: name,
		zoneID: zoneID, offeringID: offeringID, accountID: accountID, netType: "Isolated",
		vpcID: vpcID, aclID: aclID, state: netAllocated, inUse: map[netip.Addr]bool{}, created: s.now()}
	guest := guestCIDR(st.nextNetNum, s.opts.GuestCIDRPrefix)
	n.cidr = guest.String()
	n.gateway = guest.Addr().Next().String()
	st.nextNetNum++
	st.networks = append(st.networks, n)
	return n
}

// guestCIDR is the num-th guest CIDR of the given prefix length, counted
// from 10.1.0.0 and wrapping inside 10.1.0.0-10.255.255.255.
func guestCIDR(num, bits int) netip.Prefix {
	const first, end = 10<<24 | 1<<16, 11 << 24
	size := uint32(1) << (32 - bits)
	blocks := uint32(end-first) / size
	base := uint32(first) + uint32(num)%blocks*size
	addr := netip.AddrFrom4([4]byte{byte(base >> 24), byte(base >> 16), byte(base >> 8), byte(base)})
	return netip.PrefixFrom(addr, bits)
}

// implementNetwork moves an Allocated isolated network to Implemented and
// gives it a source NAT IP, as the first VM deployment does.
func (s *Simulator) implementNetwork(n *network) {
	if n.state != netAllocated {
		return
	}
	n.state = netImplemented
	if n.vpcID == "" && s.st.sourceNatIP(n.id) == nil {
		if _, err := s.allocPublicIP(n.accountID, n.id, "", true); err != nil {
			s.logf("source NAT IP for network %s: %v", n.name, err)
		}
	}
}

// allocPublicIP acquires a public IP for an account, associated with a
// guest network and/or a VPC.
func (s *Simulator) allocPublicIP(accountID, networkID, vpcID string, sourceNat bool) (*publicIP, error) {
	addr, err := s.allocAddress()
	if err != nil {
		return nil, err
	}
	p := &publicIP{internalID: s.st.nextID("ip"), id: s.newUUID(), address: addr, zoneID: s.st.seedIDs.zone,
		accountID: accountID, networkID: networkID, vpcID: vpcID, sourceNat: sourceNat,
		state: "Allocated", allocated: s.now()}
	s.st.ips = append(s.st.ips, p)
	return p, nil
}

// releaseIP revokes every rule on the IP and releases it.
func (s *Simulator) releaseIP(p *publicIP) {
	for _, r := range s.rulesOnIP(p.id, "") {
		s.revokeRule(r)
	}
	p.released = true
	p.state = "Released"
}

// allocPrivateIP takes the lowest free guest address of the network: the
// network address, the gateway (.1) and the broadcast address are never
// handed out, nor an address a non-expunged VM holds. A full network fails
// like CloudStack's guest IP allocation, with InsufficientAddressCapacity.
func (s *Simulator) allocPrivateIP(n *network) (string, *apiError) {
	guest, err := netip.ParsePrefix(n.cidr)
	if err != nil {
		return "", internalError("network %s has an invalid guest CIDR %q", n.name, n.cidr)
	}
	gateway := guest.Addr().Next()
	for a := gateway.Next(); guest.Contains(a) && guest.Contains(a.Next()); a = a.Next() {
		if n.ipRange.valid() && !n.ipRange.contains(a) {
			continue // a Shared network hands out its IP range only
		}
		if !n.inUse[a] {
			n.inUse[a] = true
			return a.String(), nil
		}
	}
	return "", insufficientAddressCapacity("Unable to acquire Guest IP address for network %s: no free address in %s", n.name, n.cidr)
}

// releasePrivateIP frees an expunged VM's guest address for reuse.
func (s *Simulator) releasePrivateIP(v *vm) {
	n := s.st.network(v.networkID)
	if n == nil {
		return
	}
	if a, err := netip.ParseAddr(v.ip); err == nil {
		delete(n.inUse, a)
	}
}

// destroyNetwork shuts a network down: every rule on its IPs goes, the IPs
// are released and the network is removed.
func (s *Simulator) destroyNetwork(n *network) {
	for _, p := range s.st.ips {
		if !p.released && p.networkID == n.id {
			s.releaseIP(p)
		}
	}
	// Port forwards elsewhere that target this network's VMs go too.
	for _, r := range append([]*rule(nil), s.st.rules...) {
		if r.networkID == n.id {
			s.revokeRule(r)
		}
	}
	n.state = netDestroyed
	n.removed = true
}

// vmsOnNetwork returns the live VMs with a NIC on the network.
func (s *Simulator) vmsOnNetwork(networkID string) []*vm {
	var out []*vm
	for _, v := range s.st.vms {
		if !v.expunged && v.networkID == networkID {
			out = append(out, v)
		}
	}
	return out
}

// isVPCTier reports whether the network is a VPC tier.
func isVPCTier(n *network) bool { return n != nil && n.vpcID != "" }
