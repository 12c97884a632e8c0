package clusterview

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// defaultAllowACL is the name of the global list NetworkACL.DEFAULT_ALLOW,
// on which CKS creates and removes no item; the API tells it only by name
// and by having no VPC.
const defaultAllowACL = "default_allow"

// TierACL is a VPC tier's network ACL list as listNetworkACLLists (by its
// id) and listNetworkACLs read it; items is nil for default_allow, whose
// items are not read.
func TierACL(aclID string, lists []cloudstack.NetworkACLList, items []cloudstack.NetworkACLItem) rules.TierACL {
	acl := rules.TierACL{ID: aclID}
	for _, l := range lists {
		if l.ID == aclID {
			acl.Name = l.Name
			acl.DefaultAllow = l.VPCID == "" && l.Name == defaultAllowACL
		}
	}
	acl.Items = ACLItems(items)
	return acl
}

// ACLSource lists the records of one network ACL list: Lists the list
// itself (listNetworkACLLists by its id), Items its items (listNetworkACLs).
type ACLSource struct {
	Lists func() ([]cloudstack.NetworkACLList, error)
	Items func() ([]cloudstack.NetworkACLItem, error)
}

// ReadTierACL reads a VPC tier's network ACL list through src: the list,
// then its items unless it is default_allow, on which CKS keeps no item.
func ReadTierACL(aclID string, src ACLSource) (*rules.TierACL, error) {
	lists, err := src.Lists()
	if err != nil {
		return nil, err
	}
	var items []cloudstack.NetworkACLItem
	if !TierACL(aclID, lists, nil).DefaultAllow {
		if items, err = src.Items(); err != nil {
			return nil, err
		}
	}
	acl := TierACL(aclID, lists, items)
	return &acl, nil
}

// ACLItems converts listed ACL items, leaving out those on their way out.
func ACLItems(items []cloudstack.NetworkACLItem) []rules.ACLItem {
	return inForce(items, func(it cloudstack.NetworkACLItem) string { return it.State }, func(it cloudstack.NetworkACLItem) rules.ACLItem {
		return rules.ACLItem{ID: it.ID, Number: it.Number, Protocol: it.Protocol, StartPort: it.StartPort,
			EndPort: it.EndPort, CIDRs: it.CIDRList, TrafficType: it.TrafficType, Action: it.Action, Reason: it.Reason}
	})
}
