package sharedreads

import (
	"context"
	"sync"
	"time"
)

// store holds the shared lists of one process: each list is asked for once
// while it is fresh, and every reader of it waits for that one call.
type store struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	// generation counts the writes: a list asked for before the latest
	// write began or ended is never served again.
	generation uint64
	flights    map[string]*flight
	// calls counts the lists asked of CloudStack, for tests.
	calls int
}

// flight is one list call, in flight or done.
type flight struct {
	done       chan struct{}
	generation uint64
	// answered is when the list came back: it serves readers ttl from then.
	answered time.Time
	val      any
	err      error
}

func newStore(ttl time.Duration) *store {
	return &store{ttl: ttl, now: time.Now, flights: map[string]*flight{}}
}

// get returns the list under key: the one in flight, or answered less than
// ttl ago, with no write since; else a new one from load. (The lifetime
// counts from the answer, not the question: a list slower than ttl would
// otherwise be asked again by every reader after it.) load runs
// detached from the caller's cancellation, because other readers may wait
// for it; each reader stops waiting when its own context ends.
func (s *store) get(ctx context.Context, key string, load func(context.Context) (any, error)) (any, error) {
	s.mu.Lock()
	f := s.flights[key]
	if f == nil || !s.usable(f) {
		f = &flight{done: make(chan struct{}), generation: s.generation}
		s.flights[key] = f
		s.calls++
		go s.run(context.WithoutCancel(ctx), key, f, load)
	}
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// usable tells whether a reader may still be given f. s.mu is held.
func (s *store) usable(f *flight) bool {
	if f.generation != s.generation {
		return false
	}
	select {
	case <-f.done:
		return f.err == nil && s.now().Sub(f.answered) < s.ttl
	default:
		return true // in flight: wait for it
	}
}

func (s *store) run(ctx context.Context, key string, f *flight, load func(context.Context) (any, error)) {
	val, err := load(ctx)
	if err != nil {
		val = nil // what a failed list got before it failed is no answer
	}
	s.mu.Lock()
	f.val, f.err, f.answered = val, err, s.now()
	if err != nil && s.flights[key] == f {
		delete(s.flights, key) // a failure is never shared with later readers
	}
	s.mu.Unlock()
	close(f.done)
}

// invalidate drops every list: what a write may have changed is read
// again by the next reader.
func (s *store) invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation++
	clear(s.flights)
}

// listCalls is how many lists were asked of CloudStack.
func (s *store) listCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}
