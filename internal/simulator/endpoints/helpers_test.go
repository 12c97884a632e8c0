package endpoints

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
	"golang.org/x/crypto/ssh"
)

// fakeSource is an in-memory Source.
type fakeSource struct {
	mu    sync.Mutex
	nodes map[string][]Node
	keys  map[string][]ssh.PublicKey
}

func newFakeSource() *fakeSource {
	return &fakeSource{nodes: map[string][]Node{}, keys: map[string][]ssh.PublicKey{}}
}

func (s *fakeSource) KubeNodes(clusterID string) ([]Node, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes, ok := s.nodes[clusterID]
	return append([]Node(nil), nodes...), ok
}

func (s *fakeSource) AuthorizedKeys(clusterID string) []ssh.PublicKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ssh.PublicKey(nil), s.keys[clusterID]...)
}

func (s *fakeSource) setNodes(clusterID string, nodes ...Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes[clusterID] = nodes
}

func (s *fakeSource) addKey(clusterID string, key ssh.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[clusterID] = append(s.keys[clusterID], key)
}

// testNow is the fake clock of every test manager, so AGE columns are exact.
var testNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// sampleNodes is a cluster with a control node, a Ready worker and a
// NotReady worker, created 2 days, 3 hours and 45 seconds before testNow.
func sampleNodes() []Node {
	return []Node{
		{Name: "test1-node-18fe761a001", Ready: false, Version: "v1.33.13", Created: testNow.Add(-45 * time.Second), InternalIP: "10.1.1.12"},
		{Name: "test1-control-18fe761907b", Ready: true, Control: true, Version: "v1.33.13", Created: testNow.Add(-48 * time.Hour), InternalIP: "10.1.1.10"},
		{Name: "test1-node-18fe7619a3c", Ready: true, Version: "v1.33.13", Created: testNow.Add(-3 * time.Hour), InternalIP: "10.1.1.11"},
	}
}

func newTestManager(t *testing.T, src Source) *Manager {
	t.Helper()
	m := NewManager(src)
	m.SetClock(func() time.Time { return testNow })
	t.Cleanup(m.Close)
	return m
}

// withFreeIP runs setup on random loopback addresses until it does not fail
// with "address already in use", so parallel test processes never collide.
func withFreeIP(t *testing.T, setup func(ip string) error) string {
	t.Helper()
	for range 50 {
		ip := testutil.LoopbackIP()
		err := setup(ip)
		if err == nil {
			return ip
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("setup on %s: %v", ip, err)
		}
	}
	t.Fatal("no free loopback address found")
	return ""
}

// testCluster is a cluster with its API started and SSH forwards 2222 (the
// control node) and 2223 (a worker) open on its IP.
type testCluster struct {
	id  string
	ip  string
	src *fakeSource
	m   *Manager
	key ssh.Signer // authorized for user cloud
}

const (
	controlPort = 2222
	workerPort  = 2223
)

func newTestCluster(t *testing.T) *testCluster {
	t.Helper()
	src := newFakeSource()
	return addTestCluster(t, newTestManager(t, src), src, "cluster-"+strconv.FormatInt(time.Now().UnixNano(), 36))
}

func addTestCluster(t *testing.T, m *Manager, src *fakeSource, id string) *testCluster {
	t.Helper()
	c := &testCluster{id: id, src: src, m: m, key: testutil.NewSigner(t)}
	src.setNodes(id, sampleNodes()...)
	src.addKey(id, c.key.PublicKey())
	c.ip = withFreeIP(t, func(ip string) error {
		if err := m.AddCluster(id, ip); err != nil {
			return err
		}
		if err := m.OpenForward(ip, controlPort, Target{ClusterID: id, VMID: "vm-1", VMName: "test1-control-18fe761907b", Control: true}); err != nil {
			m.RemoveCluster(id)
			return err
		}
		if err := m.OpenForward(ip, workerPort, Target{ClusterID: id, VMID: "vm-2", VMName: "test1-node-18fe7619a3c"}); err != nil {
			m.RemoveCluster(id)
			return err
		}
		return nil
	})
	return c
}

func (c *testCluster) addr(port int) string {
	return net.JoinHostPort(c.ip, strconv.Itoa(port))
}

// dial connects as user with signer, pinning the cluster's host key.
func (c *testCluster) dial(port int, user string, signer ssh.Signer) (*ssh.Client, error) {
	return ssh.Dial("tcp", c.addr(port), &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(c.m.HostKey(c.id)),
		Timeout:         10 * time.Second,
	})
}

