package network

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The firewall_rules table: one id sequence for firewall, port-forwarding
// and load balancer rules, listed in id order. Callers hold the lock.

// persistRule gives the rule the next id and inserts it. With conflict
// checking it then runs detectRulesConflict and, on a conflict, rolls the
// insert back: the id stays used, as a database sequence would.
func (s *Networks) persistRule(r *model.Rule, checkConflict bool) *wire.APIError {
	s.DB.RuleSeq++
	r.InternalID = s.DB.RuleSeq
	r.ID = s.NewUUID()
	r.Created = s.Now()
	s.DB.Rules = append(s.DB.Rules, r)
	if !checkConflict {
		return nil
	}
	if err := s.detectRulesConflict(r); err != nil {
		s.deleteRuleRow(r)
		return err
	}
	return nil
}

func (s *Networks) deleteRuleRow(r *model.Rule) {
	s.DB.Rules = slices.DeleteFunc(s.DB.Rules, func(x *model.Rule) bool { return x == r })
}

// RulesOnIP lists the IP's not-revoked rules of one purpose ("" for all) in
// id order.
func (s *Networks) RulesOnIP(ipID, purpose string) []*model.Rule {
	var out []*model.Rule
	for _, r := range s.DB.Rules {
		if r.IPID == ipID && r.State != model.RuleRevoke && (purpose == "" || r.Purpose == purpose) {
			out = append(out, r)
		}
	}
	return out
}

