// Package cluster is the simulator's area of the CKS clusters: the cluster
// commands and the action workers that run them (create, scale, upgrade,
// start, stop, delete, add and remove nodes), with their choreography of
// VMs, the VM map, Kubernetes nodes and network rules; the VMs users deploy
// and tag; and the state scanner. It stands on network, which stands on
// catalog; the admin API above it reaches it through a *Workers.
package cluster

import (
	"sync"
	"sync/atomic"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
)

// Workers is the clusters area of one simulator.
type Workers struct {
	*network.Networks

	// lastNameMS is the last clock value a node name took (nodeNameMillis).
	lastNameMS int64
	// scanned: the scanner has run once (its first run has its own rules).
	scanned bool

	bg           sync.WaitGroup // the scanner timer
	scanInterval atomic.Int64   // nanoseconds; 0 stops the timer
	scanReset    chan struct{}
}

// New returns the area on the networks.
func New(net *network.Networks) *Workers {
	return &Workers{Networks: net, scanReset: make(chan struct{}, 1)}
}

// Commands are the area's API commands, by name.
var Commands = map[string]core.Handler[*Workers]{
	"createKubernetesCluster":          cmdCreateKubernetesCluster,
	"listKubernetesClusters":           cmdListKubernetesClusters,
	"scaleKubernetesCluster":           cmdScaleKubernetesCluster,
	"upgradeKubernetesCluster":         cmdUpgradeKubernetesCluster,
	"startKubernetesCluster":           cmdStartKubernetesCluster,
	"stopKubernetesCluster":            cmdStopKubernetesCluster,
	"deleteKubernetesCluster":          cmdDeleteKubernetesCluster,
	"getKubernetesClusterConfig":       cmdGetKubernetesClusterConfig,
	"listVirtualMachines":              cmdListVirtualMachines,
	"addNodesToKubernetesCluster":      cmdAddNodesToKubernetesCluster,
	"removeNodesFromKubernetesCluster": cmdRemoveNodesFromKubernetesCluster,
	"deployVirtualMachine":             cmdDeployVirtualMachine,
	"destroyVirtualMachine":            cmdDestroyVirtualMachine,
	"createTags":                       cmdCreateTags,
	"deleteTags":                       cmdDeleteTags,
}
