package simulator

import (
	"encoding/json"
	"fmt"
)

// Networks and public IPs. Callers hold s.mu.

// newNetwork creates a network in state Allocated. Isolated networks get
// their own 10.1.N.0/24 guest CIDR.
func (s *Simulator) newNetwork(name, zoneID, offeringID, accountID, vpcID, aclID string) *network {
	st := s.st
	n := &network{internalID: st.nextID("network"), id: s.newUUID(), name: name, displayText: name,
		zoneID: zoneID, offeringID: offeringID, accountID: accountID, netType: "Isolated",
		vpcID: vpcID, aclID: aclID, state: netAllocated, nextHost: 2, created: s.now()}
	n.cidr = fmt.Sprintf("10.1.%d.0/24", st.nextNetNum%250)
	n.gateway = fmt.Sprintf("10.1.%d.1", st.nextNetNum%250)
	st.nextNetNum++
	st.networks = append(st.networks, n)
	return n
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

// allocPrivateIP returns the next guest address of a network.
func (s *Simulator) allocPrivateIP(n *network) string {
	var a, b, c int
	_, _ = fmt.Sscanf(n.cidr, "%d.%d.%d.", &a, &b, &c)
	host := n.nextHost
	n.nextHost++
	if n.nextHost > 254 {
		n.nextHost = 2
	}
	return fmt.Sprintf("%d.%d.%d.%d", a, b, c, host)
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

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
