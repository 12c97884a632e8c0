// Package loopback reserves the blocks of loopback addresses (127.A.B.0/24)
// a simulator hands out as public IPs and as its Shared network's guest
// range, so that each cluster gets its own address and parallel simulators
// never share a block. It imports nothing of the simulator.
package loopback

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"syscall"
)

// Block is the loopback /24 (127.A.B.0/24) whose addresses this simulator
// hands out as public IPs. A listener on 127.A.B.254 holds the block so two
// simulators (parallel test processes) never pick the same one.
type Block struct {
	A, B     int
	sentinel net.Listener
	next     int
}

const (
	sentinelHost = 254
	sentinelPort = 2221
	// LastHost is the last host number handed out; the sentinel holds 254.
	LastHost = 253
)

// Linux routes all of 127.0.0.0/8 to the loopback interface, so a random
// block is free to use. macOS configures only 127.0.0.1, and listening on
// another address fails with EADDRNOTAVAIL until it is aliased on lo0; the
// simulator then uses the first free block of 127.16.0.0/24 to
// 127.16.<aliasBlocks-1>.0/24, which aliasCommand sets up once per boot.
const aliasBlocks = 8

var aliasCommand = fmt.Sprintf("for b in $(seq 0 %d); do for h in $(seq 1 254); do sudo ifconfig lo0 alias 127.16.$b.$h up; done; done", aliasBlocks-1)

type listenFunc func(network, address string) (net.Listener, error)

// Reserve reserves a free block: a random one where the host routes all of
// 127.0.0.0/8, else the first free aliased one.
func Reserve(rng *rand.Rand) (Block, error) { return reserveWith(rng, net.Listen) }

func reserveWith(rng *rand.Rand, listen listenFunc) (Block, error) {
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
		return Block{A: a, B: b, sentinel: ln, next: 1}, nil
	}
	return Block{}, fmt.Errorf("simulator: no free loopback block 127.A.B.0/24: %w", lastErr)
}

// reserveAliasedBlock takes the first free block of those aliasCommand sets
// up, and checks that every address of it can be listened on, so that a
// missing alias fails here rather than when a cluster gets its public IP.
func reserveAliasedBlock(listen listenFunc) (Block, error) {
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
		for h := 1; h <= LastHost; h++ {
			probe, err := listen("tcp", fmt.Sprintf("127.16.%d.%d:0", b, h))
			if err != nil {
				_ = ln.Close()
				if errors.Is(err, syscall.EADDRNOTAVAIL) {
					return Block{}, aliasError(err)
				}
				return Block{}, fmt.Errorf("simulator: checking loopback block 127.16.%d.0/24: %w", b, err)
			}
			_ = probe.Close()
		}
		return Block{A: 16, B: b, sentinel: ln, next: 1}, nil
	}
	if notAliased != nil {
		return Block{}, aliasError(notAliased)
	}
	return Block{}, fmt.Errorf("simulator: every aliased loopback block, 127.16.0.0/24 to 127.16.%d.0/24, "+
		"is held by another simulator; stop one, or run fewer at once: %w", aliasBlocks-1, busy)
}

func aliasError(err error) error {
	return fmt.Errorf("simulator: this host does not route 127.0.0.0/8 to the loopback interface "+
		"(macOS configures only 127.0.0.1), and the simulator needs a block of loopback addresses for "+
		"its clusters' public IPs: %w; alias 127.16.0.0/24 to 127.16.%d.0/24 once per boot with:\n  %s",
		err, aliasBlocks-1, aliasCommand)
}

// Release frees the block for other simulators.
func (b *Block) Release() {
	if b.sentinel != nil {
		_ = b.sentinel.Close()
	}
}

// CIDR is the block as 127.A.B.0/24.
func (b *Block) CIDR() string { return fmt.Sprintf("127.%d.%d.0/24", b.A, b.B) }

// Host is the block's address with host number h.
func (b *Block) Host(h int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, byte(b.A), byte(b.B), byte(h)})
}

// NextFree hands out the block's next address that inUse does not hold,
// round robin from where the last one left off; false when every address
// is in use.
func (b *Block) NextFree(inUse map[string]bool) (string, bool) {
	for range LastHost {
		host := b.next
		b.next++
		if b.next > LastHost {
			b.next = 1
		}
		if addr := b.Host(host).String(); !inUse[addr] {
			return addr, true
		}
	}
	return "", false
}
