package clusterops

import "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// Cluster states the engine acts on.
const (
	stateCreated        = cloudstack.ClusterCreated
	stateRunning        = cloudstack.ClusterRunning
	stateStopped        = cloudstack.ClusterStopped
	stateAlert          = cloudstack.ClusterAlert
	stateScaling        = cloudstack.ClusterScaling
	stateScalingStopped = cloudstack.ClusterScalingStoppedCluster
)
