package network

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The network ACL commands: listNetworkACLLists, listNetworkACLs,
// createNetworkACL, deleteNetworkACL and moveNetworkAclItem
// (NetworkACLServiceImpl).

const cmdPkgNetwork = "org.apache.cloudstack.api.command.user.network."

// aclScope tells which lists a caller sees without naming one: the global
// default lists and the lists of the VPCs in the caller's scope.
func (s *Networks) aclScope(c *core.Caller, p wire.Params) (func(*model.NetworkACL) bool, *wire.APIError) {
	scope, err := s.ListScope(c, p)
	if err != nil {
		return nil, err
	}
	return func(acl *model.NetworkACL) bool {
		if acl.VPCID == "" {
			return true
		}
		vp := s.DB.VPC(acl.VPCID)
		return vp != nil && scope(vp.AccountID)
	}, nil
}

// checkACLAccess is validateAclAssociatedToVpc: a VPC's list needs access to
// the VPC; the global default lists are everyone's to read.
func (s *Networks) checkACLAccess(c *core.Caller, acl *model.NetworkACL) *wire.APIError {
	if acl.VPCID == "" {
		return nil
	}
	vp := s.DB.VPC(acl.VPCID)
	if vp == nil {
		return wire.InvalidParam("Unable to find VPC associated with acl")
	}
	return s.CheckAccess(c, vp.AccountID, "VPC "+vp.Name)
}

// cmdListNetworkACLLists is NetworkACLServiceImpl.listNetworkACLs: by id,
// name, networkid (the tier's list) or vpcid (that VPC's lists and the
// default ones), newest first (Filter(NetworkACLVO.class, "id", false)).
func cmdListNetworkACLLists(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.ACL)
	if err != nil {
		return nil, err
	}
	n, err := wire.ResolveParam(p, "networkid", s.DB.Network)
	if err != nil {
		return nil, err
	}
	vp, err := wire.ResolveParam(p, "vpcid", s.DB.VPC)
	if err != nil {
		return nil, err
	}
	if vp != nil {
		if err := s.CheckAccess(c, vp.AccountID, "VPC "+vp.Name); err != nil {
			return nil, err
		}
	}
	visible, err := s.aclScope(c, p)
	if err != nil {
		return nil, err
	}
	acls := slices.Clone(s.DB.ACLs)
	slices.SortFunc(acls, func(a, b *model.NetworkACL) int { return cmp.Compare(b.InternalID, a.InternalID) })
	items := []map[string]any{}
	for _, acl := range acls {
		switch {
		case byID != nil && acl != byID,
			n != nil && n.ACLID != acl.ID,
			vp != nil && acl.VPCID != "" && acl.VPCID != vp.ID,
			vp == nil && !visible(acl),
			p.Has("name") && p.Str("name") != acl.Name,
			!wire.MatchesKeyword(p, acl.Name, acl.Description):
			continue
		}
		items = append(items, s.renderNetworkACLList(acl))
	}
	return s.ListBody(p, "networkacllist", items)
}

func (s *Networks) renderNetworkACLList(acl *model.NetworkACL) map[string]any {
	out := map[string]any{"id": acl.ID, "name": acl.Name, "description": acl.Description, "fordisplay": acl.ForDisplay}
	s.VPCFields(out, acl.VPCID)
	return out
}

// cmdListNetworkACLs is NetworkACLServiceImpl.listNetworkACLItems: the items
// of one list (aclid, or the list of networkid, none when the tier has no
// list), or of every list the caller sees; filters traffictype, protocol
// (exact) and action; newest first (Filter(NetworkACLItemVO.class, "id",
// false)).
func cmdListNetworkACLs(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.ACLItem)
	if err != nil {
		return nil, err
	}
	acl, err := wire.ResolveParam(p, "aclid", s.DB.ACL)
	if err != nil {
		return nil, err
	}
	n, err := wire.ResolveParam(p, "networkid", s.DB.Network)
	if err != nil {
		return nil, err
	}
	if n != nil {
		if acl = s.DB.ACL(n.ACLID); acl == nil {
			return s.ListBody(p, "networkacl", nil)
		}
	}
	if acl != nil {
		if err := s.checkACLAccess(c, acl); err != nil {
			return nil, err
		}
	}
	visible, err := s.aclScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, it := range s.DB.ACLItems {
		switch {
		case byID != nil && it != byID,
			acl != nil && it.ACLID != acl.ID,
			acl == nil && !visible(s.DB.ACL(it.ACLID)),
			p.Has("traffictype") && p.Str("traffictype") != it.TrafficType,
			p.Has("protocol") && p.Str("protocol") != it.Protocol,
			p.Has("action") && p.Str("action") != it.Action:
			continue
		}
		items = append(items, s.renderNetworkACLItem(it))
	}
	slices.Reverse(items)
	return s.ListBody(p, "networkacl", items)
}

