package clusterview

import (
	"strings"

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

// IsDefaultAllow tells, from listNetworkACLLists by id, whether a list is
// default_allow, whose items need not be read.
func IsDefaultAllow(aclID string, lists []cloudstack.NetworkACLList) bool {
	return TierACL(aclID, lists, nil).DefaultAllow
}

// ACLItems converts listed ACL items, leaving out those on their way out.
func ACLItems(items []cloudstack.NetworkACLItem) []rules.ACLItem {
	var out []rules.ACLItem
	for _, it := range items {
		if strings.EqualFold(it.State, "Revoke") {
			continue
		}
		out = append(out, rules.ACLItem{ID: it.ID, Number: it.Number, Protocol: it.Protocol, StartPort: it.StartPort,
			EndPort: it.EndPort, CIDRs: it.CIDRList, TrafficType: it.TrafficType, Action: it.Action, Reason: it.Reason})
	}
	return out
}
