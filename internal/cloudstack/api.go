package cloudstack

import (
	"context"
	"encoding/json"
)

// API is the subset of the CloudStack API the provider uses: the union of
// the role interfaces below, for the callers that need everything. A caller
// that needs less takes the roles it uses, so that its test fakes stay small.
//
// Every list call pages through all results (page size 500). Calls that
// start async jobs return at once; wait for them with WaitForJob. Read calls
// retry transient errors; mutating calls never retry.
type API interface {
	ClusterReader
	ClusterWriter
	NodeWriter
	NodeReader
	KubeconfigReader
	VMReader
	RuleReader
	RuleWriter
	ACLReader
	ACLWriter
	NetworkReader
	CatalogReader
	JobQuerier
	JobLister
}

// ClusterReader reads CKS clusters.
type ClusterReader interface {
	ListKubernetesClusters(ctx context.Context, p ListClustersParams) ([]Cluster, error)
	// GetKubernetesCluster returns an *Error of kind KindNotFound when the
	// cluster does not exist or was removed.
	GetKubernetesCluster(ctx context.Context, id string) (*Cluster, error)
}

// ClusterWriter starts the async jobs that create, change and delete CKS
// clusters.
type ClusterWriter interface {
	CreateKubernetesCluster(ctx context.Context, p CreateClusterParams) (AsyncRef, error)
	ScaleKubernetesCluster(ctx context.Context, p ScaleClusterParams) (AsyncRef, error)
	UpgradeKubernetesCluster(ctx context.Context, id, versionID string) (AsyncRef, error)
	StartKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
	StopKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
	DeleteKubernetesCluster(ctx context.Context, id string) (AsyncRef, error)
}

// NodeWriter starts the async jobs that join VMs to a cluster as external
// nodes and take them out again (CloudStack 4.21+).
type NodeWriter interface {
	AddNodesToKubernetesCluster(ctx context.Context, p AddNodesParams) (AsyncRef, error)
	RemoveNodesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) (AsyncRef, error)
	// TagVirtualMachine and UntagVirtualMachine add and delete a VM's
	// resource tags, which record what CloudStack's API does not show of an
	// external node (how it was joined).
	TagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (AsyncRef, error)
	UntagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (AsyncRef, error)
}

// NodeReader reads the VM to join and its template. Both return an *Error
// of kind KindNotFound when the object does not exist.
type NodeReader interface {
	GetVirtualMachine(ctx context.Context, id string) (*VirtualMachine, error)
	GetTemplate(ctx context.Context, id string) (*Template, error)
}

// KubeconfigReader reads a cluster's kubeconfig.
type KubeconfigReader interface {
	// GetKubernetesClusterConfig returns the kubeconfig YAML. It is a secret.
	GetKubernetesClusterConfig(ctx context.Context, id string) (string, error)
}

// VMReader lists virtual machines.
type VMReader interface {
	ListVirtualMachines(ctx context.Context, p ListVMsParams) ([]VirtualMachine, error)
}

// RuleReader lists the network rules on public IP addresses.
type RuleReader interface {
	ListFirewallRules(ctx context.Context, p ListRulesParams) ([]FirewallRule, error)
	ListPortForwardingRules(ctx context.Context, p ListRulesParams) ([]PortForwardingRule, error)
	ListLoadBalancerRules(ctx context.Context, p ListRulesParams) ([]LoadBalancerRule, error)
}

// RuleWriter starts the async jobs that create and delete firewall rules
// and port forwards.
type RuleWriter interface {
	CreateFirewallRule(ctx context.Context, p CreateFirewallRuleParams) (AsyncRef, error)
	DeleteFirewallRule(ctx context.Context, id string) (AsyncRef, error)
	CreatePortForwardingRule(ctx context.Context, p CreatePortForwardingRuleParams) (AsyncRef, error)
	DeletePortForwardingRule(ctx context.Context, id string) (AsyncRef, error)
}

// NetworkReader lists networks and their public IP addresses.
type NetworkReader interface {
	ListPublicIPAddresses(ctx context.Context, p ListPublicIPParams) ([]PublicIPAddress, error)
	ListNetworks(ctx context.Context, p ListNetworksParams) ([]Network, error)
}

// CatalogReader reads what the cloud offers: zones, service offerings,
// projects, Kubernetes versions and the CloudStack version itself.
type CatalogReader interface {
	ListKubernetesSupportedVersions(ctx context.Context, zoneID string) ([]KubernetesVersion, error)
	ListZones(ctx context.Context) ([]Zone, error)
	ListServiceOfferings(ctx context.Context, p ListServiceOfferingsParams) ([]ServiceOffering, error)
	ListProjects(ctx context.Context, p ListProjectsParams) ([]Project, error)
	// CloudStackVersion is listCapabilities' cloudstackversion, e.g. "4.22.1.1".
	CloudStackVersion(ctx context.Context) (string, error)
}

// JobLister lists async jobs. *Client implements it.
type JobLister interface {
	ListAsyncJobs(ctx context.Context) ([]AsyncJob, error)
}

// AsyncJob is one job of listAsyncJobs.
type AsyncJob struct {
	ID      string
	Command string
	// InstanceType and InstanceID name the object the job works on, such
	// as KubernetesCluster and the cluster's id.
	InstanceType string
	InstanceID   string
	// Status is 0 while pending, 1 on success and 2 on failure.
	Status int
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
