package cluster

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"

// Cluster state machine events (KubernetesCluster.Event).
const (
	evStartRequested     = "StartRequested"
	evStopRequested      = "StopRequested"
	evDestroyRequested   = "DestroyRequested"
	evRecoveryRequested  = "RecoveryRequested"
	evScaleUpRequested   = "ScaleUpRequested"
	evScaleDownRequested = "ScaleDownRequested"
	evAutoscaleRequested = "AutoscaleRequested"
	evUpgradeRequested   = "UpgradeRequested"
	evOperationSucceeded = "OperationSucceeded"
	evOperationFailed    = "OperationFailed"
	evCreateFailed       = "CreateFailed"
	evFaultsDetected     = "FaultsDetected"
)

// transitions is the state machine of KubernetesCluster.State (s_fsm):
// there is no FaultsDetected transition from Stopped or Starting.
var transitions = map[string]map[string]string{
	model.ClusterCreated: {evStartRequested: model.ClusterStarting},
	model.ClusterStarting: {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterAlert, evCreateFailed: model.ClusterError,
		evStopRequested: model.ClusterStopping},
	model.ClusterRunning: {evStopRequested: model.ClusterStopping, evFaultsDetected: model.ClusterAlert, evAutoscaleRequested: model.ClusterScaling,
		evScaleUpRequested: model.ClusterScaling, evScaleDownRequested: model.ClusterScaling, evUpgradeRequested: model.ClusterUpgrading,
		"AddNodeRequested": "Importing", "RemoveNodeRequested": "RemovingNodes",
		evDestroyRequested: model.ClusterDestroying, evOperationSucceeded: model.ClusterRunning},
	model.ClusterStopping: {evOperationSucceeded: model.ClusterStopped, evOperationFailed: model.ClusterAlert},
	model.ClusterStopped: {evStartRequested: model.ClusterStarting, evScaleUpRequested: model.ClusterScalingStoppedCluster,
		evDestroyRequested: model.ClusterDestroying, evOperationSucceeded: model.ClusterStopped},
	model.ClusterScaling:               {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterAlert},
	model.ClusterScalingStoppedCluster: {evOperationSucceeded: model.ClusterStopped, evOperationFailed: model.ClusterAlert},
	model.ClusterUpgrading:             {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterAlert},
	"Importing":                        {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterRunning},
	"RemovingNodes":                    {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterRunning},
	model.ClusterAlert: {evStopRequested: model.ClusterStopping, "AddNodeRequested": "Importing", "RemoveNodeRequested": "RemovingNodes",
		evRecoveryRequested: model.ClusterRecovering, evDestroyRequested: model.ClusterDestroying, evOperationSucceeded: model.ClusterRunning},
	model.ClusterRecovering: {evOperationSucceeded: model.ClusterRunning, evOperationFailed: model.ClusterAlert},
	model.ClusterError:      {evDestroyRequested: model.ClusterDestroying},
	model.ClusterDestroying: {evOperationSucceeded: model.ClusterDestroyed},
}

// transit applies an event. Like stateTransitTo, a missing transition only
// logs; the caller carries on. Callers hold the lock.
func (s *Workers) transit(c *model.Cluster, event string) {
	next, ok := transitions[c.State][event]
	if !ok {
		s.Logf("cluster %s: no transition from %s on %s", c.Name, c.State, event)
		return
	}
	s.SetClusterState(c, next)
}

func (s *Workers) SetClusterState(c *model.Cluster, state string) {
	if c.State != state {
		c.State = state
		c.StateSince = s.Now()
		c.StateHistory = append(c.StateHistory, state)
	}
}

// IsKnownClusterState reports whether the admin API may set this state.
func IsKnownClusterState(state string) bool {
	if _, ok := transitions[state]; ok {
		return true
	}
	return state == model.ClusterDestroyed
}
