package clusterops

import "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// API is the part of CloudStack the engine drives: clusters, their rules
// and networks, the catalog and async jobs. It never reads a kubeconfig or
// lists VMs.
type API interface {
	cloudstack.ClusterReader
	cloudstack.ClusterWriter
	cloudstack.RuleReader
	cloudstack.RuleWriter
	cloudstack.NetworkReader
	cloudstack.CatalogReader
	cloudstack.JobQuerier
}
