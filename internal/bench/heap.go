package bench

import (
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjectsMetric is the memory occupied by heap objects, live or not
// yet swept; unlike runtime.ReadMemStats it is read without stopping the
// world, so sampling it barely disturbs what is measured.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// heapSampler records the largest heap seen while it runs.
type heapSampler struct {
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// startHeapSampler samples the heap every interval until Stop.
func startHeapSampler(interval time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.observe()
	h.done.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.observe()
			}
		}
	})
	return h
}

func (h *heapSampler) observe() {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	v := s[0].Value.Uint64()
	h.mu.Lock()
	h.peak = max(h.peak, v)
	h.mu.Unlock()
}

// Stop ends sampling and returns the peak in bytes.
func (h *heapSampler) Stop() uint64 {
	close(h.stop)
	h.done.Wait()
	h.observe()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.peak
}
