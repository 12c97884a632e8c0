package network

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/loopback"
)

// A zone's public IP range holds one /24 of loopback addresses by default:
// one address per isolated network's source NAT and per VPC, so about 250
// clusters on isolated networks. Options.PublicIPBlocks adds blocks for
// larger fleets; addresses come from the first block until it is full.

// extraBlocksSeed derives the generator seed of the additional blocks, so
// that the ids drawn from the main generator keep their values; 0 (random)
// stays random.
func extraBlocksSeed(seed uint64) uint64 {
	if seed == 0 {
		return 0
	}
	return seed ^ 0x4578747261426c6b
}

// reserveExtraBlocks reserves the blocks beyond the first one.
func (s *Networks) reserveExtraBlocks(blocks int) error {
	rng := core.NewRNG(extraBlocksSeed(s.Opts.Seed))
	for range blocks - 1 {
		b, err := loopback.Reserve(rng)
		if err != nil {
			s.releaseExtraBlocks()
			return fmt.Errorf("simulator: public IP block %d of %d: %w", len(s.extraBlocks)+2, blocks, err)
		}
		s.extraBlocks = append(s.extraBlocks, b)
	}
	return nil
}

func (s *Networks) releaseExtraBlocks() {
	for i := range s.extraBlocks {
		s.extraBlocks[i].Release()
	}
}

// publicBlocks are the blocks public IPs are allocated from, in order.
func (s *Networks) publicBlocks() []*loopback.Block {
	out := []*loopback.Block{&s.block}
	for i := range s.extraBlocks {
		out = append(out, &s.extraBlocks[i])
	}
	return out
}
