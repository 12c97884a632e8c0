package sshlister_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// lister_test.go shows that a wrong pinned key or known_hosts entry gives a
// *HostKeyError. These tests cover what that refusal must also guarantee:
// the impostor never sees an authentication attempt (so the cluster key pair
// is never offered to it), a key of another type is not a way around the
// pin, and the key is checked on every connection, not trusted on first use,
// against the simulator's real SSH endpoints.

// impostor is an SSH server with its own host keys that records every
// authentication attempt a client makes.
type impostor struct {
	listener     net.Listener
	authAttempts atomic.Int64
	handshakes   atomic.Int64
	wg           sync.WaitGroup
}

func startImpostor(t *testing.T, ln net.Listener, hostKeys ...ssh.Signer) *impostor {
	t.Helper()
	imp := &impostor{listener: ln}
	refuse := errors.New("impostor refuses everyone")
	config := &ssh.ServerConfig{
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) { return nil, refuse },
		PasswordCallback:  func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) { return nil, refuse },
		KeyboardInteractiveCallback: func(ssh.ConnMetadata, ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			return nil, refuse
		},
		// Called for every attempt, the "none" method included.
		AuthLogCallback: func(ssh.ConnMetadata, string, error) { imp.authAttempts.Add(1) },
	}
	for _, k := range hostKeys {
		config.AddHostKey(k)
	}
	imp.wg.Add(1)
	go func() {
		defer imp.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			imp.handshakes.Add(1)
			imp.wg.Add(1)
			go func() {
				defer imp.wg.Done()
				defer func() { _ = conn.Close() }()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				if c, _, _, err := ssh.NewServerConn(conn, config); err == nil {
					_ = c.Close()
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		imp.wg.Wait()
	})
	return imp
}

func (imp *impostor) address() string { return imp.listener.Addr().String() }

// listerFor returns a lister for the impostor's address with the cluster
// key pair, verifying the host with mutate's settings.
func listerFor(t *testing.T, address string, mutate func(*sshlister.Config)) *sshlister.Lister {
	t.Helper()
	host, port := splitAddr(t, address)
	keyPEM, _ := testutil.NewKey(t)
	cfg := sshlister.Config{Host: host, Port: port, PrivateKey: keyPEM, HandshakeTimeout: 10 * time.Second}
	mutate(&cfg)
	return mustNew(t, cfg)
}

func newECDSASigner(t *testing.T) ssh.Signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

func TestHostKeyMismatchNeverAuthenticates(t *testing.T) {
	t.Parallel()
	expected := testutil.NewSigner(t).PublicKey() // the real cluster's key
	imp := startImpostor(t, testutil.ListenLoopback(t), testutil.NewSigner(t), newECDSASigner(t))

	cases := map[string]func(*sshlister.Config){
		"pinned host key": func(c *sshlister.Config) { c.HostKey = string(ssh.MarshalAuthorizedKey(expected)) },
		"known_hosts entry": func(c *sshlister.Config) {
			c.KnownHosts = knownhosts.Line([]string{imp.address()}, expected)
		},
		"known_hosts without this host": func(c *sshlister.Config) {
			c.KnownHosts = knownhosts.Line([]string{"10.1.1.1"}, expected)
		},
	}
	for name, mutate := range cases {
		_, err := listerFor(t, imp.address(), mutate).ListNodes(t.Context())
		var hostKeyErr *sshlister.HostKeyError
		if !errors.As(err, &hostKeyErr) {
			t.Errorf("%s: error = %v, want a *HostKeyError", name, err)
			continue
		}
		if hostKeyErr.Address != imp.address() {
			t.Errorf("%s: HostKeyError.Address = %q, want %q", name, hostKeyErr.Address, imp.address())
		}
	}
	if n := imp.handshakes.Load(); n != int64(len(cases)) {
		t.Fatalf("impostor saw %d connections, want %d", n, len(cases))
	}
	if n := imp.authAttempts.Load(); n != 0 {
		t.Fatalf("the client attempted authentication %d times with a server whose host key it refused", n)
	}
}

// A pinned ed25519 key cannot be bypassed by a server that offers only a
// key of another type: negotiation fails instead of falling back.
func TestHostKeyOfAnotherTypeIsRefused(t *testing.T) {
	t.Parallel()
	expected := testutil.NewSigner(t).PublicKey()
	imp := startImpostor(t, testutil.ListenLoopback(t), newECDSASigner(t))

	_, err := listerFor(t, imp.address(), func(c *sshlister.Config) {
		c.HostKey = string(ssh.MarshalAuthorizedKey(expected))
	}).ListNodes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "host key") {
		t.Fatalf("error = %v, want a host key negotiation failure", err)
	}
	if n := imp.authAttempts.Load(); n != 0 {
		t.Fatalf("the client attempted authentication %d times", n)
	}
}

// simSource is the model side of the simulator's endpoints: nodes and the
// authorized key of each cluster.
type simSource struct {
	nodes map[string][]endpoints.Node
	keys  map[string][]ssh.PublicKey
}

