package simulator

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
	stCreated: {evStartRequested: stStarting},
	stStarting: {evOperationSucceeded: stRunning, evOperationFailed: stAlert, evCreateFailed: stError,
		evStopRequested: stStopping},
	stRunning: {evStopRequested: stStopping, evFaultsDetected: stAlert, evAutoscaleRequested: stScaling,
		evScaleUpRequested: stScaling, evScaleDownRequested: stScaling, evUpgradeRequested: stUpgrading,
		"AddNodeRequested": "Importing", "RemoveNodeRequested": "RemovingNodes",
		evDestroyRequested: stDestroying, evOperationSucceeded: stRunning},
	stStopping: {evOperationSucceeded: stStopped, evOperationFailed: stAlert},
	stStopped: {evStartRequested: stStarting, evScaleUpRequested: stScalingStoppedCluster,
		evDestroyRequested: stDestroying, evOperationSucceeded: stStopped},
	stScaling:               {evOperationSucceeded: stRunning, evOperationFailed: stAlert},
	stScalingStoppedCluster: {evOperationSucceeded: stStopped, evOperationFailed: stAlert},
	stUpgrading:             {evOperationSucceeded: stRunning, evOperationFailed: stAlert},
	"Importing":             {evOperationSucceeded: stRunning, evOperationFailed: stRunning},
	"RemovingNodes":         {evOperationSucceeded: stRunning, evOperationFailed: stRunning},
	stAlert: {evStopRequested: stStopping, "AddNodeRequested": "Importing", "RemoveNodeRequested": "RemovingNodes",
		evRecoveryRequested: stRecovering, evDestroyRequested: stDestroying, evOperationSucceeded: stRunning},
	stRecovering: {evOperationSucceeded: stRunning, evOperationFailed: stAlert},
	stError:      {evDestroyRequested: stDestroying},
	stDestroying: {evOperationSucceeded: stDestroyed},
}

// transit applies an event. Like stateTransitTo, a missing transition only
// logs; the caller carries on. Callers hold s.mu.
func (s *Simulator) transit(c *cluster, event string) {
	next, ok := transitions[c.state][event]
	if !ok {
		s.logf("cluster %s: no transition from %s on %s", c.name, c.state, event)
		return
	}
	s.setClusterState(c, next)
}

func (s *Simulator) setClusterState(c *cluster, state string) {
	if c.state != state {
		c.state = state
		c.stateSince = s.now()
		c.stateHistory = append(c.stateHistory, state)
	}
}

// isKnownClusterState reports whether the admin API may set this state.
func isKnownClusterState(state string) bool {
	if _, ok := transitions[state]; ok {
		return true
	}
	return state == stDestroyed
}
