// Package faults holds what the simulator is told to get wrong: injected
// API failures, lost answers, latencies and job step failures, and the call
// counters the admin API reports. The simulator's request handler and job
// runner consult it; it imports only package wire.
package faults

import (
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Set holds injected API failures, lost answers, latencies and job step
// failures; every method is safe for concurrent use.
type Set struct {
	mu      sync.Mutex
	apiFail map[string]*apiFault     // lowercased command
	lost    map[string]int           // lowercased command: answers to lose
	latency map[string]time.Duration // lowercased command, or "*"
	jobFail []*jobFault
	after   map[string]func() // lowercased command: run once after its next call
}

type apiFault struct {
	remaining int
	code      int
	text      string
}

type jobFault struct {
	op, step  string
	remaining int
	message   string
}

// New returns an empty set of faults.
func New() *Set {
	return &Set{apiFail: map[string]*apiFault{}, lost: map[string]int{}, latency: map[string]time.Duration{}, after: map[string]func(){}}
}

// SetAfterCall runs fn once, after the next call of command ran and before
// its answer is sent; nil clears it.
func (f *Set) SetAfterCall(command string, fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fn == nil {
		delete(f.after, strings.ToLower(command))
		return
	}
	f.after[strings.ToLower(command)] = fn
}

// TakeAfterCall returns what is to run after this call of command, once,
// or nil.
func (f *Set) TakeAfterCall(command string) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(command)
	fn := f.after[key]
	delete(f.after, key)
	return fn
}

// SetLostResponses loses the answers to the next n calls of command (the
// call still runs); n <= 0 clears it.
func (f *Set) SetLostResponses(command string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		delete(f.lost, strings.ToLower(command))
		return
	}
	f.lost[strings.ToLower(command)] = n
}

// TakeLostResponse reports whether the answer to this call of command is
// to be lost.
func (f *Set) TakeLostResponse(command string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(command)
	if f.lost[key] <= 0 {
		return false
	}
	f.lost[key]--
	if f.lost[key] == 0 {
		delete(f.lost, key)
	}
	return true
}

// SetAPIFailure fails the next n calls of command with code and text
// before they run; n <= 0 clears it.
func (f *Set) SetAPIFailure(command string, n, code int, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		delete(f.apiFail, strings.ToLower(command))
		return
	}
	f.apiFail[strings.ToLower(command)] = &apiFault{remaining: n, code: code, text: text}
}

// TakeAPIFailure returns the error this call of command fails with, if
// one is injected.
func (f *Set) TakeAPIFailure(command string) (*wire.APIError, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	af := f.apiFail[strings.ToLower(command)]
	if af == nil || af.remaining <= 0 {
		return nil, false
	}
	af.remaining--
	if af.remaining == 0 {
		delete(f.apiFail, strings.ToLower(command))
	}
	return &wire.APIError{Code: af.code, CSCode: wire.CSErrorFor(af.code), Text: af.text}, true
}

// SetLatency delays every call of command (every command when it is "")
// by d; d <= 0 clears it.
func (f *Set) SetLatency(command string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strings.ToLower(command)
	if key == "" {
		key = "*"
	}
	if d <= 0 {
		delete(f.latency, key)
		return
	}
	f.latency[key] = d
}

// LatencyFor is the delay of a call of command.
func (f *Set) LatencyFor(command string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.latency[strings.ToLower(command)]; ok {
		return d
	}
	return f.latency["*"]
}

// AddJobFailure fails the step of the next n jobs of op with message.
func (f *Set) AddJobFailure(op, step string, n int, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobFail = append(f.jobFail, &jobFault{op: op, step: step, remaining: max(n, 1), message: message})
}

// TakeJobFailure returns the message this job step fails with, if one is
// injected.
func (f *Set) TakeJobFailure(op, step string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, jf := range f.jobFail {
		if jf.op == op && jf.step == step && jf.remaining > 0 {
			jf.remaining--
			if jf.remaining == 0 {
				f.jobFail = append(f.jobFail[:i], f.jobFail[i+1:]...)
			}
			return jf.message, true
		}
	}
	return "", false
}

// Clear removes every injected fault.
func (f *Set) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apiFail = map[string]*apiFault{}
	f.lost = map[string]int{}
	f.latency = map[string]time.Duration{}
	f.jobFail = nil
	f.after = map[string]func(){}
}

// Counters counts API calls per command name as sent.
type Counters struct {
	mu sync.Mutex
	m  map[string]int64
}

// NewCounters returns counters at zero.
func NewCounters() *Counters { return &Counters{m: map[string]int64{}} }

// Add counts one call of command.
func (c *Counters) Add(command string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[command]++
}

// Snapshot is a copy of the counts.
func (c *Counters) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

// Reset sets every count to zero.
func (c *Counters) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]int64{}
}
