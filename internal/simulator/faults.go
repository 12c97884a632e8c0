package simulator

import (
	"maps"
	"strings"
	"sync"
	"time"
)

// faults holds injected API failures, latencies and job step failures.
type faults struct {
	mu      sync.Mutex
	apiFail map[string]*apiFault     // lowercased command
	lost    map[string]int           // lowercased command: answers to lose
	latency map[string]time.Duration // lowercased command, or "*"
	jobFail []*jobFault
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

func newFaults() *faults {
	return &faults{apiFail: map[string]*apiFault{}, lost: map[string]int{}, latency: map[string]time.Duration{}}
}

func (f *faults) setLostResponses(command string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		delete(f.lost, strings.ToLower(command))
		return
	}
	f.lost[strings.ToLower(command)] = n
}

// takeLostResponse reports whether the answer to this call of command is
// to be lost.
func (f *faults) takeLostResponse(command string) bool {
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

func (f *faults) setAPIFailure(command string, n, code int, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n <= 0 {
		delete(f.apiFail, strings.ToLower(command))
		return
	}
	f.apiFail[strings.ToLower(command)] = &apiFault{remaining: n, code: code, text: text}
}

func (f *faults) takeAPIFailure(command string) (*apiError, bool) {
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
	return &apiError{code: af.code, csCode: cserrorFor(af.code), text: af.text}, true
}

func (f *faults) setLatency(command string, d time.Duration) {
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

func (f *faults) latencyFor(command string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.latency[strings.ToLower(command)]; ok {
		return d
	}
	return f.latency["*"]
}

func (f *faults) addJobFailure(op, step string, n int, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobFail = append(f.jobFail, &jobFault{op: op, step: step, remaining: max(n, 1), message: message})
}

func (f *faults) takeJobFailure(op, step string) (string, bool) {
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

func (f *faults) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apiFail = map[string]*apiFault{}
	f.lost = map[string]int{}
	f.latency = map[string]time.Duration{}
	f.jobFail = nil
}

// callCounters counts API calls per command name as sent.
type callCounters struct {
	mu sync.Mutex
	m  map[string]int64
}

func newCallCounters() *callCounters { return &callCounters{m: map[string]int64{}} }

func (c *callCounters) add(command string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[command]++
}

func (c *callCounters) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

func (c *callCounters) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]int64{}
}
