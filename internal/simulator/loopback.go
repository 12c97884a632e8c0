package simulator

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"syscall"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
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

// Linux routes all of 127.0.0.0/8 to the loopback interface, so a random
// block is free to use. macOS configures only 127.0.0.1, and listening on
// another address fails with EADDRNOTAVAIL until it is aliased on lo0; the
// simulator then uses the first free block of 127.16.0.0/24 to
// 127.16.<aliasBlocks-1>.0/24, which aliasCommand sets up once per boot.
const aliasBlocks = 8

var aliasCommand = fmt.Sprintf("for b in $(seq 0 %d); do for h in $(seq 1 254); do sudo ifconfig lo0 alias 127.16.$b.$h up; done; done", aliasBlocks-1)

type listenFunc func(network, address string) (net.Listener, error)

func reserveIPBlock(rng *rand.Rand) (ipBlock, error) { return reserveIPBlockWith(rng, net.Listen) }

func reserveIPBlockWith(rng *rand.Rand, listen listenFunc) (ipBlock, error) {
	var lastErr error
	for range 200 {
		a, b := 16+rng.IntN(235), rng.IntN(256)
		ln, err := listen("tcp", fmt.Sprintf("127.%d.%d.%d:%d", a, b, sentinelHost, sentinelPort))
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			return reserveAliasedBlock(listen)
		}
		if err != nil {
			lastErr = err
			continue
		}
		return ipBlock{a: a, b: b, sentinel: ln, next: 1}, nil
	}
	return ipBlock{}, fmt.Errorf("simulator: no free loopback block 127.A.B.0/24: %w", lastErr)
}

// reserveAliasedBlock takes the first free block of those aliasCommand sets
// up, and checks that every address of it can be listened on, so that a
// missing alias fails here rather than when a cluster gets its public IP.
func reserveAliasedBlock(listen listenFunc) (ipBlock, error) {
	var notAliased, busy error
	for b := range aliasBlocks {
		ln, err := listen("tcp", fmt.Sprintf("127.16.%d.%d:%d", b, sentinelHost, sentinelPort))
		switch {
		case errors.Is(err, syscall.EADDRNOTAVAIL):
			notAliased = cmp.Or(notAliased, err)
			continue
		case err != nil:
			busy = err
			continue
		}
		for h := 1; h <= lastIPHost; h++ {
			probe, err := listen("tcp", fmt.Sprintf("127.16.%d.%d:0", b, h))
			if err != nil {
				_ = ln.Close()
				if errors.Is(err, syscall.EADDRNOTAVAIL) {
					return ipBlock{}, aliasError(err)
				}
				return ipBlock{}, fmt.Errorf("simulator: checking loopback block 127.16.%d.0/24: %w", b, err)
			}
			_ = probe.Close()
		}
		return ipBlock{a: 16, b: b, sentinel: ln, next: 1}, nil
	}
	if notAliased != nil {
		return ipBlock{}, aliasError(notAliased)
	}
	return ipBlock{}, fmt.Errorf("simulator: every aliased loopback block, 127.16.0.0/24 to 127.16.%d.0/24, "+
		"is held by another simulator; stop one, or run fewer at once: %w", aliasBlocks-1, busy)
}

func aliasError(err error) error {
	return fmt.Errorf("simulator: this host does not route 127.0.0.0/8 to the loopback interface "+
		"(macOS configures only 127.0.0.1), and the simulator needs a block of loopback addresses for "+
		"its clusters' public IPs: %w; alias 127.16.0.0/24 to 127.16.%d.0/24 once per boot with:\n  %s",
		err, aliasBlocks-1, aliasCommand)
}

// sharedBlockSeed derives the Shared network block's generator seed; 0
// (random) stays random.
func sharedBlockSeed(seed uint64) uint64 {
	if seed == 0 {
		return 0
	}
	return seed ^ 0x5368617265644e74
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
	for _, p := range s.st.IPs {
		if !p.Released {
			inUse[p.Address] = true
		}
	}
	for _, b := range s.publicBlocks() {
		for range lastIPHost {
			host := b.next
			b.next++
			if b.next > lastIPHost {
				b.next = 1
			}
			addr := fmt.Sprintf("127.%d.%d.%d", b.a, b.b, host)
			if !inUse[addr] {
				return addr, nil
			}
		}
	}
	return "", wire.ServerErr("Insufficient address capacity: no free public IP addresses in the zone")
}
