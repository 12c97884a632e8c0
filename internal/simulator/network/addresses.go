package network

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// sharedBlockSeed derives the Shared network block's generator seed; 0
// (random) stays random.
func sharedBlockSeed(seed uint64) uint64 {
	if seed == 0 {
		return 0
	}
	return seed ^ 0x5368617265644e74
}

// allocAddress returns the next free address of the public blocks, the
// first block first. Callers hold the lock.
func (s *Networks) allocAddress() (string, error) {
	inUse := map[string]bool{}
	for _, p := range s.DB.IPs {
		if !p.Released {
			inUse[p.Address] = true
		}
	}
	for _, b := range s.publicBlocks() {
		if addr, ok := b.NextFree(inUse); ok {
			return addr, nil
		}
	}
	return "", wire.ServerErr("Insufficient address capacity: no free public IP addresses in the zone")
}
