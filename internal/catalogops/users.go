package catalogops

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// ClusterRef names a cluster for an error or a plan diagnostic.
type ClusterRef struct {
	ID, Name, State string
	// Account or ProjectID is the owner.
	Account, ProjectID string
}

func (c ClusterRef) String() string {
	owner := "account " + c.Account
	if c.ProjectID != "" {
		owner = "project " + c.ProjectID
	}
	return fmt.Sprintf("%s (%s, %s, %s)", c.Name, c.ID, c.State, owner)
}

// clustersWhere lists the clusters the caller can see that match, by name.
func (e *Engine) clustersWhere(ctx context.Context, match func(cloudstack.Cluster) bool) ([]ClusterRef, error) {
	clusters, err := cloudstack.ListVisibleClusters(ctx, e.api)
	if err != nil {
		return nil, &ListError{What: "the Kubernetes clusters", Err: err}
	}
	var out []ClusterRef
	for _, c := range clusters {
		if match(c) {
			out = append(out, ClusterRef{ID: c.ID, Name: c.Name, State: c.State, Account: c.Account, ProjectID: c.ProjectID})
		}
	}
	slices.SortFunc(out, func(a, b ClusterRef) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// VersionUsers lists the clusters that use a Kubernetes version: the ones
// KubernetesVersionManagerImpl.deleteKubernetesSupportedVersion refuses to
// delete it for (any state, any account, until the cluster is removed).
func (e *Engine) VersionUsers(ctx context.Context, versionID string) ([]ClusterRef, error) {
	return e.clustersWhere(ctx, func(c cloudstack.Cluster) bool { return c.KubernetesVersionID == versionID })
}

// CNIUsers lists the clusters created with a CNI configuration.
func (e *Engine) CNIUsers(ctx context.Context, cniID string) ([]ClusterRef, error) {
	return e.clustersWhere(ctx, func(c cloudstack.Cluster) bool { return c.CNIConfigurationID == cniID })
}
