package cloudstack

import (
	"context"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// Network ACL lists and items: on a VPC tier CKS opens the API, SSH and
// etcd with items of the tier's list, not with firewall rules.

// NetworkACLItem is one item of a network ACL list. StartPort and EndPort
// are 0 for an item without ports (protocol all, or ICMP).
type NetworkACLItem struct {
	ID      string
	ACLID   string
	ACLName string
	// Number orders the list: the item with the lowest number that
	// matches decides.
	Number int
	// Protocol is as its creator sent it: CKS sends "TCP", the UI "tcp".
	Protocol    string
	StartPort   int
	EndPort     int
	CIDRList    []string
	TrafficType string // Ingress or Egress
	Action      string // Allow or Deny
	State       string
	Reason      string
}

// NetworkACLList is a network ACL list: default_allow and default_deny
// (global, no VPC) or a VPC's own.
type NetworkACLList struct {
	ID          string
	Name        string
	Description string
	VPCID       string
}

// ListNetworkACLsParams filters listNetworkACLs. Zero values are not sent.
type ListNetworkACLsParams struct {
	ID        string
	ACLID     string
	NetworkID string
}

// ListNetworkACLListsParams filters listNetworkACLLists. Zero values are not
// sent.
type ListNetworkACLListsParams struct {
	ID        string
	NetworkID string
	VPCID     string
}

// CreateNetworkACLParams creates an ACL item. Zero values are not sent;
// without CIDRList CloudStack opens the item to 0.0.0.0/0 and ::/0, and
// without Number it goes after the highest.
type CreateNetworkACLParams struct {
	ACLID       string
	Protocol    string
	StartPort   int
	EndPort     int
	CIDRList    []string
	TrafficType string
	Action      string
	Number      int
	Reason      string
}

// ACLReader lists network ACL lists and their items.
type ACLReader interface {
	ListNetworkACLs(ctx context.Context, p ListNetworkACLsParams) ([]NetworkACLItem, error)
	ListNetworkACLLists(ctx context.Context, p ListNetworkACLListsParams) ([]NetworkACLList, error)
}

// ACLWriter starts the async jobs that create, move and delete network ACL
// items.
type ACLWriter interface {
	CreateNetworkACL(ctx context.Context, p CreateNetworkACLParams) (AsyncRef, error)
	DeleteNetworkACL(ctx context.Context, id string) (AsyncRef, error)
	// MoveNetworkACLItem moves an item between previous and next (either
	// may be ""; next alone moves it to the top). CloudStack changes the
	// numbers only: the tiers get the new order when the list is applied.
	MoveNetworkACLItem(ctx context.Context, id, previous, next string) (AsyncRef, error)
	// ApplyNetworkACLItem sends updateNetworkACLItem with the id alone, a
	// partial update that changes nothing: CloudStack saves the item and
	// applies its list to the tiers (NetworkACLManagerImpl.updateNetworkACLItem).
	ApplyNetworkACLItem(ctx context.Context, id string) (AsyncRef, error)
}

// ListNetworkACLs lists network ACL items, all pages, listall set. Ports
// come as strings and are converted here.
func (c *Client) ListNetworkACLs(ctx context.Context, p ListNetworkACLsParams) ([]NetworkACLItem, error) {
	return listRules(ctx, c, "listNetworkACLs", func(it NetworkACLItem) string { return it.ID },
		func(cs *csgo.CloudStackClient, page, pageSize int) ([]*csgo.NetworkACL, int, error) {
			lp := cs.NetworkACL.NewListNetworkACLsParams()
			setNonEmpty(stringSetting{p.ID, lp.SetId}, stringSetting{p.ACLID, lp.SetAclid}, stringSetting{p.NetworkID, lp.SetNetworkid})
			listAllPage(lp, page, pageSize)
			r, err := cs.NetworkACL.ListNetworkACLs(lp)
			if err != nil {
				return nil, 0, err
			}
			return r.NetworkACLs, r.Count, nil
		},
		func(it *csgo.NetworkACL, _ int) NetworkACLItem {
			return NetworkACLItem{
				ID:          it.Id,
				ACLID:       it.Aclid,
				ACLName:     it.Aclname,
				Number:      it.Number,
				Protocol:    it.Protocol,
				StartPort:   atoiOrZero(it.Startport),
				EndPort:     atoiOrZero(it.Endport),
				CIDRList:    splitCIDRs(it.Cidrlist),
				TrafficType: it.Traffictype,
				Action:      it.Action,
				State:       it.State,
				Reason:      it.Reason,
			}
		})
}

// ListNetworkACLLists lists network ACL lists, all pages, listall set.
func (c *Client) ListNetworkACLLists(ctx context.Context, p ListNetworkACLListsParams) ([]NetworkACLList, error) {
	return listRules(ctx, c, "listNetworkACLLists", func(l NetworkACLList) string { return l.ID },
		func(cs *csgo.CloudStackClient, page, pageSize int) ([]*csgo.NetworkACLList, int, error) {
			lp := cs.NetworkACL.NewListNetworkACLListsParams()
			setNonEmpty(stringSetting{p.ID, lp.SetId}, stringSetting{p.NetworkID, lp.SetNetworkid}, stringSetting{p.VPCID, lp.SetVpcid})
			listAllPage(lp, page, pageSize)
			r, err := cs.NetworkACL.ListNetworkACLLists(lp)
			if err != nil {
				return nil, 0, err
			}
			return r.NetworkACLLists, r.Count, nil
		},
		func(l *csgo.NetworkACLList, _ int) NetworkACLList {
			return NetworkACLList{ID: l.Id, Name: l.Name, Description: l.Description, VPCID: l.Vpcid}
		})
}

// CreateNetworkACL starts the job that creates an ACL item; bad input fails
// at once with 431.
func (c *Client) CreateNetworkACL(ctx context.Context, p CreateNetworkACLParams) (AsyncRef, error) {
	return startRuleJob(ctx, c, "createNetworkACL",
		func(cs *csgo.CloudStackClient) (*csgo.CreateNetworkACLResponse, error) {
			cp := cs.NetworkACL.NewCreateNetworkACLParams(p.Protocol)
			cp.SetAclid(p.ACLID)
			setPortsAndCIDRs(cp, p.StartPort, p.EndPort, p.CIDRList)
			setNonEmpty(stringSetting{p.TrafficType, cp.SetTraffictype}, stringSetting{p.Action, cp.SetAction},
				stringSetting{p.Reason, cp.SetReason})
			if p.Number != 0 {
				cp.SetNumber(p.Number)
			}
			return cs.NetworkACL.CreateNetworkACL(cp)
		},
		func(r *csgo.CreateNetworkACLResponse) AsyncRef { return AsyncRef{ID: r.Id, JobID: r.JobID} })
}

// DeleteNetworkACL starts the job that deletes an ACL item.
func (c *Client) DeleteNetworkACL(ctx context.Context, id string) (AsyncRef, error) {
	return startRuleJob(ctx, c, "deleteNetworkACL",
		func(cs *csgo.CloudStackClient) (*csgo.DeleteNetworkACLResponse, error) {
			return cs.NetworkACL.DeleteNetworkACL(cs.NetworkACL.NewDeleteNetworkACLParams(id))
		},
		func(r *csgo.DeleteNetworkACLResponse) AsyncRef { return AsyncRef{JobID: r.JobID} })
}

// MoveNetworkACLItem starts the job that moves an ACL item.
func (c *Client) MoveNetworkACLItem(ctx context.Context, id, previous, next string) (AsyncRef, error) {
	return startRuleJob(ctx, c, "moveNetworkAclItem",
		func(cs *csgo.CloudStackClient) (*csgo.MoveNetworkAclItemResponse, error) {
			mp := cs.NetworkACL.NewMoveNetworkAclItemParams(id)
			if previous != "" {
				mp.SetPreviousaclruleid(previous)
			}
			if next != "" {
				mp.SetNextaclruleid(next)
			}
			return cs.NetworkACL.MoveNetworkAclItem(mp)
		},
		func(r *csgo.MoveNetworkAclItemResponse) AsyncRef { return AsyncRef{JobID: r.JobID} })
}

// ApplyNetworkACLItem starts the job of an update of an item that changes
// nothing, which applies its list.
func (c *Client) ApplyNetworkACLItem(ctx context.Context, id string) (AsyncRef, error) {
	return startRuleJob(ctx, c, "updateNetworkACLItem",
		func(cs *csgo.CloudStackClient) (*csgo.UpdateNetworkACLItemResponse, error) {
			return cs.NetworkACL.UpdateNetworkACLItem(cs.NetworkACL.NewUpdateNetworkACLItemParams(id))
		},
		func(r *csgo.UpdateNetworkACLItemResponse) AsyncRef { return AsyncRef{JobID: r.JobID} })
}

// stringSetting is a parameter's value and its setter.
type stringSetting struct {
	value string
	set   func(string)
}

// setNonEmpty sets the parameters whose value is not empty.
func setNonEmpty(settings ...stringSetting) {
	for _, s := range settings {
		if s.value != "" {
			s.set(s.value)
		}
	}
}

// pagedList is implemented by the params of list calls that take listall.
type pagedList interface {
	SetListall(bool)
	SetPage(int)
	SetPagesize(int)
}

// listAllPage asks for one page of everything the caller may see.
func listAllPage(lp pagedList, page, pageSize int) {
	lp.SetListall(true)
	lp.SetPage(page)
	lp.SetPagesize(pageSize)
}

// portsAndCIDRs is implemented by the create params of firewall rules and
// network ACL items.
type portsAndCIDRs interface {
	SetStartport(int)
	SetEndport(int)
	SetCidrlist([]string)
}

// setPortsAndCIDRs sets the ports and source CIDRs that are given.
func setPortsAndCIDRs(cp portsAndCIDRs, start, end int, cidrs []string) {
	if start != 0 {
		cp.SetStartport(start)
	}
	if end != 0 {
		cp.SetEndport(end)
	}
	if len(cidrs) > 0 {
		cp.SetCidrlist(cidrs)
	}
}
