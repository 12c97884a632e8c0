package simulator

import "time"

func (s *Simulator) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// now is the simulated wall clock.
func (s *Simulator) now() time.Time {
	var t time.Time
	if s.opts.Clock != nil {
		t = s.opts.Clock()
	} else {
		t = time.Now()
	}
	return t.Add(time.Duration(s.clockOffset.Load())).UTC().Truncate(time.Millisecond)
}

// lock and unlock guard the model; unlock republishes the view the network
// endpoints read.
func (s *Simulator) lock() { s.mu.Lock() }

func (s *Simulator) unlock() {
	s.publishView()
	s.mu.Unlock()
}

// nodeNameMillis returns the clock in milliseconds for a control or worker
// name. VMs are created one after another, seconds apart on a real server;
// a fast or frozen clock must still give distinct names, so the value never
// repeats. Callers hold s.mu.
func (s *Simulator) nodeNameMillis() int64 {
	ms := s.now().UnixMilli()
	if ms <= s.lastNameMS {
		ms = s.lastNameMS + 1
	}
	s.lastNameMS = ms
	return ms
}
