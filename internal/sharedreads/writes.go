package sharedreads

import (
	"context"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Every call that may change what CloudStack holds drops the shared lists
// before it starts and again once it returned, so that no reader after it
// is served a list asked for before it. A job poll counts as one: its
// answer may be the end of a job that changed clusters, VMs or rules.
// TestEveryWriteDropsTheSharedLists checks that no method of the API is
// left out.

// write runs fn between two invalidations.
func write[T any](a *API, fn func() (T, error)) (T, error) {
	a.lists.invalidate()
	defer a.lists.invalidate()
	return fn()
}

// CreateKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) CreateKubernetesCluster(ctx context.Context, p cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.CreateKubernetesCluster(ctx, p) })
}

// ScaleKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) ScaleKubernetesCluster(ctx context.Context, p cloudstack.ScaleClusterParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.ScaleKubernetesCluster(ctx, p) })
}

// UpgradeKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) UpgradeKubernetesCluster(ctx context.Context, id, versionID string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.UpgradeKubernetesCluster(ctx, id, versionID) })
}

// StartKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) StartKubernetesCluster(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.StartKubernetesCluster(ctx, id) })
}

// StopKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) StopKubernetesCluster(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.StopKubernetesCluster(ctx, id) })
}

// DeleteKubernetesCluster implements cloudstack.ClusterWriter.
func (a *API) DeleteKubernetesCluster(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.DeleteKubernetesCluster(ctx, id) })
}

// AddNodesToKubernetesCluster implements cloudstack.NodeWriter.
func (a *API) AddNodesToKubernetesCluster(ctx context.Context, p cloudstack.AddNodesParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.AddNodesToKubernetesCluster(ctx, p) })
}

// RemoveNodesFromKubernetesCluster implements cloudstack.NodeWriter.
func (a *API) RemoveNodesFromKubernetesCluster(ctx context.Context, clusterID string, vmIDs []string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) {
		return a.API.RemoveNodesFromKubernetesCluster(ctx, clusterID, vmIDs)
	})
}

// TagVirtualMachine implements cloudstack.NodeWriter.
func (a *API) TagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.TagVirtualMachine(ctx, vmID, tags) })
}

// UntagVirtualMachine implements cloudstack.NodeWriter.
func (a *API) UntagVirtualMachine(ctx context.Context, vmID string, tags map[string]string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.UntagVirtualMachine(ctx, vmID, tags) })
}

// CreateFirewallRule implements cloudstack.RuleWriter.
func (a *API) CreateFirewallRule(ctx context.Context, p cloudstack.CreateFirewallRuleParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.CreateFirewallRule(ctx, p) })
}

// DeleteFirewallRule implements cloudstack.RuleWriter.
func (a *API) DeleteFirewallRule(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.DeleteFirewallRule(ctx, id) })
}

// CreatePortForwardingRule implements cloudstack.RuleWriter.
func (a *API) CreatePortForwardingRule(ctx context.Context, p cloudstack.CreatePortForwardingRuleParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.CreatePortForwardingRule(ctx, p) })
}

// DeletePortForwardingRule implements cloudstack.RuleWriter.
func (a *API) DeletePortForwardingRule(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.DeletePortForwardingRule(ctx, id) })
}

// CreateNetworkACL implements cloudstack.ACLWriter.
func (a *API) CreateNetworkACL(ctx context.Context, p cloudstack.CreateNetworkACLParams) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.CreateNetworkACL(ctx, p) })
}

// DeleteNetworkACL implements cloudstack.ACLWriter.
func (a *API) DeleteNetworkACL(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.DeleteNetworkACL(ctx, id) })
}

// MoveNetworkACLItem implements cloudstack.ACLWriter.
func (a *API) MoveNetworkACLItem(ctx context.Context, id, previous, next string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.MoveNetworkACLItem(ctx, id, previous, next) })
}

// ApplyNetworkACLItem implements cloudstack.ACLWriter.
func (a *API) ApplyNetworkACLItem(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	return write(a, func() (cloudstack.AsyncRef, error) { return a.API.ApplyNetworkACLItem(ctx, id) })
}

// QueryAsyncJob implements cloudstack.JobQuerier.
func (a *API) QueryAsyncJob(ctx context.Context, jobID string) (cloudstack.JobStatus, error) {
	return write(a, func() (cloudstack.JobStatus, error) { return a.API.QueryAsyncJob(ctx, jobID) })
}
