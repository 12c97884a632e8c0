package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

const (
	// nodeUser is the only account CKS nodes accept (CLUSTER_NODE_VM_USER).
	nodeUser = "cloud"
	// handshakeTimeout bounds a client that connects and then stays silent.
	handshakeTimeout = 10 * time.Second
	// sshServerVersion mirrors the banner of the CKS node template's sshd.
	sshServerVersion = "SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10"
)

// forward is one SSH server listening on a forwarded public port.
type forward struct {
	m      *Manager
	addr   string
	ln     net.Listener
	config *ssh.ServerConfig
	tgt    atomic.Pointer[Target]

	done     chan struct{} // closed by stop
	stopOnce sync.Once
	accepted chan struct{} // closed when the accept loop returned

	mu      sync.Mutex
	stopped bool
	conns   map[net.Conn]struct{}
}

// startForward listens on addr and serves SSH there. The caller holds m.mu.
func (m *Manager) startForward(addr string, t Target, hostKey ssh.Signer) (*forward, error) {
	ln, err := listenRetrying(addr)
	if err != nil {
		return nil, fmt.Errorf("open SSH forward: %w", err)
	}
	f := &forward{
		m:        m,
		addr:     addr,
		ln:       ln,
		done:     make(chan struct{}),
		accepted: make(chan struct{}),
		conns:    make(map[net.Conn]struct{}),
	}
	f.setTarget(t)
	f.config = &ssh.ServerConfig{
		ServerVersion:     sshServerVersion,
		PublicKeyCallback: f.authorize,
	}
	f.config.AddHostKey(hostKey)
	m.goroutine(f.acceptLoop)
	return f, nil
}

func (f *forward) target() Target { return *f.tgt.Load() }

func (f *forward) setTarget(t Target) { f.tgt.Store(&t) }

// authorize accepts user "cloud" with a key the cluster's nodes trust. The
// keys are read at each attempt because the model may change them.
func (f *forward) authorize(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	if meta.User() != nodeUser {
		return nil, errors.New("unknown user")
	}
	offered := key.Marshal()
	for _, allowed := range f.m.src.AuthorizedKeys(f.target().ClusterID) {
		if allowed != nil && bytes.Equal(allowed.Marshal(), offered) {
			return &ssh.Permissions{}, nil
		}
	}
	return nil, errors.New("public key not authorized")
}

func (f *forward) acceptLoop() {
	defer close(f.accepted)
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient failures such as EMFILE: back off instead of spinning.
			select {
			case <-f.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		if !f.track(conn) {
			_ = conn.Close()
			continue
		}
		f.m.goroutine(func() { f.serveConn(conn) })
	}
}

// track registers conn so stop can close it; false once stopped.
func (f *forward) track(conn net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	f.conns[conn] = struct{}{}
	return true
}

func (f *forward) untrack(conn net.Conn) {
	f.mu.Lock()
	delete(f.conns, conn)
	f.mu.Unlock()
}

// stop closes the listener and every connection, and waits for the accept
// loop only: connection goroutines end on their own once their conn is closed.
func (f *forward) stop() {
	f.stopOnce.Do(func() {
		close(f.done)
		_ = f.ln.Close()
		f.mu.Lock()
		f.stopped = true
		for conn := range f.conns {
			_ = conn.Close()
		}
		f.mu.Unlock()
	})
	<-f.accepted
}

func (f *forward) serveConn(conn net.Conn) {
	defer f.untrack(conn)
	defer func() { _ = conn.Close() }()

	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	sconn, chans, reqs, err := ssh.NewServerConn(conn, f.config)
	if err != nil {
		return
	}
	_ = conn.SetDeadline(time.Time{})
	f.m.sshConns.Add(1)

	connDone := make(chan struct{})
	f.m.goroutine(func() { ssh.DiscardRequests(reqs) })
	for newChan := range chans {
		if newChan.ChannelType() != "session" {
			_ = newChan.Reject(ssh.UnknownChannelType, "only session channels are supported")
			continue
		}
		ch, chReqs, err := newChan.Accept()
		if err != nil {
			continue
		}
		f.m.sshSessions.Add(1)
		f.m.goroutine(func() {
			s := &session{f: f, conn: sconn, ch: ch, connDone: connDone}
			s.serve(chReqs)
		})
	}
	close(connDone)
	_ = sconn.Close()
}

// listenRetrying listens on addr, retrying for up to about two seconds
// while the address is in use: under load a port that a forward just
// released is sometimes not bindable again at once.
func listenRetrying(addr string) (net.Listener, error) {
	var err error
	for attempt := range 12 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil || !errors.Is(err, syscall.EADDRINUSE) {
			return ln, err
		}
		time.Sleep(time.Duration(min(attempt+1, 6)) * 30 * time.Millisecond)
	}
	return nil, err
}
