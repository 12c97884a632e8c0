package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// objectAsOptions converts objects strictly: unknown and null fields are
// decoded into the model's framework types, never dropped.
var objectAsOptions = basetypes.ObjectAsOptions{}

// networkKind tells where CKS keeps the cluster's SSH rules (spec §2.2, §6):
// a VPC tier (forwards on the cluster's VPC IP), an isolated network
// (firewall and forwards on the source NAT IP), or a directly accessed
// network (Shared, or an isolated ROUTED network without source NAT) that has
// no rules at all.
func networkKind(ctx context.Context, api cloudstack.API, c *cloudstack.Cluster) (rules.NetworkKind, error) {
	if c.NetworkID == "" {
		return rules.NetworkDirect, nil
	}
	nets, err := api.ListNetworks(ctx, cloudstack.ListNetworksParams{ID: c.NetworkID, ProjectID: c.ProjectID})
	if err != nil {
		return "", err
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
		// control node directly (spec §2.2 step 2).
		return rules.NetworkDirect
	default:
		return rules.NetworkIsolated
	}
}
