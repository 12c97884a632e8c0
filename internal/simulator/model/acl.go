package model

import (
	"cmp"
	"slices"
	"time"
)

// NetworkACL.DEFAULT_DENY and NetworkACL.DEFAULT_ALLOW: the ids of the two
// global default lists, whose items no one may add, change, move or delete
// (NetworkACLServiceImpl.isDefaultAcl).
const (
	ACLDefaultDenyID  = 1
	ACLDefaultAllowID = 2
)

// NetworkACLItem is one row of network_acl_item.
type NetworkACLItem struct {
	InternalID int64
	ID         string
	ACLID      string
	Number     int
	// Protocol is kept as sent, trimmed (CreateNetworkACLCmd.getProtocol):
	// CKS sends "TCP", the UI "tcp". The destroy worker matches "TCP" only.
	Protocol           string
	HasPorts           bool
	Start, End         int
	CIDRs              []string
	ICMPType, ICMPCode *int
	TrafficType        string
	Action             string
	State              string
	Reason             string
	ForDisplay         bool
	Created            time.Time
}

func (a *NetworkACL) IsDefault() bool {
	return a.InternalID == ACLDefaultDenyID || a.InternalID == ACLDefaultAllowID
}

// ACLItemsOf returns the list's items in id order
// (NetworkACLItemDao.listByACL).
func (st *DB) ACLItemsOf(aclID string) []*NetworkACLItem {
	var out []*NetworkACLItem
	for _, it := range st.ACLItems {
		if it.ACLID == aclID {
			out = append(out, it)
		}
	}
	return out
}

// ACLItemsByNumber is NetworkACLServiceImpl.getAllAclRulesSortedByNumber.
func (st *DB) ACLItemsByNumber(aclID string) []*NetworkACLItem {
	items := st.ACLItemsOf(aclID)
	slices.SortStableFunc(items, func(a, b *NetworkACLItem) int { return cmp.Compare(a.Number, b.Number) })
	return items
}

func (st *DB) ACLItem(id string) *NetworkACLItem {
	return findByID(st.ACLItems, id, func(it *NetworkACLItem) string { return it.ID })
}
