package network

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/loopback"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/profiles"
)

// With more public IP blocks the zone hands out more addresses than one
// /24 holds: the first block first, then the next; the end of the last
// block is the zone's capacity error.
func TestPublicIPBlocksExtendTheZone(t *testing.T) {
	t.Parallel()
	prof, err := profiles.ByName("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(catalog.New(core.New(core.Options{}, prof)), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.ReleaseBlocks)
	s.Lock()
	defer s.Unlock()
	first := strings.TrimSuffix(s.block.CIDR(), "0/24")
	second := strings.TrimSuffix(s.extraBlocks[0].CIDR(), "0/24")
	seen := map[string]bool{}
	for _, p := range s.DB.IPs {
		seen[p.Address] = true
	}
	for i := len(seen); i < 2*loopback.LastHost; i++ {
		addr, err := s.allocAddress()
		if err != nil {
			t.Fatalf("address %d: %v", i+1, err)
		}
		if seen[addr] {
			t.Fatalf("address %s handed out twice", addr)
		}
		block := first
		if i >= loopback.LastHost {
			block = second
		}
		if !strings.HasPrefix(addr, block) {
			t.Fatalf("address %d is %s, want one of %s0/24", i+1, addr, block)
		}
		seen[addr] = true
		s.DB.IPs = append(s.DB.IPs, &model.PublicIP{Address: addr})
	}
	if _, err := s.allocAddress(); err == nil || !strings.Contains(err.Error(), "Insufficient address capacity") {
		t.Fatalf("a full zone: %v", err)
	}
}
