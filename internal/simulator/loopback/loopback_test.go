package loopback

import (
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeLoopback answers listen calls like a host whose lo0 carries only some
// addresses (macOS), without binding anything.
type fakeLoopback struct {
	mu      sync.Mutex
	aliased func(ip string) bool
	busy    map[string]bool // host:port already taken
	open    map[string]bool // listeners not closed yet
	calls   int
}

func newFakeLoopback(aliased func(ip string) bool) *fakeLoopback {
	return &fakeLoopback{aliased: aliased, busy: map[string]bool{}, open: map[string]bool{}}
}

func (f *fakeLoopback) listen(network, address string) (net.Listener, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	addr, err := net.ResolveTCPAddr(network, address)
	if err != nil {
		return nil, err
	}
	host := addr.IP.String()
	fail := func(errno syscall.Errno) error {
		return &net.OpError{Op: "listen", Net: network, Addr: addr, Err: os.NewSyscallError("bind", errno)}
	}
	switch {
	case !f.aliased(host):
		return nil, fail(syscall.EADDRNOTAVAIL)
	case f.busy[address] || f.open[address]:
		return nil, fail(syscall.EADDRINUSE)
	}
	f.open[address] = true
	return &fakeListener{f: f, address: address}, nil
}

func (f *fakeLoopback) stillOpen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for a := range f.open {
		out = append(out, a)
	}
	return out
}

type fakeListener struct {
	net.Listener // only Close is called
	f            *fakeLoopback
	address      string
}

func (l *fakeListener) Close() error {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	delete(l.f.open, l.address)
	return nil
}

// onlyLocalhost is macOS out of the box.
func onlyLocalhost(ip string) bool { return ip == "127.0.0.1" }

// aliasedBlocks is macOS after the documented setup for the first n blocks.
func aliasedBlocks(n int) func(string) bool {
	return func(ip string) bool {
		for b := range n {
			if strings.HasPrefix(ip, "127.16."+strconv.Itoa(b)+".") {
				return true
			}
		}
		return onlyLocalhost(ip)
	}
}

func TestReserveIPBlockLinuxPicksARandomBlock(t *testing.T) {
	t.Parallel()
	fake := newFakeLoopback(func(ip string) bool { return strings.HasPrefix(ip, "127.") })
	blk, err := reserveWith(rand.New(rand.NewPCG(1, 1)), fake.listen)
	if err != nil {
		t.Fatal(err)
	}
	if fake.calls != 1 || blk.sentinel == nil || blk.A < 16 || blk.A > 250 {
		t.Fatalf("block %s after %d listen calls", blk.CIDR(), fake.calls)
	}
}

func TestReserveIPBlockFailsFastWithoutAliases(t *testing.T) {
	t.Parallel()
	fake := newFakeLoopback(onlyLocalhost)
	_, err := reserveWith(rand.New(rand.NewPCG(1, 1)), fake.listen)
	if err == nil {
		t.Fatal("a block was reserved on a host that routes only 127.0.0.1")
	}
	for _, want := range []string{
		"macOS configures only 127.0.0.1",
		"listen tcp 127.16.0.254:2221: bind: ",
		"alias 127.16.0.0/24 to 127.16.7.0/24 once per boot with:\n  " +
			"for b in $(seq 0 7); do for h in $(seq 1 254); do sudo ifconfig lo0 alias 127.16.$b.$h up; done; done",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if !errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Errorf("error %v does not wrap EADDRNOTAVAIL", err)
	}
	// One random block, then each aliased block's sentinel: no 200 retries.
	if fake.calls != 1+aliasBlocks {
		t.Errorf("%d listen calls, want %d", fake.calls, 1+aliasBlocks)
	}
}

func TestReserveIPBlockUsesTheFirstFreeAliasedBlock(t *testing.T) {
	t.Parallel()
	fake := newFakeLoopback(aliasedBlocks(3))
	fake.busy["127.16.0.254:2221"] = true // another simulator holds block 0

	blk, err := reserveWith(rand.New(rand.NewPCG(1, 1)), fake.listen)
	if err != nil {
		t.Fatal(err)
	}
	if blk.CIDR() != "127.16.1.0/24" {
		t.Fatalf("block %s, want 127.16.1.0/24", blk.CIDR())
	}
	if open := fake.stillOpen(); len(open) != 1 || open[0] != "127.16.1.254:2221" {
		t.Fatalf("listeners left open: %v, want only the block's sentinel", open)
	}
	blk.Release()
	if open := fake.stillOpen(); len(open) != 0 {
		t.Fatalf("release left %v open", open)
	}

	// Every aliased block taken: a clear error, not an alias hint.
	full := newFakeLoopback(aliasedBlocks(aliasBlocks))
	for b := range aliasBlocks {
		full.busy["127.16."+strconv.Itoa(b)+".254:2221"] = true
	}
	_, err = reserveWith(rand.New(rand.NewPCG(1, 1)), full.listen)
	if err == nil || !strings.Contains(err.Error(), "is held by another simulator") || strings.Contains(err.Error(), "ifconfig") {
		t.Fatalf("all blocks held: error %v", err)
	}
}

func TestReserveIPBlockRejectsAPartlyAliasedBlock(t *testing.T) {
	t.Parallel()
	// Only the sentinel address was aliased, not the cluster addresses.
	fake := newFakeLoopback(func(ip string) bool { return ip == "127.16.0.254" || onlyLocalhost(ip) })
	_, err := reserveWith(rand.New(rand.NewPCG(1, 1)), fake.listen)
	if err == nil || !strings.Contains(err.Error(), "listen tcp 127.16.0.1:0: bind: ") || !strings.Contains(err.Error(), "sudo ifconfig lo0 alias") {
		t.Fatalf("error %v, want the first missing address and the alias command", err)
	}
	if open := fake.stillOpen(); len(open) != 0 {
		t.Fatalf("listeners left open after the failure: %v", open)
	}
}

// The simulator guide documents the same setup the error prints.
func TestAliasCommandIsDocumented(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile("../../../templates/guides/simulator.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), "\n"+aliasCommand+"\n") {
		t.Fatalf("templates/guides/simulator.md.tmpl does not show the alias command %q", aliasCommand)
	}
}
