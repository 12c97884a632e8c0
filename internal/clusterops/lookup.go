package clusterops

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Get reads one cluster by id.
func (e *Engine) Get(ctx context.Context, id string) (*cloudstack.Cluster, error) {
	c, err := e.api.GetKubernetesCluster(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading cluster %s: %w", id, err)
	}
	return c, nil
}

// FindByName finds the one cluster visible to the caller whose name is
// exactly name. CloudStack does not keep names unique
// (KubernetesClusterManagerImpl.validateKubernetesClusterCreateParameters
// only refuses an empty one), so several matches are an error that lists
// them.
func (e *Engine) FindByName(ctx context.Context, name string) (*cloudstack.Cluster, error) {
	clusters, err := e.api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{Name: name, ListAll: true})
	if err != nil {
		return nil, fmt.Errorf("listing clusters named %q: %w", name, err)
	}
	var found []cloudstack.Cluster
	for _, c := range clusters {
		if c.Name == name {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return &found[0], nil
	case 0:
		return nil, fmt.Errorf("no cluster named %q is visible to the caller", name)
	default:
		ids := make([]string, 0, len(found))
		for _, c := range found {
			ids = append(ids, c.ID)
		}
		return nil, fmt.Errorf("%d clusters are named %q (%s); CloudStack does not keep names unique, so look the cluster up by id",
			len(found), name, strings.Join(ids, ", "))
	}
}

// Kubeconfig returns the cluster's admin kubeconfig
// (getKubernetesClusterConfig). It is a secret: never log it.
func (e *Engine) Kubeconfig(ctx context.Context, id string) (string, error) {
	return e.api.GetKubernetesClusterConfig(ctx, id)
}
