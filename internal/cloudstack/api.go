package cloudstack

import (
	"context"
	"encoding/json"
)

// API is the subset of the CloudStack API the provider uses. Every list call
// pages through all results (page size 500). Calls that start async jobs return
// at once; wait for them with WaitForJob. Read calls retry transient errors;
// mutating calls never retry.
type API interface {
	ListKubernetesClusters(ctx context.Context, p ListClustersParams) ([]Cluster, error)
	// GetKubernetesCluster returns an *Error of kind KindNotFound when the
	// cluster does not exist or was removed.
	GetKubernetesCluster(ctx context.Context, id string) (*Cluster, error)
	CreateKubernetesCluster(ctx context.Context, p CreateClusterParams) (AsyncRef, error)
	ScaleKubernetesCluster(ctx context.Context, p ScaleClusterParams) (AsyncRef, error)
	UpgradeKubernetesCluster(ctx context.Context, id, versionID string) (AsyncRef, error)
	StartKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
	StopKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
	DeleteKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
	// GetKubernetesClusterConfig returns the kubeconfig YAML. It is a secret.
	GetKubernetesClusterConfig(ctx context.Context, id string) (string, error)
	ListKubernetesSupportedVersions(ctx context.Context, zoneID string) ([]KubernetesVersion, error)

	ListVirtualMachines(ctx context.Context, p ListVMsParams) ([]VirtualMachine, error)

	ListFirewallRules(ctx context.Context, p ListRulesParams) ([]FirewallRule, error)
	CreateFirewallRule(ctx context.Context, p CreateFirewallRuleParams) (AsyncRef, error)
	DeleteFirewallRule(ctx context.Context, id string) (AsyncRef, error)
	ListPortForwardingRules(ctx context.Context, p ListRulesParams) ([]PortForwardingRule, error)
	CreatePortForwardingRule(ctx context.Context, p CreatePortForwardingRuleParams) (AsyncRef, error)
	DeletePortForwardingRule(ctx context.Context, id string) (AsyncRef, error)
	ListLoadBalancerRules(ctx context.Context, p ListRulesParams) ([]LoadBalancerRule, error)
	ListPublicIPAddresses(ctx context.Context, p ListPublicIPParams) ([]PublicIPAddress, error)
	ListNetworks(ctx context.Context, p ListNetworksParams) ([]Network, error)

	ListZones(ctx context.Context) ([]Zone, error)
	ListServiceOfferings(ctx context.Context) ([]ServiceOffering, error)
	// CloudStackVersion is listCapabilities' cloudstackversion, e.g. "4.22.1.1".
	CloudStackVersion(ctx context.Context) (string, error)

	// QueryAsyncJob polls a job once.
	QueryAsyncJob(ctx context.Context, jobID string) (JobStatus, error)
}

// JobStatus is one poll of queryAsyncJobResult.
type JobStatus struct {
	JobID string
	// Status is 0 while pending, 1 on success and 2 on failure.
	Status     int
	ResultCode int
	// Result is the raw jobresult object.
	Result json.RawMessage
}
