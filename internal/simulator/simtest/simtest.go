// Package simtest starts the embedded CloudStack simulator for tests and
// benchmarks and drives it as its administrator would: a client of the
// admin account, clusters created and scaled through the plain API (as
// another client, the UI or cmk would), and lookups of their VMs, rules and
// SSH host keys.
package simtest

import (
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Env is one running simulator and a client of its admin account. An Env
// made by Start belongs to the test that started it: its helpers fail that
// test. An Env made by Launch has no test, so only CreateCluster, which
// returns its error, works on it.
type Env struct {
	Sim  *simulator.Simulator
	Info simulator.Info
	// API is a client of the admin account.
	API *cloudstack.Client
	// KeyFile holds the seeded key pair's private key (mode 0600); only
	// Start writes it.
	KeyFile string
	// CAFile holds the certificate of the TLS endpoint (WithTLS).
	CAFile string

	t       testing.TB
	closers []func()
}

type config struct {
	sim   simulator.Options
	retry cloudstack.RetryPolicy
	tls   bool
}

// Option changes the simulator a test starts.
type Option func(*config)

// WithProfile selects the behaviour profile, one of simulator.Profiles().
func WithProfile(p string) Option { return func(c *config) { c.sim.Profile = p } }

// WithJobDuration sets how long each async job takes.
func WithJobDuration(d time.Duration) Option { return func(c *config) { c.sim.JobDuration = d } }

// WithJobQueueDelay keeps each async job in the executor's queue for d
// before it runs, as on a busy management server.
func WithJobQueueDelay(d time.Duration) Option { return func(c *config) { c.sim.JobQueueDelay = d } }

// WithClock drives the simulator's clock (VM names, created times, scanner).
func WithClock(clock func() time.Time) Option { return func(c *config) { c.sim.Clock = clock } }

// WithClusterAge runs the simulator's clock age behind, so that the VMs it
// creates are already that old (past a drift grace period, for instance).
func WithClusterAge(age time.Duration) Option {
	return WithClock(func() time.Time { return time.Now().Add(-age) })
}

// WithListOrder fixes the order every list comes back in. Without it the
// order is simulator.ListOrderFromEnv(), which make test-list-orders sets.
func WithListOrder(order string) Option { return func(c *config) { c.sim.ListOrder = order } }

// WithOrderedList keeps the environment's list order unless it is shuffled,
// which hides the server's order: for checks of an untouched cluster in
// CKS's own etcd rule layout, whose verdict reads that order.
func WithOrderedList() Option { return WithListOrder(simulator.OrderedListOrderFromEnv()) }

// WithoutRetries makes the admin client try every call once, so that a test
// sees each failure the simulator injects. By default it retries transient
// errors as the provider does, only faster.
func WithoutRetries() Option {
	return func(c *config) { c.retry = cloudstack.RetryPolicy{MaxAttempts: 1} }
}

// WithTLS serves the API over TLS with a self-signed certificate, written
// to Env.CAFile; the admin client trusts it through that file.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithScannerTimer runs the state scanner every d, as a management server
// does, instead of only when the test calls Sim.RunScanner.
func WithScannerTimer(d time.Duration) Option {
	return func(c *config) { c.sim.DisableScanner, c.sim.ScannerInterval = false, d }
}

// WithOptions sets any other simulator option.
func WithOptions(f func(*simulator.Options)) Option { return func(c *config) { f(&c.sim) } }

// testJobQueueDelay is how long the jobs of a test's simulator wait in the
// queue, so that no test can pass only because a job's first change, such
// as a cluster's move to Scaling, came before the client's next read.
const testJobQueueDelay = 50 * time.Millisecond

// testISODownloadDuration is how long the image store of a test simulator
// takes to download a Kubernetes version's ISO: long enough that a client
// sees it download, short enough for a test.
const testISODownloadDuration = time.Second

// WithISODownloadDuration sets how long ISO downloads take.
func WithISODownloadDuration(d time.Duration) Option {
	return func(c *config) { c.sim.ISODownloadDuration = d }
}

// Start starts a simulator on a free loopback port, writes the key pair's
// private key to a file and closes the simulator when the test ends. Its
// jobs wait testJobQueueDelay in the queue unless WithJobQueueDelay says
// otherwise.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	e, err := launch(newConfig(append([]Option{WithJobQueueDelay(testJobQueueDelay)}, opts...)), t.TempDir())
	if e != nil {
		t.Cleanup(e.Close)
	}
	if err != nil {
		t.Fatalf("starting the simulator: %v", err)
	}
	e.t = t
	return e
}

// Launch is Start for callers without a test, such as the benchmarks: it
// writes no file, so it has neither KeyFile nor TLS, and the caller closes
// the Env.
func Launch(opts ...Option) (*Env, error) {
	cfg := newConfig(opts)
	if cfg.tls {
		return nil, errors.New("simtest: WithTLS needs Start")
	}
	e, err := launch(cfg, "")
	if err != nil && e != nil {
		e.Close()
		return nil, err
	}
	return e, err
}

// T is the test the Env was started for (nil for an Env made by Launch),
// so that a package's helpers on Env need not keep it again.
func (e *Env) T() testing.TB { return e.t }

// Close stops the simulator and its TLS endpoint.
func (e *Env) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	e.closers = nil
}

func newConfig(opts []Option) config {
	cfg := config{
		// The state scanner's timer is off: a test runs the scanner
		// (Sim.RunScanner) where it models the time that passes on a real
		// server, so a timer firing between two steps cannot change what
		// the second one asserts. WithScannerTimer turns it back on.
		sim: simulator.Options{ListOrder: simulator.ListOrderFromEnv(), DisableScanner: true,
			ISODownloadDuration: testISODownloadDuration},
		retry: cloudstack.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// launch starts the simulator; with a dir it also writes the key file and,
// for TLS, the CA file there. The Env it returns with an error needs Close.
func launch(cfg config, dir string) (*Env, error) {
	sim, err := simulator.New(cfg.sim)
	if err != nil {
		return nil, err
	}
	e := &Env{Sim: sim, closers: []func(){func() { _ = sim.Close() }}}
	if cfg.tls {
		srv := httptest.NewUnstartedServer(sim.Handler())
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are what TLS tests cause
		srv.StartTLS()
		e.closers = append(e.closers, srv.Close)
		e.CAFile = filepath.Join(dir, "simulator-ca.pem")
		caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(e.CAFile, caPEM, 0o600); err != nil {
			return e, err
		}
		e.Info = sim.Info()
		e.Info.APIURL = srv.URL + "/client/api"
	} else {
		if err := sim.Start("127.0.0.1:0"); err != nil {
			return e, err
		}
		e.Info = sim.Info()
	}
	if dir != "" {
		e.KeyFile = filepath.Join(dir, "cks-key")
		if err := os.WriteFile(e.KeyFile, sim.PrivateKeyPEM(), 0o600); err != nil {
			return e, err
		}
		sim.SetPrivateKeyFile(e.KeyFile)
		e.Info.PrivateKeyFile = e.KeyFile
	}
	e.API, err = cloudstack.New(cloudstack.Config{APIURL: e.Info.APIURL, APIKey: e.Info.APIKey, SecretKey: e.Info.SecretKey,
		CAFile: e.CAFile, Retry: cfg.retry})
	return e, err
}

// WithExperimentalFeatures turns on
// cloud.kubernetes.cluster.experimental.features.enabled, which a private
// docker registry needs.
func WithExperimentalFeatures() Option {
	return func(c *config) { c.sim.ExperimentalFeatures = true }
}