// renderNetworkACLItem is ApiResponseHelper.createNetworkACLItemResponse:
// ports as strings, CIDRs joined with commas.
func (s *Networks) renderNetworkACLItem(it *model.NetworkACLItem) map[string]any {
	out := map[string]any{
		"id":          it.ID,
		"protocol":    it.Protocol,
		"cidrlist":    strings.Join(it.CIDRs, ","),
		"traffictype": it.TrafficType,
		"state":       it.State,
		"aclid":       it.ACLID,
		"number":      it.Number,
		"action":      it.Action,
		"fordisplay":  it.ForDisplay,
		"tags":        []any{},
	}
	if acl := s.DB.ACL(it.ACLID); acl != nil {
		out["aclname"] = acl.Name
	}
	if it.HasPorts {
		out["startport"] = strconv.Itoa(it.Start)
		out["endport"] = strconv.Itoa(it.End)
	}
	if it.ICMPType != nil {
		out["icmptype"] = *it.ICMPType
	}
	if it.ICMPCode != nil {
		out["icmpcode"] = *it.ICMPCode
	}
	if it.Reason != "" {
		out["reason"] = it.Reason
	}
	return out
}

// cmdCreateNetworkACL is CreateNetworkACLCmd: create() validates and
// persists the item (a 431 for bad input), the job applies the list.
func cmdCreateNetworkACL(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("protocol"); err != nil {
		return nil, err
	}
	acl, err := s.aclForCreate(c, p)
	if err != nil {
		return nil, err
	}
	spec, err := parseACLItemSpec(p, c)
	if err != nil {
		return nil, err
	}
	it, err := s.createACLItem(acl, spec)
	if err != nil {
		return nil, err
	}
	j := s.StartJob(c, cmdPkgNetwork+"CreateNetworkACLCmd", "NetworkAclItem", it.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			if err := jr.Step("apply"); err != nil || s.DB.ACLItem(it.ID) == nil {
				if s.DB.ACLItem(it.ID) != nil {
					s.RevokeACLItem(it)
				}
				return nil, wire.InternalError("Failed to create network ACL Item")
			}
			s.ApplyACL(acl.ID)
			return map[string]any{"networkacl": s.renderNetworkACLItem(it)}, nil
		})
	return map[string]any{"id": it.ID, "jobid": j.ID}, nil
}

// aclForCreate is createAclListIfNeeded and validateNetworkAcl's access
// check: aclid, else the list of networkid's VPC tier.
func (s *Networks) aclForCreate(c *core.Caller, p wire.Params) (*model.NetworkACL, *wire.APIError) {
	acl, err := wire.ResolveParam(p, "aclid", s.DB.ACL)
	if err != nil {
		return nil, err
	}
	if acl == nil {
		n, err := wire.ResolveParam(p, "networkid", s.DB.Network)
		switch {
		case err != nil:
			return nil, err
		case n == nil:
			return nil, wire.InvalidParam("Cannot create Network ACL Item. ACL Id or network Id is required")
		case n.VPCID == "":
			return nil, wire.InvalidParam("Network: %s does not belong to VPC", n.ID)
		}
		if acl = s.DB.ACL(n.ACLID); acl == nil {
			return nil, wire.InvalidParam("Unable to find specified ACL.")
		}
	}
	if acl.IsDefault() {
		return nil, wire.InvalidParam("Default ACL cannot be modified")
	}
	if err := s.checkACLAccess(c, acl); err != nil {
		return nil, err
	}
	return acl, nil
}

