package simulator

import "time"

// startingTimeout is how long the scanner's first run lets a cluster sit in
// Starting before it calls it failed.
const startingTimeout = 10 * time.Minute

// runScanner applies the state scanner rules (§3.9) once. It runs on every
// listKubernetesClusters call (unless Options.DisableScanner) and only
// touches clusters in steady states, so operations in flight are never
// disturbed. Callers hold s.mu.
func (s *Simulator) runScanner() {
	first := !s.scanned
	s.scanned = true
	now := s.now()
	for _, c := range s.st.clusters {
		if c.removed || c.clusterType != "CloudManaged" {
			continue
		}
		switch c.state {
		case stRunning:
			if !s.mapComplete(c) || !s.allVMsIn(c, vmRunning) {
				s.logf("scanner: cluster %s has faults, moving to Alert", c.name)
				s.transit(c, evFaultsDetected)
			}
		case stStopped:
			if !s.allVMsIn(c, vmStopped) {
				s.transit(c, evFaultsDetected)
			}
		case stAlert:
			switch {
			case s.allVMsIn(c, vmRunning):
				if s.reconcilable(c) {
					s.transit(c, evRecoveryRequested)
					s.transit(c, evOperationSucceeded)
				}
			case s.allVMsIn(c, vmStopped):
				s.transit(c, evStopRequested)
				s.transit(c, evOperationSucceeded)
			}
		case stStarting:
			if first && now.Sub(c.stateSince) > startingTimeout {
				s.transit(c, evOperationFailed)
			}
		case stDestroying:
			if first {
				if err := s.destroyCluster(nil, c); err != nil {
					s.logf("scanner: destroying cluster %s: %v", c.name, err)
				}
			}
		}
	}
}

func expectedMapSize(c *cluster) int { return int(c.controlNodes + c.size + c.etcdNodes) }

// mapComplete: a Running cluster whose map has fewer rows than C+W+E has
// faults.
func (s *Simulator) mapComplete(c *cluster) bool {
	return len(s.st.mapRows(c.id)) >= expectedMapSize(c)
}

// allVMsIn reports whether every mapped VM exists and is in the state.
func (s *Simulator) allVMsIn(c *cluster, state string) bool {
	for _, row := range s.st.mapRows(c.id) {
		v := s.st.vm(row.vmID)
		if v == nil || v.state != state {
			return false
		}
	}
	return true
}

// reconcilable is reconcileAlertCluster's test: the map has exactly C+W+E
// rows, the ready count plus E equals C+W+E, and API and kubeconfig work.
func (s *Simulator) reconcilable(c *cluster) bool {
	want := expectedMapSize(c)
	return len(s.st.mapRows(c.id)) == want &&
		s.readyNodeCount(c)+int(c.etcdNodes) == want &&
		c.kubeconfig != "" && s.clusterIP(c) != nil
}
