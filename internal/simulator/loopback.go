package simulator

import (
	"fmt"
	"math/rand/v2"
	"net"
)

// ipBlock is the loopback /24 (127.A.B.0/24) whose addresses this simulator
// hands out as public IPs. A listener on 127.A.B.254 holds the block so two
// simulators (parallel test processes) never pick the same one.
type ipBlock struct {
	a, b     int
	sentinel net.Listener
	next     int
}

const (
	sentinelHost = 254
	sentinelPort = 2221
	lastIPHost   = 253
)

func reserveIPBlock(rng *rand.Rand) (ipBlock, error) {
	var lastErr error
	for range 200 {
		a, b := 16+rng.IntN(235), rng.IntN(256)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.%d.%d.%d:%d", a, b, sentinelHost, sentinelPort))
		if err != nil {
			lastErr = err
			continue
		}
		return ipBlock{a: a, b: b, sentinel: ln, next: 1}, nil
	}
	return ipBlock{}, fmt.Errorf("simulator: no free loopback block 127.A.B.0/24: %w", lastErr)
}

func (b *ipBlock) release() {
	if b.sentinel != nil {
		_ = b.sentinel.Close()
	}
}

func (b *ipBlock) cidr() string { return fmt.Sprintf("127.%d.%d.0/24", b.a, b.b) }

// allocAddress returns the next free address of the block. Callers hold s.mu.
func (s *Simulator) allocAddress() (string, error) {
	inUse := map[string]bool{}
	for _, p := range s.st.ips {
		if !p.released {
			inUse[p.address] = true
		}
	}
	for range lastIPHost {
		host := s.block.next
		s.block.next++
		if s.block.next > lastIPHost {
			s.block.next = 1
		}
		addr := fmt.Sprintf("127.%d.%d.%d", s.block.a, s.block.b, host)
		if !inUse[addr] {
			return addr, nil
		}
	}
	return "", serverErr("Insufficient address capacity: no free public IP addresses in the zone")
}