// parseACLItemSpec reads createNetworkACL's item parameters as
// CreateNetworkACLCmd's accessors give them: the protocol trimmed (1 is
// icmp), the end port defaulting to the start, ICMP type and code -1 for
// icmp, traffic type Ingress by default, fordisplay for root admins only.
func parseACLItemSpec(p wire.Params, c *core.Caller) (aclItemSpec, *wire.APIError) {
	spec := aclItemSpec{protocol: strings.TrimSpace(p.Str("protocol")), cidrs: p.List("cidrlist"), action: p.Str("action"),
		reason: p.Str("reason"), forDisplay: true}
	if spec.protocol == "1" {
		spec.protocol = "icmp"
	}
	ints := map[string]**int{"startport": &spec.start, "endport": &spec.end, "icmptype": &spec.icmpType,
		"icmpcode": &spec.icmpCode, "number": &spec.number}
	for name, dst := range ints {
		v, present, err := p.Long(name)
		if err != nil {
			return spec, err
		}
		if present {
			n := int(v)
			*dst = &n
		}
	}
	if spec.end == nil && spec.start != nil {
		spec.end = spec.start
	}
	if strings.EqualFold(spec.protocol, "icmp") {
		minusOne := -1
		if spec.icmpType == nil {
			spec.icmpType = &minusOne
		}
		if spec.icmpCode == nil {
			spec.icmpCode = &minusOne
		}
	}
	switch tt := p.Str("traffictype"); {
	case tt == "":
	case strings.EqualFold(tt, ACLIngress):
		spec.trafficType = ACLIngress
	case strings.EqualFold(tt, ACLEgress):
		spec.trafficType = ACLEgress
	default:
		return spec, wire.InvalidParam("Invalid traffic type %s", tt)
	}
	if fd, present := p.Bool("fordisplay"); present && c.IsAdmin() {
		spec.forDisplay = fd
	}
	return spec, nil
}

// cmdDeleteNetworkACL is DeleteNetworkACLCmd: the job revokes the item
// (NetworkACLServiceImpl.revokeNetworkACLItem); items of a default list
// cannot be deleted.
func cmdDeleteNetworkACL(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	it, err := wire.ResolveParam(p, "id", s.DB.ACLItem)
	if err != nil {
		return nil, err
	}
	j := s.StartJob(c, cmdPkgNetwork+"DeleteNetworkACLCmd", "NetworkAclItem", it.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			acl := s.DB.ACL(it.ACLID)
			switch {
			case acl != nil && acl.IsDefault():
				return nil, wire.InvalidParam("ACL Items in default ACL cannot be deleted")
			case acl != nil:
				if err := s.checkACLAccess(c, acl); err != nil {
					return nil, err
				}
			}
			if err := jr.Step("apply"); err != nil {
				return nil, wire.InternalError("%s", core.FailText(err, "Failed to delete network ACL item"))
			}
			if s.DB.ACLItem(it.ID) != nil {
				s.RevokeACLItem(it)
			}
			return map[string]any{"success": true}, nil
		})
	return map[string]any{"jobid": j.ID}, nil
}

// cmdMoveNetworkAclItem is MoveNetworkAclItemCmd
// (NetworkACLServiceImpl.moveNetworkAclRuleToNewPosition), run by its job:
// without previousaclruleid the item goes to the top, without
// nextaclruleid to the bottom, else between the two. The router is not told
// until the list is next applied.
func cmdMoveNetworkAclItem(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	id, err := p.Require("id")
	if err != nil {
		return nil, err
	}
	prevID, nextID := p.Str("previousaclruleid"), p.Str("nextaclruleid")
	j := s.StartJob(c, cmdPkgNetwork+"MoveNetworkAclItemCmd", "NetworkAclItem", id, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			it, err := s.moveACLItem(c, id, prevID, nextID)
			if err != nil {
				return nil, err
			}
			return map[string]any{"networkacl": s.renderNetworkACLItem(it)}, nil
		})
	return map[string]any{"jobid": j.ID}, nil
}

// moveACLItem validates a move (validateMoveAclRulesData) and makes it.
func (s *Networks) moveACLItem(c *core.Caller, id, prevID, nextID string) (*model.NetworkACLItem, *wire.APIError) {
	if strings.TrimSpace(prevID) == "" && strings.TrimSpace(nextID) == "" {
		return nil, wire.InvalidParam("Both previous and next ACL rule IDs cannot be blank.")
	}
	it := s.DB.ACLItem(id)
	if it == nil {
		return nil, wire.InvalidParam("Could not find a rule with ID[%s]", id)
	}
	find := func(uuid string) (*model.NetworkACLItem, *wire.APIError) {
		if strings.TrimSpace(uuid) == "" {
			return nil, nil
		}
		if x := s.DB.ACLItem(uuid); x != nil {
			return x, nil
		}
		return nil, wire.InvalidParam("Could not find rule with ID [%s]", uuid)
	}
	prev, err := find(prevID)
	if err != nil {
		return nil, err
	}
	next, err := find(nextID)
	if err != nil {
		return nil, err
	}
	if (prev != nil && prev.ACLID != it.ACLID) || (next != nil && next.ACLID != it.ACLID) {
		return nil, wire.InvalidParam("Cannot use ACL rules from differentiating ACLs. Rule being moved.")
	}
	acl := s.DB.ACL(it.ACLID)
	if acl == nil || acl.IsDefault() {
		return nil, wire.InvalidParam("Default ACL rules cannot be moved.")
	}
	if err := s.checkACLAccess(c, acl); err != nil {
		return nil, err
	}
	all := s.DB.ACLItemsByNumber(it.ACLID)
	switch {
	case prev == nil:
		s.shiftACLItems(it, 1, snapshotNumbers(all), 0)
	case next == nil:
		it.Number = all[len(all)-1].Number + 1
	case prev.Number+1 != next.Number:
		if slices.ContainsFunc(all, func(x *model.NetworkACLItem) bool { return x.Number == prev.Number+1 }) {
			return nil, wire.InvalidParam("There are some inconsistencies with the data you sent. The new position calculated already has a ACL rule on it.")
		}
		it.Number = prev.Number + 1
	default:
		from := slices.Index(all, prev) + 1
		s.shiftACLItems(it, prev.Number+1, snapshotNumbers(all), from)
	}
	return it, nil
}

