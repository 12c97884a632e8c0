package network

import (
	"cmp"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Network ACL lists and their items, as NetworkACLServiceImpl and
// NetworkACLManagerImpl keep them. An item belongs to a list, not to a tier:
// every tier that names the list gets it. Callers hold the lock.

// Traffic types, actions and states of an ACL item (NetworkACLItem).
const (
	ACLIngress    = "Ingress"
	ACLEgress     = "Egress"
	ACLAllow      = "Allow"
	ACLDeny       = "Deny"
	aclItemAdd    = "Add"
	ACLItemActive = "Active"
)

// supportedACLProtocols is NetworkACLServiceImpl.supportedProtocolsForAclRules,
// which validateProtocol searches with String.contains.
const supportedACLProtocols = "tcp,udp,icmp,all"

// mgmtSource is the address the management server and the simulator's own
// clients reach a cluster from: an ACL item applies to them when one of its
// CIDRs contains it.
var mgmtSource = netip.MustParseAddr("127.0.0.1")

// aclItemSpec is what createNetworkACLItem is given.
type aclItemSpec struct {
	protocol           string
	start, end         *int
	cidrs              []string // nil: 0.0.0.0/0 and ::/0
	icmpType, icmpCode *int
	trafficType        string
	action             string
	number             *int
	reason             string
	forDisplay         bool
}

// AllowIngress creates an item of the list that allows ingress on one port
// (createACLItem with the protocol and the port as its range), as the
// workers and the seed add them.
func (s *Networks) AllowIngress(acl *model.NetworkACL, protocol string, port int, reason string) (*model.NetworkACLItem, *wire.APIError) {
	return s.createACLItem(acl, aclItemSpec{protocol: protocol, start: &port, end: &port, trafficType: ACLIngress,
		action: ACLAllow, reason: reason, forDisplay: true})
}

// createACLItem is NetworkACLServiceImpl.createNetworkACLItem after the list
// was found: the list may be changed, the number is free (else the next
// after the highest), the action, ports, CIDRs and protocol are valid; then
// NetworkACLManagerImpl.createNetworkACLItem persists it in state Add.
func (s *Networks) createACLItem(acl *model.NetworkACL, spec aclItemSpec) (*model.NetworkACLItem, *wire.APIError) {
	if acl.IsDefault() {
		return nil, wire.InvalidParam("Default ACL cannot be modified")
	}
	number, err := s.aclItemNumber(acl, spec.number)
	if err != nil {
		return nil, err
	}
	action, err := aclAction(spec.action)
	if err != nil {
		return nil, err
	}
	it := &model.NetworkACLItem{ACLID: acl.ID, Number: number, Protocol: spec.protocol, CIDRs: spec.cidrs,
		ICMPType: spec.icmpType, ICMPCode: spec.icmpCode, TrafficType: cmp.Or(spec.trafficType, ACLIngress),
		Action: action, Reason: spec.reason, ForDisplay: spec.forDisplay}
	if it.CIDRs == nil {
		it.CIDRs = []string{"0.0.0.0/0", "::/0"}
	}
	if err := validateACLItem(it, spec.start, spec.end); err != nil {
		return nil, err
	}
	it.InternalID, it.ID, it.Created, it.State = s.DB.NextID("aclitem"), s.NewUUID(), s.Now(), aclItemAdd
	s.DB.ACLItems = append(s.DB.ACLItems, it)
	return it, nil
}

// aclAction is NetworkACLServiceImpl.validateAndCreateNetworkAclRuleAction:
// Deny when asked (any case), else Allow, which is also the default.
func aclAction(action string) (string, *wire.APIError) {
	switch {
	case action == "" || strings.EqualFold(action, ACLAllow):
		return ACLAllow, nil
	case strings.EqualFold(action, ACLDeny):
		return ACLDeny, nil
	}
	return "", wire.InvalidParam("Invalid action [%s]. Permitted actions are Allow and Deny", action)
}

// aclItemNumber is validateAclRuleNumber and the default number
// (NetworkACLItemDao.getMaxNumberByACL + 1).
func (s *Networks) aclItemNumber(acl *model.NetworkACL, number *int) (int, *wire.APIError) {
	items := s.DB.ACLItemsOf(acl.ID)
	if number == nil {
		highest := 0
		for _, it := range items {
			highest = max(highest, it.Number)
		}
		return highest + 1, nil
	}
	if *number < 1 {
		return 0, wire.InvalidParam("Invalid number [%d]. Number cannot be < 1", *number)
	}
	if slices.ContainsFunc(items, func(it *model.NetworkACLItem) bool { return it.Number == *number }) {
		return 0, wire.InvalidParam("ACL item with number %d already exists in ACL: %s", *number, acl.ID)
	}
	return *number, nil
}

// validateACLItem is NetworkACLServiceImpl.validateNetworkACLItem: ports,
// then source CIDRs, then the protocol and its ICMP fields.
func validateACLItem(it *model.NetworkACLItem, start, end *int) *wire.APIError {
	if start != nil || end != nil {
		s, e := -1, -1
		if start != nil {
			s = *start
		}
		if end != nil {
			e = *end
		}
		switch {
		case s < 0 || s > 65535:
			return wire.InvalidParam("Start public port is an invalid value: %s", javaInt(start))
		case e < 0 || e > 65535:
			return wire.InvalidParam("End public port is an invalid value: %s", javaInt(end))
		case s > e:
			return wire.InvalidParam("Start port can't be bigger than end port [startport=%d,endport=%d]", s, e)
		case strings.EqualFold(it.Protocol, "all"):
			return wire.InvalidParam("start port and end port must be null if protocol = 'all'")
		}
		it.HasPorts, it.Start, it.End = true, s, e
	}
	for _, c := range it.CIDRs {
		if _, err := netip.ParsePrefix(c); err != nil {
			return wire.InvalidParam("Source cidrs formatting error %s", c)
		}
	}
	return validateACLProtocol(it)
}

func javaInt(v *int) string {
	if v == nil {
		return "null"
	}
	return strconv.Itoa(*v)
}

// validateACLProtocol is NetworkACLServiceImpl.validateProtocol.
func validateACLProtocol(it *model.NetworkACLItem) *wire.APIError {
	p := it.Protocol
	if strings.TrimSpace(p) == "" {
		return nil
	}
	if n, err := strconv.Atoi(p); err == nil && !strings.HasPrefix(p, "-") && !strings.HasPrefix(p, "+") {
		if n > 255 {
			return wire.InvalidParam("Invalid protocol number: %d", n)
		}
	} else if !strings.Contains(supportedACLProtocols, strings.ToLower(p)) {
		return wire.InvalidParam("Invalid protocol [%s]. Expected one of: [%s]", p, supportedACLProtocols)
	}
	icmp := strings.EqualFold(p, "icmp")
	switch {
	case !icmp && (it.ICMPCode != nil || it.ICMPType != nil):
		return wire.InvalidParam("Can specify icmpCode and icmpType for ICMP protocol only")
	case icmp && it.HasPorts:
		return wire.InvalidParam("Can't specify start/end port when protocol is ICMP")
	case it.ICMPType == nil:
		return nil
	case *it.ICMPType != -1 && (*it.ICMPType < 0 || *it.ICMPType > 255):
		return wire.InvalidParam("Invalid icmp type [%d]. It should belong to [0-255] range", *it.ICMPType)
	case it.ICMPCode != nil && *it.ICMPCode != -1 && (*it.ICMPCode < 0 || *it.ICMPCode > 16):
		return wire.InvalidParam("Invalid icmp code [%d]. It should belong to [0-16] range and can be defined when icmpType belongs to [0-40] range", *it.ICMPCode)
	}
	return nil
}

// ApplyACL is NetworkACLManagerImpl.applyNetworkACL: items in Add become
// Active, and the tiers that use the list get it as it now is (their SSH
// endpoints open or close with it).
func (s *Networks) ApplyACL(aclID string) {
	acl := s.DB.ACL(aclID)
	if acl == nil {
		return
	}
	acl.Applied = acl.Applied[:0]
	for _, it := range s.DB.ACLItemsByNumber(aclID) {
		if it.State == aclItemAdd {
			it.State = ACLItemActive
		}
		acl.Applied = append(acl.Applied, *it)
	}
	s.refreshACLForwards(aclID)
}

// RevokeACLItem is NetworkACLManagerImpl.revokeNetworkACLItem: the item is
// marked Revoke and the list applied, which removes it.
func (s *Networks) RevokeACLItem(it *model.NetworkACLItem) {
	s.DB.ACLItems = slices.DeleteFunc(s.DB.ACLItems, func(x *model.NetworkACLItem) bool { return x == it })
	s.ApplyACL(it.ACLID)
}

// MoveACLItemToTop is NetworkACLServiceImpl.moveRuleToTheTopInACLList: the
// item takes number 1, and the items numbered 1, 2, ... without a gap move
// one down (updateAclRuleToNewPositionAndExecuteShiftIfNecessary, which
// compares with the numbers as they were read).
func (s *Networks) MoveACLItemToTop(it *model.NetworkACLItem) {
	all := s.DB.ACLItemsByNumber(it.ACLID)
	if len(all) == 1 {
		return
	}
	s.shiftACLItems(it, 1, snapshotNumbers(all), 0)
}

// aclSlot is an item with the number it had when the move read the list.
type aclSlot struct {
	item   *model.NetworkACLItem
	number int
}

func snapshotNumbers(items []*model.NetworkACLItem) []aclSlot {
	out := make([]aclSlot, len(items))
	for i, it := range items {
		out[i] = aclSlot{item: it, number: it.Number}
	}
	return out
}

// shiftACLItems gives moved the number, first moving the item that holds it
// one further, recursively.
func (s *Networks) shiftACLItems(moved *model.NetworkACLItem, number int, all []aclSlot, from int) {
	for i := from; i < len(all); i++ {
		if all[i].item == moved {
			continue
		}
		if all[i].number != number {
			break
		}
		s.shiftACLItems(all[i].item, number+1, all, i)
	}
	moved.Number = number
}

// ACLAllowsIngress reports whether the tier's network ACL, as last applied,
// lets TCP traffic from the management server (mgmtSource) in to port: its
// Ingress items in number order, the first whose protocol, ports and source
// CIDRs match decides, and no match denies (the VPC router's default
// ingress policy). A tier without a list is not filtered.
func (s *Networks) ACLAllowsIngress(n *model.Network, port int) bool {
	acl := s.DB.ACL(n.ACLID)
	if acl == nil {
		return true
	}
	for _, it := range acl.Applied {
		if it.TrafficType != ACLIngress || !aclCoversTCP(it.Protocol) || (it.HasPorts && (port < it.Start || port > it.End)) {
			continue
		}
		if slices.ContainsFunc(it.CIDRs, func(c string) bool {
			p, err := netip.ParsePrefix(c)
			return err == nil && p.Contains(mgmtSource)
		}) {
			return it.Action == ACLAllow
		}
	}
	return false
}

func aclCoversTCP(protocol string) bool {
	p := strings.TrimSpace(protocol)
	return strings.EqualFold(p, "tcp") || strings.EqualFold(p, "all") || p == "6"
}

// refreshACLForwards opens or closes the SSH endpoints of the forwards on
// the tiers that use the list, as the list now lets port 22 in or not.
func (s *Networks) refreshACLForwards(aclID string) {
	for _, n := range s.DB.Networks {
		if n.Removed || n.ACLID != aclID {
			continue
		}
		allowed := s.ACLAllowsIngress(n, DefaultSSHPort)
		for _, r := range s.RulesInNetwork(n.ID, model.PurposePF) {
			if r.PrivateStart != DefaultSSHPort || r.State != model.RuleActive {
				continue
			}
			if allowed {
				s.openForward(r)
			} else {
				s.closeForward(r)
			}
		}
	}
}

// ForwardAllowed reports whether the network ACL of a forward's tier lets
// SSH in; forwards off VPC tiers are not filtered by an ACL.
func (s *Networks) ForwardAllowed(r *model.Rule) bool {
	n := s.DB.Network(r.NetworkID)
	return !IsVPCTier(n) || s.ACLAllowsIngress(n, DefaultSSHPort)
}