// RulesInNetwork lists the network's not-revoked rules of one purpose in id
// order.
func (s *Networks) RulesInNetwork(networkID, purpose string) []*model.Rule {
	var out []*model.Rule
	for _, r := range s.DB.Rules {
		if r.NetworkID == networkID && r.State != model.RuleRevoke && r.Purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}

// RevokeRule revokes and deletes a rule, with the firewall rule opened for
// it, and stops its SSH endpoint.
func (s *Networks) RevokeRule(r *model.Rule) {
	if !slices.Contains(s.DB.Rules, r) {
		return
	}
	r.State = model.RuleRevoke
	s.closeForward(r)
	s.deleteRuleRow(r)
	for _, related := range slices.Clone(s.DB.Rules) {
		if related.RelatedID == r.InternalID {
			s.RevokeRule(related)
		}
	}
}

// ruleString is FirewallRuleVO.toString().
func (s *Networks) ruleString(r *model.Rule) string {
	var netID int64
	if n := s.DB.Network(r.NetworkID); n != nil {
		netID = n.InternalID
	}
	return fmt.Sprintf(`FirewallRule {"id":%d,"networkId":%d,"purpose":"%s","state":"%s","uuid":"%s"}`,
		r.InternalID, netID, r.Purpose, r.State, r.ID)
}

// detectRulesConflict is FirewallManagerImpl.detectRulesConflict:
// the new rule against every not-revoked rule on the same IP, in id order.
func (s *Networks) detectRulesConflict(nr *model.Rule) *wire.APIError {
	for _, r := range s.RulesOnIP(nr.IPID, "") {
		if r == nr {
			continue
		}
		if err := s.conflictWithRule(r, nr); err != nil {
			return err
		}
	}
	return nil
}

// conflictWithRule is one turn of detectRulesConflict's loop: the existing
// rule r against the new rule nr.
func (s *Networks) conflictWithRule(r, nr *model.Rule) *wire.APIError {
	sameProto := strings.EqualFold(r.Protocol, nr.Protocol)
	bothFirewall := r.Purpose == model.PurposeFirewall && nr.Purpose == model.PurposeFirewall
	// Two firewall rules whose CIDRs (source and destination) do not meet,
	// or two PFs whose source CIDRs do not, never conflict.
	duplicatedCidrs := bothFirewall && cidrsConflict(r.CIDRs, nr.CIDRs) && cidrsConflict(r.DestCIDRs, nr.DestCIDRs)
	if bothFirewall && !duplicatedCidrs {
		return nil
	}
	if r.Purpose == model.PurposePF && nr.Purpose == model.PurposePF && !cidrsConflict(r.CIDRs, nr.CIDRs) {
		return nil
	}
	if r.NetworkID != nr.NetworkID {
		return wire.RuleConflict("New rule is for a different network than what's specified in rule " + r.ID)
	}
	if bothFirewall && sameProto && nr.Protocol == "icmp" && intPtrEq(r.ICMPType, nr.ICMPType) && intPtrEq(r.ICMPCode, nr.ICMPCode) {
		return wire.InvalidParam("New rule conflicts with existing rule id=%s", r.ID)
	}
	if !r.HasPorts && !nr.HasPorts && duplicatedCidrs && sameProto {
		return wire.RuleConflict(fmt.Sprintf("There is already a firewall rule specified with protocol = %s and no ports", nr.Protocol))
	}
	return s.portRangeConflict(r, nr, sameProto)
}

// portRangeConflict refuses overlapping port ranges, unless one rule is a
// firewall rule and the other differs in purpose or protocol, or both are
// PFs of different protocols.
func (s *Networks) portRangeConflict(r, nr *model.Rule, sameProto bool) *wire.APIError {
	oneIsFirewall := (r.Purpose == model.PurposeFirewall || nr.Purpose == model.PurposeFirewall) &&
		(r.Purpose != nr.Purpose || !sameProto)
	if !r.HasPorts || !nr.HasPorts || oneIsFirewall {
		return nil
	}
	overlap := r.Start <= nr.End && nr.Start <= r.End
	allowPF := r.Purpose == model.PurposePF && nr.Purpose == model.PurposePF && !sameProto
	if overlap && !allowPF {
		return wire.RuleConflict(fmt.Sprintf("The range specified, %d-%d, conflicts with rule %s which has %d-%d",
			nr.Start, nr.End, s.ruleString(r), r.Start, r.End))
	}
	return nil
}

// cidrsConflict is detectConflictingCidrs: exact string intersection; two
// empty lists count as conflicting.
func cidrsConflict(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func intPtrEq(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ProvisionFirewallRule creates an ingress TCP firewall rule from
// 0.0.0.0/0, as CKS does, with conflict detection.
func (s *Networks) ProvisionFirewallRule(ip *model.PublicIP, networkID string, start, end int) *wire.APIError {
	r := &model.Rule{Purpose: model.PurposeFirewall, Protocol: "tcp", HasPorts: true, Start: start, End: end,
		IPID: ip.ID, NetworkID: networkID, AccountID: ip.AccountID, State: model.RuleStaged,
		CIDRs: []string{"0.0.0.0/0"}, ForDisplay: true}
	if err := s.persistRule(r, true); err != nil {
		return err
	}
	r.State = model.RuleActive
	return nil
}

// ProvisionPortForward writes a TCP port-forwarding rule straight to the
// table (state Add, no conflict detection, no source CIDRs) and applies it,
// as CKS's provisionPublicIpPortForwardingRule does.
func (s *Networks) ProvisionPortForward(ip *model.PublicIP, networkID string, publicPort, privatePort int, v *model.VM) {
	r := &model.Rule{Purpose: model.PurposePF, Protocol: "tcp", HasPorts: true, Start: publicPort, End: publicPort,
		PrivateStart: privatePort, PrivateEnd: privatePort, VMID: v.ID, VMGuestIP: v.IP,
		IPID: ip.ID, NetworkID: networkID, AccountID: ip.AccountID, State: model.RuleAdd, ForDisplay: true}
	_ = s.persistRule(r, false)
	r.State = model.RuleActive
	s.openForward(r)
}

// ProvisionLoadBalancer creates the api-lb rule on 6443.
func (s *Networks) ProvisionLoadBalancer(ip *model.PublicIP, networkID, name, description string, port int, members []*model.VM) *wire.APIError {
	r := &model.Rule{Purpose: model.PurposeLB, Protocol: "tcp", HasPorts: true, Start: port, End: port,
		PrivateStart: port, PrivateEnd: port, IPID: ip.ID, NetworkID: networkID, AccountID: ip.AccountID,
		State: model.RuleAdd, Name: name, Description: description, Algorithm: "roundrobin",
		CIDRs: nil, ForDisplay: true}
	for _, m := range members {
		r.LBMembers = append(r.LBMembers, m.ID)
	}
	if err := s.persistRule(r, true); err != nil {
		return err
	}
	r.State = model.RuleActive
	return nil
}
