package simulator

import (
	"cmp"
	"slices"
	"time"
)

// NetworkACL.DEFAULT_DENY and NetworkACL.DEFAULT_ALLOW: the ids of the two
// global default lists, whose items no one may add, change, move or delete
// (NetworkACLServiceImpl.isDefaultAcl).
const (
	aclDefaultDenyID  = 1
	aclDefaultAllowID = 2
)

// networkACLItem is one row of network_acl_item.
type networkACLItem struct {
	internalID int64
	id         string
	aclID      string
	number     int
	// protocol is kept as sent, trimmed (CreateNetworkACLCmd.getProtocol):
	// CKS sends "TCP", the UI "tcp". The destroy worker matches "TCP" only.
	protocol           string
	hasPorts           bool
	start, end         int
	cidrs              []string
	icmpType, icmpCode *int
	trafficType        string
	action             string
	state              string
	reason             string
	forDisplay         bool
	created            time.Time
}

func (a *networkACL) isDefault() bool {
	return a.internalID == aclDefaultDenyID || a.internalID == aclDefaultAllowID
}

// aclItemsOf returns the list's items in id order
// (NetworkACLItemDao.listByACL).
func (st *state) aclItemsOf(aclID string) []*networkACLItem {
	var out []*networkACLItem
	for _, it := range st.aclItems {
		if it.aclID == aclID {
			out = append(out, it)
		}
	}
	return out
}

// aclItemsByNumber is NetworkACLServiceImpl.getAllAclRulesSortedByNumber.
func (st *state) aclItemsByNumber(aclID string) []*networkACLItem {
	items := st.aclItemsOf(aclID)
	slices.SortStableFunc(items, func(a, b *networkACLItem) int { return cmp.Compare(a.number, b.number) })
	return items
}

func (st *state) aclItem(id string) *networkACLItem {
	return findByID(st.aclItems, id, func(it *networkACLItem) string { return it.id })
}
