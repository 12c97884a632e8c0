package clusterops

import "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// API is the part of CloudStack the engine drives: clusters and their
// kubeconfig, their external nodes, their rules and networks, the catalog
// and async jobs. It lists no VMs: it reads one VM, the one to join, by id.
type API interface {
	cloudstack.ClusterReader
	cloudstack.ClusterWriter
	cloudstack.NodeWriter
	cloudstack.NodeReader
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
