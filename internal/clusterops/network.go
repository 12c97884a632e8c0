package clusterops

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// NetworkKindOf tells where CKS keeps a cluster's SSH rules, as
// KubernetesClusterActionWorker.getKubernetesClusterServerIpSshPort decides
// where to reach it: a VPC tier (forwards on the cluster's own VPC IP), an
// isolated network (firewall rules and forwards on the source NAT IP), or a
// directly accessed network (Shared, or ROUTED: isolated without source NAT)
// that has no rules at all. One listNetworks call; the kind never changes.
func NetworkKindOf(ctx context.Context, api cloudstack.NetworkReader, c *cloudstack.Cluster) (rules.NetworkKind, error) {
	if c.NetworkID == "" {
		return rules.NetworkDirect, nil
	}
	nets, err := api.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: c.NetworkID, ProjectID: c.ProjectID})
	if err != nil && !cloudstack.IsNotFound(err) {
		return "", fmt.Errorf("reading network %s of cluster %s: %w", c.NetworkID, c.Name, err)
	}
	for _, n := range nets {
		if n.ID == c.NetworkID {
			return kindOfNetwork(n, c), nil
		}
	}
	// The network is not visible to this account; the cluster's own fields
	// still tell an isolated network (it has a source NAT address) apart.
	if c.IPAddressID != "" {
		return rules.NetworkIsolated, nil
	}
	return rules.NetworkDirect, nil
}

func kindOfNetwork(n cloudstack.Network, c *cloudstack.Cluster) rules.NetworkKind {
	switch {
	case n.VPCID != "":
		return rules.NetworkVPC
	case strings.EqualFold(n.Type, "Shared"):
		return rules.NetworkDirect
	case c.IPAddressID == "" && c.Endpoint != "" && strings.EqualFold(n.Type, "Isolated"):
		// A ROUTED isolated network has no source NAT IP: CKS reaches the
		// control node directly.
		return rules.NetworkDirect
	default:
		return rules.NetworkIsolated
	}
}

// NetworkKindByID is NetworkKindOf for the network a cluster is to be
// created on: one listNetworks call.
func (e *Engine) NetworkKindByID(ctx context.Context, networkID, projectID string) (rules.NetworkKind, error) {
	return NetworkKindOf(ctx, e.api, &cloudstack.Cluster{NetworkID: networkID, ProjectID: projectID, Name: "to create"})
}
