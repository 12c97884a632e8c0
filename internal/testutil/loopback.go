package testutil

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"
)

// LoopbackIP picks 127.A.B.C with A in 16..250, away from 127.0.0.1 and
// from the blocks other parallel test processes are likely to use.
func LoopbackIP() string {
	return fmt.Sprintf("127.%d.%d.%d", 16+rand.IntN(235), rand.IntN(256), 1+rand.IntN(254))
}

// ListenLoopback listens on a random LoopbackIP so that parallel test
// packages do not collide, retrying on the rare address already in use.
func ListenLoopback(t testing.TB) net.Listener {
	t.Helper()
	var lastErr error
	for range 20 {
		l, err := net.Listen("tcp", net.JoinHostPort(LoopbackIP(), "0"))
		if err == nil {
			return l
		}
		lastErr = err
	}
	t.Fatalf("no loopback address to listen on: %v", lastErr)
	return nil
}

// CanDial reports whether a TCP connection to host:port is accepted: an SSH
// endpoint a VPC tier's network ACL lets in, for instance.
func CanDial(host string, port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 2*time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// Serve hands every connection ln accepts to handle, each on a goroutine of
// its own, until the test ends and closes ln.
func Serve(t testing.TB, ln net.Listener, handle func(net.Conn)) {
	t.Helper()
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(conn)
		}
	}()
}