func (s simSource) KubeNodes(clusterID string) ([]endpoints.Node, bool) {
	n, ok := s.nodes[clusterID]
	return n, ok
}

func (s simSource) AuthorizedKeys(clusterID string) []ssh.PublicKey { return s.keys[clusterID] }

// The public IP of a deleted cluster is handed to another cluster, whose
// control node then answers on ip:2222. A lister pinned to the first
// cluster's host key, which has already listed nodes there, refuses the new
// server although the same key pair would be authorized by it.
func TestHostKeyCheckedOnEveryConnectionAgainstSimulatorEndpoints(t *testing.T) {
	t.Parallel()
	keyPEM, clientSigner := testutil.NewKey(t)
	created := time.Now().Add(-time.Hour)
	src := simSource{
		nodes: map[string][]endpoints.Node{
			"cluster-a": {{Name: "a-control-19a2b3c4d5e", Ready: true, Control: true, Version: "v1.33.13", Created: created}},
			"cluster-b": {{Name: "b-control-19a2b3c4d5f", Ready: true, Control: true, Version: "v1.33.13", Created: created}},
		},
		keys: map[string][]ssh.PublicKey{
			"cluster-a": {clientSigner.PublicKey()},
			"cluster-b": {clientSigner.PublicKey()},
		},
	}
	m := endpoints.NewManager(src)
	t.Cleanup(m.Close)
	ip := openOnFreeLoopback(t, m, "cluster-a")
	hostKeyA := m.HostKey("cluster-a")
	if hostKeyA == nil {
		t.Fatal("cluster A has no host key")
	}

	address := net.JoinHostPort(ip, "2222")
	listers := map[string]*sshlister.Lister{
		"pinned": mustNew(t, sshlister.Config{Host: ip, Port: 2222, PrivateKey: keyPEM,
			HostKey: string(ssh.MarshalAuthorizedKey(hostKeyA))}),
		"known_hosts": mustNew(t, sshlister.Config{Host: ip, Port: 2222, PrivateKey: keyPEM,
			KnownHosts: knownhosts.Line([]string{address}, hostKeyA)}),
	}
	for name, l := range listers {
		got, err := l.ListNodes(t.Context())
		if err != nil || len(got) != 1 || got[0].Name != "a-control-19a2b3c4d5e" {
			t.Fatalf("%s: cluster A's nodes = %v, %v", name, got, err)
		}
	}
	sessionsBefore := m.SSHSessions()

	// The address now reaches cluster B, with B's host key.
	if err := m.OpenForward(ip, 2222, endpoints.Target{ClusterID: "cluster-b", VMID: "vm-b1", VMName: "b-control-19a2b3c4d5f", Control: true}); err != nil {
		t.Fatal(err)
	}
	hostKeyB := m.HostKey("cluster-b")
	if hostKeyB == nil || ssh.FingerprintSHA256(hostKeyA) == ssh.FingerprintSHA256(hostKeyB) {
		t.Fatalf("the simulator must give each cluster its own host key (a=%s, b=%v)", ssh.FingerprintSHA256(hostKeyA), hostKeyB)
	}
	for name, l := range listers {
		got, err := l.ListNodes(t.Context())
		var hostKeyErr *sshlister.HostKeyError
		if !errors.As(err, &hostKeyErr) {
			t.Fatalf("%s: after the address moved to cluster B: nodes %v, error %v; want a *HostKeyError", name, got, err)
		}
		if hostKeyErr.Got != ssh.FingerprintSHA256(hostKeyB) ||
			len(hostKeyErr.Expected) != 1 || hostKeyErr.Expected[0] != ssh.FingerprintSHA256(hostKeyA) {
			t.Errorf("%s: HostKeyError = %+v, want got %s, expected %s", name, hostKeyErr,
				ssh.FingerprintSHA256(hostKeyB), ssh.FingerprintSHA256(hostKeyA))
		}
	}
	if n := m.SSHSessions() - sessionsBefore; n != 0 {
		t.Fatalf("%d sessions were opened on cluster B's node", n)
	}
}

// openOnFreeLoopback adds the cluster on a random 127.A.B.C address and
// opens its control node's SSH forward on port 2222 there.
func openOnFreeLoopback(t *testing.T, m *endpoints.Manager, clusterID string) string {
	t.Helper()
	var lastErr error
	for range 20 {
		ln := testutil.ListenLoopback(t) // proves the address is usable, then frees it
		host, _ := splitAddr(t, ln.Addr().String())
		_ = ln.Close()
		err := m.AddCluster(clusterID, host)
		if err == nil {
			err = m.OpenForward(host, 2222, endpoints.Target{ClusterID: clusterID, VMID: "vm-a1", VMName: "a-control-19a2b3c4d5e", Control: true})
		}
		if err == nil {
			return host
		}
		m.RemoveCluster(clusterID)
		lastErr = err
	}
	t.Fatal(fmt.Errorf("no free loopback address for the simulator endpoints: %w", lastErr))
	return ""
}
