package simulator

import (
	"net/netip"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Networks and public IPs. Callers hold the lock.

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
func (s *Simulator) newNetwork(name, zoneID, offeringID, accountID, vpcID, aclID string) *model.Network {
	st := s.rt.DB
	n := &model.Network{InternalID: st.NextID("network"), ID: s.rt.NewUUID(), Name: name, DisplayText: name,
		ZoneID: zoneID, OfferingID: offeringID, AccountID: accountID, NetType: "Isolated",
		VPCID: vpcID, ACLID: aclID, State: model.NetworkAllocated, InUse: map[netip.Addr]bool{}, Created: s.rt.Now()}
	guest := guestCIDR(st.NextNetNum, s.rt.Opts.GuestCIDRPrefix)
	n.CIDR = guest.String()
	n.Gateway = guest.Addr().Next().String()
	st.NextNetNum++
	st.Networks = append(st.Networks, n)
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
func (s *Simulator) implementNetwork(n *model.Network) {
	if n.State != model.NetworkAllocated {
		return
	}
	n.State = model.NetworkImplemented
	if n.VPCID == "" && s.rt.DB.SourceNatIP(n.ID) == nil {
		if _, err := s.allocPublicIP(n.AccountID, n.ID, "", true); err != nil {
			s.rt.Logf("source NAT IP for network %s: %v", n.Name, err)
		}
	}
}

// allocPublicIP acquires a public IP for an account, associated with a
// guest network and/or a VPC.
func (s *Simulator) allocPublicIP(accountID, networkID, vpcID string, sourceNat bool) (*model.PublicIP, error) {
	addr, err := s.allocAddress()
	if err != nil {
		return nil, err
	}
	p := &model.PublicIP{InternalID: s.rt.DB.NextID("ip"), ID: s.rt.NewUUID(), Address: addr, ZoneID: s.rt.DB.SeedIDs.Zone,
		AccountID: accountID, NetworkID: networkID, VPCID: vpcID, SourceNat: sourceNat,
		State: "Allocated", Allocated: s.rt.Now()}
	s.rt.DB.IPs = append(s.rt.DB.IPs, p)
	return p, nil
}

// releaseIP revokes every rule on the IP and releases it.
func (s *Simulator) releaseIP(p *model.PublicIP) {
	for _, r := range s.rulesOnIP(p.ID, "") {
		s.revokeRule(r)
	}
	p.Released = true
	p.State = "Released"
}

// allocPrivateIP takes the lowest free guest address of the network: the
// network address, the gateway (.1) and the broadcast address are never
// handed out, nor an address a non-expunged VM holds. A full network fails
// like CloudStack's guest IP allocation, with InsufficientAddressCapacity.
func (s *Simulator) allocPrivateIP(n *model.Network) (string, *wire.APIError) {
	guest, err := netip.ParsePrefix(n.CIDR)
	if err != nil {
		return "", wire.InternalError("network %s has an invalid guest CIDR %q", n.Name, n.CIDR)
	}
	gateway := guest.Addr().Next()
	for a := gateway.Next(); guest.Contains(a) && guest.Contains(a.Next()); a = a.Next() {
		if n.IPRange.Valid() && !n.IPRange.Contains(a) {
			continue // a Shared network hands out its IP range only
		}
		if !n.InUse[a] {
			n.InUse[a] = true
			return a.String(), nil
		}
	}
	return "", wire.InsufficientAddressCapacity("Unable to acquire Guest IP address for network %s: no free address in %s", n.Name, n.CIDR)
}

// releasePrivateIP frees an expunged VM's guest address for reuse.
func (s *Simulator) releasePrivateIP(v *model.VM) {
	n := s.rt.DB.Network(v.NetworkID)
	if n == nil {
		return
	}
	if a, err := netip.ParseAddr(v.IP); err == nil {
		delete(n.InUse, a)
	}
}

// destroyNetwork shuts a network down: every rule on its IPs goes, the IPs
// are released and the network is removed.
func (s *Simulator) destroyNetwork(n *model.Network) {
	for _, p := range s.rt.DB.IPs {
		if !p.Released && p.NetworkID == n.ID {
			s.releaseIP(p)
		}
	}
	// Port forwards elsewhere that target this network's VMs go too.
	for _, r := range append([]*model.Rule(nil), s.rt.DB.Rules...) {
		if r.NetworkID == n.ID {
			s.revokeRule(r)
		}
	}
	n.State = model.NetworkDestroyed
	n.Removed = true
}

// vmsOnNetwork returns the live VMs with a NIC on the network.
func (s *Simulator) vmsOnNetwork(networkID string) []*model.VM {
	var out []*model.VM
	for _, v := range s.rt.DB.VMs {
		if !v.Expunged && v.NetworkID == networkID {
			out = append(out, v)
		}
	}
	return out
}

// isVPCTier reports whether the network is a VPC tier.
func isVPCTier(n *model.Network) bool { return n != nil && n.VPCID != "" }