func (c *testCluster) client(t *testing.T, port int) *ssh.Client {
	t.Helper()
	client, err := c.dial(port, "cloud", c.key)
	if err != nil {
		t.Fatalf("ssh to %s: %v", c.addr(port), err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// execResult is what one SSH exec returned.
type execResult struct {
	stdout, stderr string
	status         int
	err            error // transport errors and *ssh.ExitMissingError
}

func run(t *testing.T, client *ssh.Client, command string) execResult {
	t.Helper()
	s, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer func() { _ = s.Close() }()
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr = &stdout, &stderr
	err = s.Run(command)
	res := execResult{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *ssh.ExitError
	if errors.As(err, &exitErr) {
		res.status = exitErr.ExitStatus()
	} else {
		res.err = err
	}
	return res
}

// exec runs command on a fresh connection to port.
func (c *testCluster) exec(t *testing.T, port int, command string) execResult {
	t.Helper()
	return run(t, c.client(t, port), command)
}

// eventually polls cond until it holds or the test's patience runs out; it
// checks outcomes, never how long they took.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// serverAt reports whether a server still answers on addr, and how the
// last dial or exchange ended. A listener a test stopped is closed before
// Close, CloseForward or RemoveCluster returns, yet a dial can still connect
// for a moment: kubeapi_test.go runs kubectl from parallel tests, and a child
// between fork and exec holds a copy of every descriptor of this process,
// the closed listener's included, until its exec closes it. Nobody accepts
// on that copy, so such a connection is reset without a byte, and a dial
// soon after is refused. A server of ours answers the TLS client hello sent
// here: the Kubernetes API with its handshake, an SSH forward with its
// version line (which is no TLS record). So the address has no server only
// once a dial is refused; a connection held open in silence, or connections
// that keep being taken and dropped, count as a server.
func serverAt(addr string) (bool, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return false, err
		}
		if err == nil {
			err = helloExchange(conn, deadline)
			var notTLS tls.RecordHeaderError
			if err == nil || errors.As(err, &notTLS) {
				return true, err // it answered
			}
		}
		if (!errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF)) || time.Now().After(deadline) {
			return true, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// helloExchange sends a TLS client hello on conn and closes it.
func helloExchange(conn net.Conn, deadline time.Time) error {
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(deadline)
	// Only whether something answers matters, not who.
	return tls.Client(conn, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}).Handshake() //nolint:gosec // see serverAt
}

// expectNoServer fails the test when a server still answers on addr.
func expectNoServer(t *testing.T, addr, after string) {
	t.Helper()
	if served, err := serverAt(addr); served {
		t.Errorf("%s still answers after %s (%v), want no server", addr, after, err)
	}
}

// TestServerAtTellsAForkedCopyFromAServer holds a copy of a closed
// listener's descriptor, as a forked child does until its exec, and checks
// that serverAt connects yet sees no server once the copy is closed, while
// a listener that is still served counts as one, whether it keeps its
// connections in silence or drops them.
func TestServerAtTellsAForkedCopyFromAServer(t *testing.T) {
	t.Parallel()
	ln, ok := testutil.ListenLoopback(t).(*net.TCPListener)
	if !ok {
		t.Fatal("ListenLoopback gave no TCP listener")
	}
	file, err := ln.File() // a second descriptor of the same socket
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	if conn, err := net.Dial("tcp", addr); err != nil {
		t.Fatalf("the copy must still take connections: %v", err)
	} else {
		_ = conn.Close()
	}
	time.AfterFunc(100*time.Millisecond, func() { _ = file.Close() })
	if served, err := serverAt(addr); served {
		t.Fatalf("serverAt saw a server behind a forked copy of a closed listener (%v)", err)
	}

	silent := acceptOnLoopback(t, func(conn net.Conn) { _, _ = io.Copy(io.Discard, conn) })
	if served, _ := serverAt(silent); !served {
		t.Fatal("serverAt missed a listener that accepts in silence")
	}
	dropping := acceptOnLoopback(t, func(conn net.Conn) { _ = conn.Close() })
	if served, _ := serverAt(dropping); !served {
		t.Fatal("serverAt missed a listener that drops every connection it takes")
	}
}

// acceptOnLoopback listens on a loopback address until the test ends and
// hands every connection it accepts to handle; it returns the address.
func acceptOnLoopback(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln := testutil.ListenLoopback(t)
	testutil.Serve(t, ln, handle)
	return ln.Addr().String()
}