// cmdUpdateNetworkACLItem is UpdateNetworkACLItemCmd, run by its job
// (NetworkACLServiceImpl.updateNetworkACLItem,
// transferDataToNetworkAclRulePojo, NetworkACLManagerImpl.
// updateNetworkACLItem): with partialupgrade (the default) the parameters
// sent replace the item's, without it every field but the number takes what
// was sent; the item is checked again, saved in state Add, and the list
// applied, which also gives the tiers a move made since.
func cmdUpdateNetworkACLItem(s *Networks, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	it, err := wire.ResolveParam(p, "id", s.DB.ACLItem)
	if err != nil {
		return nil, err
	}
	spec, err := parseACLItemSpec(p, c)
	if err != nil {
		return nil, err
	}
	partial, given := p.Bool("partialupgrade")
	partial = partial || !given
	j := s.StartJob(c, cmdPkgNetwork+"UpdateNetworkACLItemCmd", "NetworkAclItem", it.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			jr.Op = "rule"
			acl := s.DB.ACL(it.ACLID)
			if acl == nil || acl.IsDefault() {
				return nil, wire.InvalidParam("Default ACL cannot be modified")
			}
			if err := s.checkACLAccess(c, acl); err != nil {
				return nil, err
			}
			updated, err := s.updatedACLItem(acl, it, spec, p, partial)
			if err != nil {
				return nil, err
			}
			*it = updated
			it.State = aclItemAdd
			s.ApplyACL(acl.ID)
			return map[string]any{"networkacl": s.renderNetworkACLItem(it)}, nil
		})
	return map[string]any{"jobid": j.ID}, nil
}

// updatedACLItem is the item after transferDataToNetworkAclRulePojo and
// validateNetworkACLItem, or the error that refuses the update.
func (s *Networks) updatedACLItem(acl *model.NetworkACL, it *model.NetworkACLItem, spec aclItemSpec, p wire.Params, partial bool) (model.NetworkACLItem, *wire.APIError) {
	u := *it
	if spec.number != nil {
		if slices.ContainsFunc(s.DB.ACLItemsOf(acl.ID), func(x *model.NetworkACLItem) bool { return x != it && x.Number == *spec.number }) {
			return u, wire.InvalidParam("ACL item with number %d already exists in ACL: %s", *spec.number, acl.ID)
		}
		u.Number = *spec.number
	}
	start, end := aclPorts(it)
	if !partial || p.Has("startport") {
		start = spec.start
	}
	if !partial || p.Has("endport") {
		end = spec.end
	}
	if !partial || len(spec.cidrs) > 0 {
		u.CIDRs = spec.cidrs
	}
	if !partial || spec.protocol != "" {
		u.Protocol = spec.protocol
	}
	if !partial || p.Has("icmptype") {
		u.ICMPType = spec.icmpType
	}
	if !partial || p.Has("icmpcode") {
		u.ICMPCode = spec.icmpCode
	}
	if !partial || spec.action != "" {
		action, err := aclAction(spec.action)
		if err != nil {
			return u, err
		}
		u.Action = action
	}
	if !partial || spec.trafficType != "" {
		u.TrafficType = spec.trafficType
	}
	if !partial || spec.reason != "" {
		u.Reason = spec.reason
	}
	u.HasPorts, u.Start, u.End = false, 0, 0
	return u, validateACLItem(&u, start, end)
}

// aclPorts returns an item's ports as the database holds them (null when
// it has none).
func aclPorts(it *model.NetworkACLItem) (start, end *int) {
	if !it.HasPorts {
		return nil, nil
	}
	s, e := it.Start, it.End
	return &s, &e
}
