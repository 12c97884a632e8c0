package endpoints

import (
	"sync"
	"sync/atomic"
	"time"
)

// faults holds the injected failures. SSH faults are lock-free because every
// command consults them; the Kubernetes failure needs a code and a count
// updated together, so it takes a mutex.
type faults struct {
	sshLatency  atomic.Int64 // nanoseconds
	sshDrops    atomic.Int64
	kubeMu      sync.Mutex
	kubeCode    int
	kubePending int
}

func (f *faults) setSSHLatency(d time.Duration) {
	f.sshLatency.Store(int64(max(d, 0)))
}

func (f *faults) latency() time.Duration {
	return time.Duration(f.sshLatency.Load())
}

func (f *faults) setSSHDrops(n int) {
	f.sshDrops.Store(int64(max(n, 0)))
}

// takeSSHDrop consumes one pending drop, reporting whether there was one.
func (f *faults) takeSSHDrop() bool {
	for {
		n := f.sshDrops.Load()
		if n <= 0 {
			return false
		}
		if f.sshDrops.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (f *faults) setKubeFailures(code, n int) {
	f.kubeMu.Lock()
	defer f.kubeMu.Unlock()
	if code < 100 || code > 599 || n <= 0 {
		f.kubeCode, f.kubePending = 0, 0
		return
	}
	f.kubeCode, f.kubePending = code, n
}

// takeKubeFailure consumes one pending API failure and returns its status
// code, or 0 when the request should be served normally.
func (f *faults) takeKubeFailure() int {
	f.kubeMu.Lock()
	defer f.kubeMu.Unlock()
	if f.kubePending <= 0 {
		return 0
	}
	f.kubePending--
	return f.kubeCode
}
