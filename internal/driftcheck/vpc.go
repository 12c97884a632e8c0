package driftcheck

import (
	"context"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

const (
	cmdListACLLists = "listNetworkACLLists"
	cmdListACLItems = "listNetworkACLs"
)

// readVPCTier reads a VPC tier's share of the rules view: the load
// balancer rules of the cluster's IP when CKS balances the API there (a
// conserve-mode offering), and the tier's network ACL list (one call, two
// with its items unless it is default_allow).
func (c *Checker) readVPCTier(ctx context.Context, m *meter, cl *cloudstack.Cluster, tier clusterview.Tier, ipID string,
	bulk *bulkRules,
) (lbs []cloudstack.LoadBalancerRule, acl *rules.TierACL, err error) {
	if tier.API == rules.VPCAPILoadBalancer && ipID != "" {
		if lbs, err = c.loadBalancersOf(ctx, m, cl.ProjectID, ipID, bulk); err != nil {
			return nil, nil, err
		}
	}
	if tier.ACLID == "" {
		return lbs, nil, nil
	}
	if acl, err = c.readACL(ctx, m, tier.ACLID); err != nil {
		return nil, nil, fmt.Errorf("reading the network ACL list of VPC tier %s: %w", tier.Name, err)
	}
	return lbs, acl, nil
}

// readACL reads a network ACL list and, unless it is default_allow, its
// items.
func (c *Checker) readACL(ctx context.Context, m *meter, aclID string) (*rules.TierACL, error) {
	return clusterview.ReadTierACL(aclID, clusterview.ACLSource{
		Lists: func() ([]cloudstack.NetworkACLList, error) {
			m.call(cmdListACLLists)
			return c.API.ListNetworkACLLists(ctx, cloudstack.ListNetworkACLListsParams{ID: aclID})
		},
		Items: func() ([]cloudstack.NetworkACLItem, error) {
			m.call(cmdListACLItems)
			return c.API.ListNetworkACLs(ctx, cloudstack.ListNetworkACLsParams{ACLID: aclID})
		},
	})
}
