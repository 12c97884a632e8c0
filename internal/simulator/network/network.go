package network

import (
	"net/netip"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Networks and public IPs. Callers hold the lock.

// Guest CIDR sizes: CloudStack's default guest CIDR is a /24; /16 is the
// largest the simulator lays out and /29 the smallest with room for VMs.
const (
	DefaultGuestCIDRPrefix = 24
	MinGuestCIDRPrefix     = 16
	MaxGuestCIDRPrefix     = 29
)

// NewNetwork creates a network in state Allocated. Isolated networks get
// their own guest CIDR: 10.1.N.0/24 by default, or consecutive blocks of
// Options.GuestCIDRPrefix inside 10.1.0.0-10.255.255.255.
func (s *Networks) NewNetwork(name, zoneID, offeringID, accountID, vpcID, aclID string) *model.Network {
	st := s.DB
	n := &model.Network{InternalID: st.NextID("network"), ID: s.NewUUID(), Name: name, DisplayText: name,
		ZoneID: zoneID, OfferingID: offeringID, AccountID: accountID, NetType: "Isolated",
		VPCID: vpcID, ACLID: aclID, State: model.NetworkAllocated, InUse: map[netip.Addr]bool{}, Created: s.Now()}
	guest := guestCIDR(st.NextNetNum, s.Opts.GuestCIDRPrefix)
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

// ImplementNetwork moves an Allocated isolated network to Implemented and
// gives it a source NAT IP, as the first VM deployment does.
func (s *Networks) ImplementNetwork(n *model.Network) {
	if n.State != model.NetworkAllocated {
		return
	}
	n.State = model.NetworkImplemented
	if n.VPCID == "" && s.DB.SourceNatIP(n.ID) == nil {
		if _, err := s.AllocPublicIP(n.AccountID, n.ID, "", true); err != nil {
			s.Logf("source NAT IP for network %s: %v", n.Name, err)
		}
	}
}

// AllocPublicIP acquires a public IP for an account, associated with a
// guest network and/or a VPC.
func (s *Networks) AllocPublicIP(accountID, networkID, vpcID string, sourceNat bool) (*model.PublicIP, error) {
	addr, err := s.allocAddress()
	if err != nil {
		return nil, err
	}
	p := &model.PublicIP{InternalID: s.DB.NextID("ip"), ID: s.NewUUID(), Address: addr, ZoneID: s.DB.SeedIDs.Zone,
		AccountID: accountID, NetworkID: networkID, VPCID: vpcID, SourceNat: sourceNat,
		State: "Allocated", Allocated: s.Now()}
	s.DB.IPs = append(s.DB.IPs, p)
	return p, nil
}

// ReleaseIP revokes every rule on the IP and releases it.
func (s *Networks) ReleaseIP(p *model.PublicIP) {
	for _, r := range s.RulesOnIP(p.ID, "") {
		s.RevokeRule(r)
	}
	p.Released = true
	p.State = "Released"
}

// AllocPrivateIP takes the lowest free guest address of the network: the
// network address, the gateway (.1) and the broadcast address are never
// handed out, nor an address a non-expunged VM holds. A full network fails
// like CloudStack's guest IP allocation, with InsufficientAddressCapacity.
func (s *Networks) AllocPrivateIP(n *model.Network) (string, *wire.APIError) {
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

// ReleasePrivateIP frees an expunged VM's guest address for reuse.
func (s *Networks) ReleasePrivateIP(v *model.VM) {
	n := s.DB.Network(v.NetworkID)
	if n == nil {
		return
	}
	if a, err := netip.ParseAddr(v.IP); err == nil {
		delete(n.InUse, a)
	}
}

// DestroyNetwork shuts a network down: every rule on its IPs goes, the IPs
// are released and the network is removed.
func (s *Networks) DestroyNetwork(n *model.Network) {
	for _, p := range s.DB.IPs {
		if !p.Released && p.NetworkID == n.ID {
			s.ReleaseIP(p)
		}
	}
	// Port forwards elsewhere that target this network's VMs go too.
	for _, r := range append([]*model.Rule(nil), s.DB.Rules...) {
		if r.NetworkID == n.ID {
			s.RevokeRule(r)
		}
	}
	n.State = model.NetworkDestroyed
	n.Removed = true
}

// VMsOnNetwork returns the live VMs with a NIC on the network.
func (s *Networks) VMsOnNetwork(networkID string) []*model.VM {
	var out []*model.VM
	for _, v := range s.DB.VMs {
		if !v.Expunged && v.NetworkID == networkID {
			out = append(out, v)
		}
	}
	return out
}

// IsVPCTier reports whether the network is a VPC tier.
func IsVPCTier(n *model.Network) bool { return n != nil && n.VPCID != "" }
