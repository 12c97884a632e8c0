package core

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/faults"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/profiles"
)

// Endpoints is the part of *endpoints.Manager the areas drive: the SSH
// servers and Kubernetes APIs behind each cluster's addresses.
type Endpoints interface {
	AddCluster(clusterID, ip string) error
	RemoveCluster(clusterID string)
	HostKey(clusterID string) ssh.PublicKey
	Kubeconfig(clusterID, clusterName string) (string, error)
	OpenForward(ip string, publicPort int, t endpoints.Target) error
	CloseForward(ip string, publicPort int)
	SetSSHLatency(d time.Duration)
	DropNextSSHCommands(n int)
	FailNextKubeAPI(statusCode, n int)
	SSHSessions() int64
	SetClock(now func() time.Time)
	Close()
}

// Runtime is one management server's shared state: the model and the lock
// that guards it, the random sources, the clock, the job runner, the
// injected faults and call counters, the behaviour profile and the network
// endpoints. Every area of the simulator works through it.
type Runtime struct {
	// Opts are the simulator's options, defaults applied. Callers hold the
	// lock to change them (SetJobDuration).
	Opts Options
	// Profile is the CloudStack build the workers behave as.
	Profile profiles.Profile

	// DB is the model. Callers hold the lock to read or change it.
	DB *model.DB
	// RNG draws ids, keys and secrets. Callers hold the lock.
	RNG *rand.Rand
	// TwinRNG is findByNetworkAndPorts' ORDER BY RAND(), apart from RNG so
	// that the pick never changes the ids a seeded simulator hands out.
	TwinRNG *rand.Rand
	// orderRNG shuffles lists (ListOrderShuffled), apart from RNG.
	orderRNG *rand.Rand

	Faults   *faults.Set
	Counters *faults.Counters
	// EP are the network endpoints. Endpoint calls are made while holding
	// the lock; the endpoints read the model only through the lock-free
	// view published on unlock, so they never wait on it.
	EP Endpoints

	mu sync.Mutex
	// publish runs on every unlock, with the lock still held.
	publish func()

	clockOffset atomic.Int64 // nanoseconds added to the clock by the admin API

	closing   chan struct{}
	closeOnce sync.Once
	jobs      sync.WaitGroup
}

// New returns the runtime of a simulator with an empty model. Its random
// sources follow opts.Seed.
func New(opts Options, prof profiles.Profile) *Runtime {
	return &Runtime{
		Opts:     opts,
		Profile:  prof,
		DB:       model.NewDB(),
		RNG:      NewRNG(opts.Seed),
		orderRNG: derivedRNG(opts.Seed, 0x6a09e667f3bcc909),
		TwinRNG:  derivedRNG(opts.Seed, 0xbb67ae8584caa73b),
		Faults:   faults.New(),
		Counters: faults.NewCounters(),
		closing:  make(chan struct{}),
	}
}

// OnUnlock sets what every unlock runs before it releases the lock: the
// simulator republishes the endpoints' view of the model there.
func (r *Runtime) OnUnlock(publish func()) { r.publish = publish }

// Logf writes one of the simulator's log lines (what the management server
// would log). Secrets are never logged.
func (r *Runtime) Logf(format string, args ...any) {
	if r.Opts.Logf != nil {
		r.Opts.Logf(format, args...)
	}
}

// Now is the simulated wall clock.
func (r *Runtime) Now() time.Time {
	var t time.Time
	if r.Opts.Clock != nil {
		t = r.Opts.Clock()
	} else {
		t = time.Now()
	}
	return t.Add(time.Duration(r.clockOffset.Load())).UTC().Truncate(time.Millisecond)
}

// AdvanceClock moves the simulated clock forward by d.
func (r *Runtime) AdvanceClock(d time.Duration) { r.clockOffset.Add(int64(d)) }

// Lock and Unlock guard the model; Unlock republishes the view the network
// endpoints read.
func (r *Runtime) Lock() { r.mu.Lock() }

// Unlock runs the OnUnlock hook, then releases the lock.
func (r *Runtime) Unlock() {
	if r.publish != nil {
		r.publish()
	}
	r.mu.Unlock()
}

// Closing is closed when the simulator starts shutting down.
func (r *Runtime) Closing() <-chan struct{} { return r.closing }

// BeginShutdown closes Closing: running jobs end at their next step and
// no queued job starts.
func (r *Runtime) BeginShutdown() { r.closeOnce.Do(func() { close(r.closing) }) }

// Go runs fn in the background as part of a job (a job, an ISO download),
// which WaitJobs waits for.
func (r *Runtime) Go(fn func()) {
	r.jobs.Add(1)
	go func() {
		defer r.jobs.Done()
		fn()
	}()
}

// WaitJobs waits for every job started with Go to return.
func (r *Runtime) WaitJobs() { r.jobs.Wait() }
