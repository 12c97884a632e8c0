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

// vpcTierView is what a VPC tier adds to the rules view: how CKS opened the
// API (the offering's conserve mode), the API load balancer when that is
// the way, and the tier's network ACL list with its items.
type vpcTierView struct {
	api rules.VPCAPIPath
	lbs []rules.Rule
	acl *rules.TierACL
}

// readVPCTier reads a VPC tier's share of the rules view: the load
// balancers of the cluster's IP when CKS balances the API, and the tier's
// network ACL list (one call, two with its items unless it is
// default_allow).
func (c *Checker) readVPCTier(ctx context.Context, m *meter, cl *cloudstack.Cluster, tier *cloudstack.Network, ipID string,
	bulk *bulkRules,
) (vpcTierView, error) {
	v := vpcTierView{api: rules.VPCAPIPathOf(tier.ConserveMode)}
	if v.api == rules.VPCAPILoadBalancer && ipID != "" {
		var lbs []cloudstack.LoadBalancerRule
		if bulk != nil {
			if err := bulk.load(c, m); err != nil {
				return v, err
			}
			lbs = bulk.lbByIP[ipID]
		} else {
			m.call(cmdListLB)
			var err error
			if lbs, err = c.API.ListLoadBalancerRules(ctx, cloudstack.ListRulesParams{IPAddressID: ipID, ProjectID: cl.ProjectID}); err != nil {
				return v, err
			}
		}
		for _, lb := range lbs {
			if isActive(lb.State) {
				v.lbs = append(v.lbs, clusterview.LoadBalancerRule(lb))
			}
		}
	}
	if tier.ACLID == "" {
		return v, nil
	}
	acl, err := c.readACL(ctx, m, tier.ACLID)
	if err != nil {
		return v, fmt.Errorf("reading the network ACL list of VPC tier %s: %w", tier.Name, err)
	}
	v.acl = acl
	return v, nil
}

// readACL reads a network ACL list and, unless it is default_allow, its
// items.
func (c *Checker) readACL(ctx context.Context, m *meter, aclID string) (*rules.TierACL, error) {
	m.call(cmdListACLLists)
	lists, err := c.API.ListNetworkACLLists(ctx, cloudstack.ListNetworkACLListsParams{ID: aclID})
	if err != nil {
		return nil, err
	}
	var items []cloudstack.NetworkACLItem
	if !clusterview.IsDefaultAllow(aclID, lists) {
		m.call(cmdListACLItems)
		if items, err = c.API.ListNetworkACLs(ctx, cloudstack.ListNetworkACLsParams{ACLID: aclID}); err != nil {
			return nil, err
		}
	}
	acl := clusterview.TierACL(aclID, lists, items)
	return &acl, nil
}
