package clusterops

import "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// API is the part of CloudStack the engine drives: clusters and their
// kubeconfig, their rules and networks, the catalog and async jobs. It
// never lists VMs.
type API interface {
	cloudstack.ClusterReader
	cloudstack.ClusterWriter
	cloudstack.KubeconfigReader
	cloudstack.RuleReader
	cloudstack.RuleWriter
	cloudstack.ACLReader
	cloudstack.ACLWriter
	cloudstack.NetworkReader
	cloudstack.CatalogReader
	cloudstack.JobQuerier
	cloudstack.JobLister
}
