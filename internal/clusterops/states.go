package clusterops

// Cluster states the engine acts on (spec §3.9).
const (
	stateCreated        = "Created"
	stateRunning        = "Running"
	stateStopped        = "Stopped"
	stateAlert          = "Alert"
	stateScaling        = "Scaling"
	stateScalingStopped = "ScalingStoppedCluster"
)
