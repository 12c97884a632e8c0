package clusterops

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// ClusterFilter selects clusters for List. Zero values select all.
type ClusterFilter struct {
	// Owner narrows the list to an account (with its domain) or a
	// project, as the API's scope parameters do; empty lists every
	// account's and every project's clusters the caller can see.
	Owner  cloudstack.Ownership
	ZoneID string
	// Name matches the cluster's name.
	Name *regexp.Regexp
	// State is a cluster state, compared without case.
	State string
}

// List lists the clusters the filter selects, by name then id: an order
// of their own, not the API's. listKubernetesClusters has no zone filter,
// and its name filter is exact, so zone, name pattern and state are
// matched here.
func (e *Engine) List(ctx context.Context, f ClusterFilter) ([]cloudstack.Cluster, error) {
	var clusters []cloudstack.Cluster
	var err error
	if f.Owner == (cloudstack.Ownership{}) {
		clusters, err = cloudstack.ListVisibleClusters(ctx, e.api)
	} else {
		clusters, err = e.api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{Ownership: f.Owner, ListAll: true})
	}
	if err != nil {
		return nil, &ListError{What: "the Kubernetes clusters", Err: err}
	}
	clusters = slices.DeleteFunc(clusters, func(c cloudstack.Cluster) bool { return !f.selects(&c) })
	slices.SortFunc(clusters, func(a, b cloudstack.Cluster) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return clusters, nil
}

func (f ClusterFilter) selects(c *cloudstack.Cluster) bool {
	switch {
	case f.ZoneID != "" && !strings.EqualFold(c.ZoneID, f.ZoneID),
		f.Name != nil && !f.Name.MatchString(c.Name),
		f.State != "" && !strings.EqualFold(c.State, f.State):
		return false
	}
	return true
}
