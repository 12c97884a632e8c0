package cloudstack

// Kubernetes cluster states, as listKubernetesClusters reports them
// (com.cloud.kubernetes.cluster.KubernetesCluster.State).
const (
	ClusterCreated               = "Created"
	ClusterStarting              = "Starting"
	ClusterRunning               = "Running"
	ClusterStopping              = "Stopping"
	ClusterStopped               = "Stopped"
	ClusterScaling               = "Scaling"
	ClusterScalingStoppedCluster = "ScalingStoppedCluster"
	ClusterUpgrading             = "Upgrading"
	ClusterImporting             = "Importing"
	ClusterRemovingNodes         = "RemovingNodes"
	ClusterAlert                 = "Alert"
	ClusterRecovering            = "Recovering"
	ClusterDestroying            = "Destroying"
	ClusterDestroyed             = "Destroyed"
	ClusterError                 = "Error"
)

// Transitional reports whether a cluster in this state is in the middle of
// an operation, which changes its VMs, map and rules until it ends. States
// are compared exactly, as CloudStack writes them.
func Transitional(state string) bool {
	switch state {
	case ClusterStarting, ClusterStopping, ClusterScaling, ClusterScalingStoppedCluster, ClusterUpgrading,
		ClusterImporting, ClusterRemovingNodes, ClusterRecovering, ClusterDestroying:
		return true
	}
	return false
}
