// Package clusterstate names the states of a CloudStack Kubernetes Service
// cluster, as CloudStack writes them (com.cloud.kubernetes.cluster.
// KubernetesCluster.State), and tells which ones an operation is still in.
// States are compared exactly: the API returns the enum's names.
package clusterstate

// Cluster states.
const (
	Created               = "Created"
	Starting              = "Starting"
	Running               = "Running"
	Stopping              = "Stopping"
	Stopped               = "Stopped"
	Scaling               = "Scaling"
	ScalingStoppedCluster = "ScalingStoppedCluster"
	Upgrading             = "Upgrading"
	Importing             = "Importing"
	RemovingNodes         = "RemovingNodes"
	Alert                 = "Alert"
	Recovering            = "Recovering"
	Destroying            = "Destroying"
	Destroyed             = "Destroyed"
	Error                 = "Error"
)

// Transitional reports whether a cluster in this state is in the middle of
// an operation, which changes its VMs, map and rules until it ends.
func Transitional(state string) bool {
	switch state {
	case Starting, Stopping, Scaling, ScalingStoppedCluster, Upgrading, Importing, RemovingNodes, Recovering, Destroying:
		return true
	}
	return false
}

// Settled reports whether no operation runs on a cluster in this state.
func Settled(state string) bool { return !Transitional(state) }

// Steady reports whether the cluster is in one of the states a finished
// operation leaves it in, with its VM map and rules in place: Running,
// Stopped, or Alert (a failed operation).
func Steady(state string) bool {
	return state == Running || state == Stopped || state == Alert
}
