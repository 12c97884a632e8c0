package sharedreads

import (
	"context"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// clusterScopes are the two lists that hold every cluster the caller may
// see: an account-scoped list with listall shows an admin every account's
// clusters and a user their own, but no project's, which only a projectid
// shows; "-1" is every project the caller may see
// (AccountManagerImpl.buildACLSearchParameters).
var clusterScopes = []string{"", "-1"}

// GetKubernetesCluster returns, in a Shared context, the process's first
// clusters as read one by one (shared by the readers of the same cluster),
// and from the ShareFrom-th read on the cluster from the shared cluster
// lists; a cluster in neither (created since, deleted, or
// not visible) is asked of CloudStack itself, which also tells a missing
// cluster from a failed read.
func (a *API) GetKubernetesCluster(ctx context.Context, id string) (*cloudstack.Cluster, error) {
	if !isShared(ctx) || id == "" {
		return a.API.GetKubernetesCluster(ctx, id)
	}
	if a.clusterReads.Add(1) < a.shareFrom {
		// The process's first clusters: each read by itself, shared only
		// by the readers of that cluster (its refresh and its plan).
		c, err := shared(ctx, a, "cluster "+id, func(ctx context.Context) (*cloudstack.Cluster, error) {
			return a.API.GetKubernetesCluster(ctx, id)
		})
		if err != nil {
			return nil, err
		}
		copied := *c
		return &copied, nil
	}
	// A refresh reads the rules of the cluster right after it: ask for the
	// account's lists now, alongside the clusters, instead of one after the
	// other.
	a.prefetchRules(ctx, "")
	for _, project := range clusterScopes {
		// Not copied: only the cluster found is, below.
		list, err := shared(ctx, a, "clusters|"+project, func(ctx context.Context) ([]cloudstack.Cluster, error) {
			// ListKubernetesClusters itself is never shared.
			return a.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{
				Ownership: cloudstack.Ownership{ProjectID: project}, ListAll: true})
		})
		if err != nil {
			break // the cluster's own read says what is wrong
		}
		for i := range list {
			if list[i].ID == id {
				c := list[i]
				return &c, nil
			}
		}
	}
	return a.API.GetKubernetesCluster(ctx, id)
}
