package cluster

import (
	"errors"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// DefaultScannerInterval is the state scanner's period:
// KubernetesClusterManagerImpl.start schedules KubernetesClusterStatusScanner
// with scheduleWithFixedDelay(..., 300, 30, TimeUnit.SECONDS).
const DefaultScannerInterval = 30 * time.Second

// startingTimeout is how long the scanner's first run lets a cluster sit in
// Starting before it calls it failed.
const startingTimeout = 10 * time.Minute

// errVMNotFound is the NullPointerException KubernetesClusterManagerImpl.
// isClusterVMsInDesiredState hits on a map row whose VM never existed
// (vmInstanceDao.findByIdIncludingRemoved returns null); the scanner catches
// it per cluster, which is left as it is for that pass.
var errVMNotFound = errors.New(`cannot invoke "com.cloud.vm.VMInstanceVO.getState()" because "vm" is null`)

// StartScanner starts the scanner's timer with period interval (zero: the
// timer is off until SetScannerInterval; Scan still runs it).
func (s *Workers) StartScanner(interval time.Duration) {
	s.scanInterval.Store(int64(max(interval, 0)))
	s.bg.Add(1)
	go s.scannerLoop()
}

// WaitScanner waits for the scanner's timer to stop, after the simulator
// began to shut down.
func (s *Workers) WaitScanner() { s.bg.Wait() }

// SetScannerInterval changes the period of the state scanner's timer: d > 0
// runs it every d (also when Options.DisableScanner turned it off), d <= 0
// stops the timer. The next run is d from now.
func (s *Workers) SetScannerInterval(d time.Duration) {
	s.scanInterval.Store(int64(max(d, 0)))
	select {
	case s.scanReset <- struct{}{}:
	default:
	}
}

// ScannerInterval returns the period of the state scanner's timer, zero when
// it is stopped.
func (s *Workers) ScannerInterval() time.Duration {
	return time.Duration(s.scanInterval.Load())
}

// scannerLoop runs the state scanner every scanner interval, until Close.
// It never runs on API calls.
func (s *Workers) scannerLoop() {
	defer s.bg.Done()
	for {
		var tick <-chan time.Time
		var timer *time.Timer
		if d := time.Duration(s.scanInterval.Load()); d > 0 {
			timer = time.NewTimer(d)
			tick = timer.C
		}
		select {
		case <-s.Closing():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-s.scanReset:
			if timer != nil {
				timer.Stop()
			}
		case <-tick:
			s.Lock()
			s.Scan()
			s.Unlock()
		}
	}
}

// clustersInState is kubernetesClusterDao.findKubernetesClustersInState:
// the live CloudManaged clusters in a state, read when the scanner reaches
// that state (so a cluster moved to Alert by the Running pass is seen by the
// Alert pass of the same run).
func (s *Workers) clustersInState(state string) []*model.Cluster {
	return model.AllWhere(s.DB.Clusters, func(c *model.Cluster) bool {
		return !c.Removed && c.ClusterType == "CloudManaged" && c.State == state
	})
}

// Scan is KubernetesClusterStatusScanner.reallyRun, once. Callers hold
// the lock.
func (s *Workers) Scan() {
	first := !s.scanned
	s.scanned = true
	now := s.Now()
	s.scanRunningClusters()
	s.scanStoppedClusters()
	s.scanAlertClusters()
	if !first {
		return
	}
	s.scanStartingClusters(now)
	s.scanDestroyingClusters()
}

// scanRunningClusters sends a Running cluster whose VMs do not all run to
// Alert.
func (s *Workers) scanRunningClusters() {
	for _, c := range s.clustersInState(model.ClusterRunning) {
		ok, err := s.clusterVMsInDesiredState(c, model.VMRunning)
		if err != nil {
			s.Logf("Failed to run Kubernetes cluster Running state scanner on Kubernetes cluster : %s status scanner: %v", c.Name, err)
			continue
		}
		if !ok {
			s.transit(c, evFaultsDetected)
		}
	}
}

// scanStoppedClusters reports a Stopped cluster whose VMs are not all
// stopped.
func (s *Workers) scanStoppedClusters() {
	for _, c := range s.clustersInState(model.ClusterStopped) {
		ok, err := s.clusterVMsInDesiredState(c, model.VMStopped)
		if err != nil {
			s.Logf("Failed to run Kubernetes cluster Stopped state scanner on Kubernetes cluster : %s status scanner: %v", c.Name, err)
			continue
		}
		if !ok {
			// The state machine has no FaultsDetected transition from
			// Stopped: stateTransitTo only logs.
			s.transit(c, evFaultsDetected)
		}
	}
}

// scanAlertClusters tries to bring an Alert cluster whose VMs all run back
// to Running, and moves one whose VMs are all stopped to Stopped.
func (s *Workers) scanAlertClusters() {
	for _, c := range s.clustersInState(model.ClusterAlert) {
		running, err := s.clusterVMsInDesiredState(c, model.VMRunning)
		if err != nil {
			s.Logf("Failed to run Kubernetes cluster Alert state scanner on Kubernetes cluster : %s status scanner: %v", c.Name, err)
			continue
		}
		if running {
			s.reconcileAlertCluster(c)
			continue
		}
		stopped, err := s.clusterVMsInDesiredState(c, model.VMStopped)
		if err != nil {
			s.Logf("Failed to run Kubernetes cluster Alert state scanner on Kubernetes cluster : %s status scanner: %v", c.Name, err)
			continue
		}
		if stopped {
			s.transit(c, evStopRequested)
			s.transit(c, evOperationSucceeded)
		}
	}
}

// scanStartingClusters, on the first run only, fails a cluster that has
// been Starting longer than startingTimeout.
func (s *Workers) scanStartingClusters(now time.Time) {
	for _, c := range s.clustersInState(model.ClusterStarting) {
		if now.Sub(c.StateSince) > startingTimeout {
			s.transit(c, evOperationFailed)
		}
	}
}

// scanDestroyingClusters, on the first run only, retries the destruction of
// a cluster left in Destroying.
func (s *Workers) scanDestroyingClusters() {
	for _, c := range s.clustersInState(model.ClusterDestroying) {
		if err := s.destroyCluster(nil, c); err != nil {
			s.Logf("Failed to run Kubernetes cluster Destroying state scanner on Kubernetes cluster : %s status scanner: %v", c.Name, err)
		}
	}
}

// clusterVMsInDesiredState is KubernetesClusterManagerImpl.
// isClusterVMsInDesiredState: the map must have at least C+W+E rows (checked
// first) and every mapped VM, expunged ones included, must be in the state.
// A row whose VM never existed is errVMNotFound.
func (s *Workers) clusterVMsInDesiredState(c *model.Cluster, state string) (bool, error) {
	rows := s.DB.MapRows(c.ID)
	if len(rows) < model.ExpectedMapSize(c) {
		s.Logf("Found only %d VMs in the Kubernetes cluster ID: %s while expected %d VMs to be in state: %s",
			len(rows), c.ID, model.ExpectedMapSize(c), state)
		return false, nil
	}
	for _, row := range rows {
		v := s.DB.VMIncludingExpunged(row.VMID)
		if v == nil {
			return false, errVMNotFound
		}
		if v.State != state {
			return false, nil
		}
	}
	return true, nil
}

// reconcileAlertCluster is KubernetesClusterStartWorker.reconcileAlertCluster:
// an Alert cluster whose VMs all run goes back to Running (Recovering, then
// Running) only when the map has exactly C+W+E rows, kubectl over SSH
// (cluster IP port 2222) counts every node Ready (etcd nodes added), the API
// answers on 6443 and the kubeconfig can be read over SSH.
func (s *Workers) reconcileAlertCluster(c *model.Cluster) bool {
	want := model.ExpectedMapSize(c)
	rows := s.DB.MapRows(c.ID)
	if _, ok := s.clusterServer(c); len(rows) == 0 || len(rows) != want || !ok {
		return false
	}
	if !s.ControlSSHReachable(c) {
		return false // getKubernetesClusterReadyNodesCount throws
	}
	if s.readyNodeCount(c)+int(c.EtcdNodes) != want {
		return false
	}
	if !s.APIReachable(c) {
		return false
	}
	kubeconfig, err := s.EP.Kubeconfig(c.ID, c.Name)
	if err != nil {
		return false
	}
	c.Kubeconfig = kubeconfig
	s.transit(c, evRecoveryRequested)
	s.transit(c, evOperationSucceeded)
	return true
}
