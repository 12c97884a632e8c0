package clusterops

import (
	"context"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// NetworkKindOf tells where CKS keeps a cluster's SSH rules
// (clusterview.NetworkKind) from its network, read with one listNetworks
// call; the kind never changes. A network the account cannot see leaves the
// cluster's own fields to tell.
func NetworkKindOf(ctx context.Context, api cloudstack.NetworkReader, c *cloudstack.Cluster) (rules.NetworkKind, error) {
	if c.NetworkID == "" {
		return rules.NetworkDirect, nil
	}
	nets, err := api.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: c.NetworkID, ProjectID: c.ProjectID})
	if err != nil && !cloudstack.IsNotFound(err) {
		return "", fmt.Errorf("reading network %s of cluster %s: %w", c.NetworkID, c.Name, err)
	}
	return clusterview.NetworkKind(c, clusterview.FindNetwork(nets, c.NetworkID)), nil
}

// NetworkKindByID is NetworkKindOf for the network a cluster is to be
// created on: one listNetworks call.
func (e *Engine) NetworkKindByID(ctx context.Context, networkID, projectID string) (rules.NetworkKind, error) {
	return NetworkKindOf(ctx, e.api, &cloudstack.Cluster{NetworkID: networkID, ProjectID: projectID, Name: "to create"})
}
