package sshlister_test

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

// exec is one exec request as the test server's handler sees it.
type exec struct {
	command string
	channel ssh.Channel
	conn    *ssh.ServerConn
}

// execHandler serves one command. It returns the exit status, or sendExit
// false to end the channel without reporting one.
type execHandler func(e exec) (status uint32, sendExit bool)

// testServer is a minimal SSH server: public-key auth for user "cloud",
// "session" channels and "exec" requests, on a random 127.A.B.C loopback address.
type testServer struct {
	host       string
	port       int
	hostSigner ssh.Signer
	clientPEM  []byte
	handler    execHandler

	conns    atomic.Int64
	sessions atomic.Int64
	mu       sync.Mutex
	commands []string

	listener net.Listener
	wg       sync.WaitGroup
}

func newTestServer(t *testing.T, handler execHandler) *testServer {
	t.Helper()
	hostSigner := testutil.NewSigner(t)
	clientPEM, clientSigner := testutil.NewKey(t)
	s := &testServer{hostSigner: hostSigner, clientPEM: clientPEM, handler: handler}
	s.listener = testutil.ListenLoopback(t)
	addr, ok := s.listener.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listener address %v is not TCP", s.listener.Addr())
	}
	s.host, s.port = addr.IP.String(), addr.Port

	authorized := clientSigner.PublicKey().Marshal()
	config := &ssh.ServerConfig{
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if meta.User() != "cloud" || string(key.Marshal()) != string(authorized) {
				return nil, fmt.Errorf("user %q with key %s is not authorized", meta.User(), ssh.FingerprintSHA256(key))
			}
			return &ssh.Permissions{}, nil
		},
	}
	config.AddHostKey(hostSigner)

	s.wg.Add(1)
	go s.acceptLoop(config)
	t.Cleanup(func() {
		_ = s.listener.Close()
		s.wg.Wait()
	})
	return s
}

func (s *testServer) acceptLoop(config *ssh.ServerConfig) {
	defer s.wg.Done()
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(conn, config)
		}()
	}
}

func (s *testServer) serveConn(raw net.Conn, config *ssh.ServerConfig) {
	defer func() { _ = raw.Close() }()
	conn, chans, reqs, err := ssh.NewServerConn(raw, config)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		s.sessions.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveSession(conn, ch, chReqs)
		}()
	}
}

func (s *testServer) serveSession(conn *ssh.ServerConn, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer func() { _ = ch.Close() }()
	for req := range reqs {
		if req.Type != "exec" {
			_ = req.Reply(false, nil)
			continue
		}
		var payload struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &payload); err != nil {
			_ = req.Reply(false, nil)
			continue
		}
		_ = req.Reply(true, nil)
		s.mu.Lock()
		s.commands = append(s.commands, payload.Command)
		s.mu.Unlock()
		go ssh.DiscardRequests(reqs)
		status, sendExit := s.handler(exec{command: payload.Command, channel: ch, conn: conn})
		if sendExit {
			_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
		}
		return
	}
}

func (s *testServer) recordedCommands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

func (s *testServer) address() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// config returns a lister configuration that pins the server's host key.
func (s *testServer) config() sshlister.Config {
	return sshlister.Config{
		Host:       s.host,
		Port:       s.port,
		PrivateKey: s.clientPEM,
		HostKey:    string(ssh.MarshalAuthorizedKey(s.hostSigner.PublicKey())),
	}
}

// replyWith returns a handler that prints stdout and stderr and exits with status.
func replyWith(stdout, stderr string, status uint32) execHandler {
	return func(e exec) (uint32, bool) {
		_, errOut := e.channel.Write([]byte(stdout))
		_, errErr := e.channel.Stderr().Write([]byte(stderr))
		if errors.Join(errOut, errErr) != nil {
			return 0, false
		}
		return status, true
	}
}
