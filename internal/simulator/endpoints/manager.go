package endpoints

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("endpoints: manager is closed")

// Manager owns every SSH forward and Kubernetes API listener of a simulator.
// It is safe for concurrent use.
//
// Stopping a listener (CloseForward, RemoveCluster) never waits for a request
// in flight, so the simulator may call it while holding a lock that Source
// methods take. Close does wait for every goroutine, so call it without such
// a lock.
type Manager struct {
	src Source

	mu       sync.Mutex
	closed   bool
	now      func() time.Time
	clusters map[string]*cluster
	forwards map[string]*forward // keyed by "ip:port"

	faults      faults
	sshSessions atomic.Int64
	sshConns    atomic.Int64

	wg   sync.WaitGroup // every goroutine the manager started
	live atomic.Int64   // how many of them are still running
}

// cluster is the per-cluster state: secrets for its whole life, and the
// Kubernetes API server once AddCluster gave it an address.
type cluster struct {
	creds *credentials
	api   *apiServer
}

// NewManager returns a Manager that reads nodes and keys from src.
func NewManager(src Source) *Manager {
	return &Manager{
		src:      src,
		now:      time.Now,
		clusters: make(map[string]*cluster),
		forwards: make(map[string]*forward),
	}
}

// SetClock replaces the clock used for node ages (AGE column), so that a
// simulator with a fake clock shows consistent ages. nil restores time.Now.
func (m *Manager) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	m.mu.Lock()
	m.now = now
	m.mu.Unlock()
}

func (m *Manager) clock() time.Time {
	m.mu.Lock()
	now := m.now
	m.mu.Unlock()
	return now()
}

// AddCluster creates the cluster's stable ed25519 host key and a CA + serving
// certificate (IP SAN = ip), and starts the Kubernetes API over TLS on ip:6443.
// Idempotent; calling it again with another ip moves the API to that address
// and keeps the cluster's keys.
func (m *Manager) AddCluster(clusterID, ip string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	c, err := m.clusterLocked(clusterID)
	if err != nil {
		return err
	}
	if c.api != nil && c.api.ip == ip {
		return nil
	}
	api, err := m.startAPI(clusterID, ip, c.creds)
	if err != nil {
		return err
	}
	old := c.api
	c.api = api
	if old != nil {
		old.stop()
	}
	return nil
}

// clusterLocked returns the cluster's state, creating its credentials on
// first use. Forwards may be opened before AddCluster, and both must agree on
// the host key. The caller holds m.mu.
func (m *Manager) clusterLocked(clusterID string) (*cluster, error) {
	if c, ok := m.clusters[clusterID]; ok {
		return c, nil
	}
	creds, err := newCredentials(clusterID)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", clusterID, err)
	}
	c := &cluster{creds: creds}
	m.clusters[clusterID] = c
	return c, nil
}

// RemoveCluster stops every listener of the cluster (API and SSH forwards).
// The cluster's keys are forgotten: adding it again creates new ones.
func (m *Manager) RemoveCluster(clusterID string) {
	m.mu.Lock()
	c := m.clusters[clusterID]
	delete(m.clusters, clusterID)
	var stopping []*forward
	for key, f := range m.forwards {
		if f.target().ClusterID == clusterID {
			stopping = append(stopping, f)
			delete(m.forwards, key)
		}
	}
	m.mu.Unlock()

	if c != nil && c.api != nil {
		c.api.stop()
	}
	for _, f := range stopping {
		f.stop()
	}
}

// HostKey is the cluster's SSH host public key (same for all its nodes), nil if unknown.
func (m *Manager) HostKey(clusterID string) ssh.PublicKey {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clusters[clusterID]
	if !ok {
		return nil
	}
	return c.creds.hostSigner.PublicKey()
}

// apiAddress returns the host:port of the cluster's Kubernetes API, if started.
func (m *Manager) apiAddress(clusterID string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clusters[clusterID]
	if !ok || c.api == nil {
		return "", false
	}
	return c.api.addr, true
}

// OpenForward starts a real SSH server on ip:publicPort reaching t (a
// port-forward rule to private port 22). Opening an address that is already
// open retargets it: new commands reach t (a target in another cluster
// restarts the server with that cluster's host key).
func (m *Manager) OpenForward(ip string, publicPort int, t Target) error {
	if publicPort <= 0 || publicPort > 65535 {
		return fmt.Errorf("invalid public port %d", publicPort)
	}
	addr := net.JoinHostPort(ip, strconv.Itoa(publicPort))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	c, err := m.clusterLocked(t.ClusterID)
	if err != nil {
		return err
	}
	if f, ok := m.forwards[addr]; ok {
		if f.target().ClusterID == t.ClusterID {
			f.setTarget(t)
			return nil
		}
		// Another cluster means another host key: serve afresh.
		delete(m.forwards, addr)
		f.stop()
	}
	f, err := m.startForward(addr, t, c.creds.hostSigner)
	if err != nil {
		return err
	}
	m.forwards[addr] = f
	return nil
}

// CloseForward stops the SSH server on ip:publicPort; its sessions are
// closed. Closing an address that is not open does nothing.
func (m *Manager) CloseForward(ip string, publicPort int) {
	addr := net.JoinHostPort(ip, strconv.Itoa(publicPort))
	m.mu.Lock()
	f, ok := m.forwards[addr]
	delete(m.forwards, addr)
	m.mu.Unlock()
	if ok {
		f.stop()
	}
}

// SetSSHLatency sets a delay added before each SSH command's output; 0 removes it.
func (m *Manager) SetSSHLatency(d time.Duration) { m.faults.setSSHLatency(d) }

// DropNextSSHCommands makes each of the next n SSH commands close its
// connection mid-output, without an exit status. n <= 0 cancels pending drops.
func (m *Manager) DropNextSSHCommands(n int) { m.faults.setSSHDrops(n) }

// FailNextKubeAPI makes the next n Kubernetes API requests, on any cluster,
// answer statusCode with a Status object. n <= 0 cancels pending failures.
func (m *Manager) FailNextKubeAPI(statusCode, n int) { m.faults.setKubeFailures(statusCode, n) }

// SSHSessions counts the SSH session channels opened so far.
func (m *Manager) SSHSessions() int64 { return m.sshSessions.Load() }

// SSHConnections counts the SSH connections that completed authentication so far.
func (m *Manager) SSHConnections() int64 { return m.sshConns.Load() }

// Close stops every listener and waits until every goroutine of the manager
// has returned. Later calls to AddCluster and OpenForward fail with ErrClosed.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	clusters := m.clusters
	forwards := m.forwards
	m.clusters = make(map[string]*cluster)
	m.forwards = make(map[string]*forward)
	m.mu.Unlock()

	for _, c := range clusters {
		if c.api != nil {
			c.api.stop()
		}
	}
	for _, f := range forwards {
		f.stop()
	}
	m.wg.Wait()
}

// goroutine runs fn on a goroutine that Close waits for.
func (m *Manager) goroutine(fn func()) {
	m.wg.Add(1)
	m.live.Add(1)
	go func() {
		defer m.wg.Done()
		defer m.live.Add(-1)
		fn()
	}()
}
