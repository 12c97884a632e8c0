package driftcheck

import (
	"context"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// API is the part of CloudStack a drift check reads. Every call is a list
// or a get: a check never changes a cluster, a VM or a rule.
type API interface {
	ListKubernetesClusters(ctx context.Context, p cloudstack.ListClustersParams) ([]cloudstack.Cluster, error)
	cloudstack.KubeconfigReader
	cloudstack.VMReader
	cloudstack.RuleReader
	cloudstack.ACLReader
	ListNetworks(ctx context.Context, p cloudstack.ListNetworksParams) ([]cloudstack.Network, error)
	// CloudStackVersion tells whether a TCP firewall rule without ports
	// breaks the next scale (it does before apache/cloudstack#12806).
	CloudStackVersion(ctx context.Context) (string, error)
}
