package simulator

import (
	"fmt"
	"slices"
	"strings"
)

// The firewall_rules table: one id sequence for firewall, port-forwarding
// and load balancer rules, listed in id order. Callers hold s.mu.

// persistRule gives the rule the next id and inserts it. With conflict
// checking it then runs detectRulesConflict and, on a conflict, rolls the
// insert back: the id stays used, as a database sequence would.
func (s *Simulator) persistRule(r *rule, checkConflict bool) *apiError {
	s.st.ruleSeq++
	r.internalID = s.st.ruleSeq
	r.id = s.newUUID()
	r.created = s.now()
	s.st.rules = append(s.st.rules, r)
	if !checkConflict {
		return nil
	}
	if err := s.detectRulesConflict(r); err != nil {
		s.deleteRuleRow(r)
		return err
	}
	return nil
}

func (s *Simulator) deleteRuleRow(r *rule) {
	s.st.rules = slices.DeleteFunc(s.st.rules, func(x *rule) bool { return x == r })
}

// rulesOnIP lists the IP's not-revoked rules of one purpose ("" for all) in
// id order.
func (s *Simulator) rulesOnIP(ipID, purpose string) []*rule {
	var out []*rule
	for _, r := range s.st.rules {
		if r.ipID == ipID && r.state != ruleRevoke && (purpose == "" || r.purpose == purpose) {
			out = append(out, r)
		}
	}
	return out
}

// rulesInNetwork lists the network's not-revoked rules of one purpose in id
// order.
func (s *Simulator) rulesInNetwork(networkID, purpose string) []*rule {
	var out []*rule
	for _, r := range s.st.rules {
		if r.networkID == networkID && r.state != ruleRevoke && r.purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}

// revokeRule revokes and deletes a rule, with the firewall rule opened for
// it, and stops its SSH endpoint.
func (s *Simulator) revokeRule(r *rule) {
	if !slices.Contains(s.st.rules, r) {
		return
	}
	r.state = ruleRevoke
	s.closeForward(r)
	s.deleteRuleRow(r)
	for _, related := range slices.Clone(s.st.rules) {
		if related.relatedID == r.internalID {
			s.revokeRule(related)
		}
	}
}

// ruleString is FirewallRuleVO.toString().
func (s *Simulator) ruleString(r *rule) string {
	var netID int64
	if n := s.st.network(r.networkID); n != nil {
		netID = n.internalID
	}
	return fmt.Sprintf(`FirewallRule {"id":%d,"networkId":%d,"purpose":"%s","state":"%s","uuid":"%s"}`,
		r.internalID, netID, r.purpose, r.state, r.id)
}

// detectRulesConflict is FirewallManagerImpl.detectRulesConflict:
// the new rule against every not-revoked rule on the same IP, in id order.
func (s *Simulator) detectRulesConflict(nr *rule) *apiError {
	for _, r := range s.rulesOnIP(nr.ipID, "") {
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
func (s *Simulator) conflictWithRule(r, nr *rule) *apiError {
	sameProto := strings.EqualFold(r.protocol, nr.protocol)
	bothFirewall := r.purpose == purposeFirewall && nr.purpose == purposeFirewall
	// Two firewall rules whose CIDRs (source and destination) do not meet,
	// or two PFs whose source CIDRs do not, never conflict.
	duplicatedCidrs := bothFirewall && cidrsConflict(r.cidrs, nr.cidrs) && cidrsConflict(r.destCidrs, nr.destCidrs)
	if bothFirewall && !duplicatedCidrs {
		return nil
	}
	if r.purpose == purposePF && nr.purpose == purposePF && !cidrsConflict(r.cidrs, nr.cidrs) {
		return nil
	}
	if r.networkID != nr.networkID {
		return ruleConflict("New rule is for a different network than what's specified in rule " + r.id)
	}
	if bothFirewall && sameProto && nr.protocol == "icmp" && intPtrEq(r.icmpType, nr.icmpType) && intPtrEq(r.icmpCode, nr.icmpCode) {
		return invalidParam("New rule conflicts with existing rule id=%s", r.id)
	}
	if !r.hasPorts && !nr.hasPorts && duplicatedCidrs && sameProto {
		return ruleConflict(fmt.Sprintf("There is already a firewall rule specified with protocol = %s and no ports", nr.protocol))
	}
	return s.portRangeConflict(r, nr, sameProto)
}

// portRangeConflict refuses overlapping port ranges, unless one rule is a
// firewall rule and the other differs in purpose or protocol, or both are
// PFs of different protocols.
func (s *Simulator) portRangeConflict(r, nr *rule, sameProto bool) *apiError {
	oneIsFirewall := (r.purpose == purposeFirewall || nr.purpose == purposeFirewall) &&
		(r.purpose != nr.purpose || !sameProto)
	if !r.hasPorts || !nr.hasPorts || oneIsFirewall {
		return nil
	}
	overlap := r.start <= nr.end && nr.start <= r.end
	allowPF := r.purpose == purposePF && nr.purpose == purposePF && !sameProto
	if overlap && !allowPF {
		return ruleConflict(fmt.Sprintf("The range specified, %d-%d, conflicts with rule %s which has %d-%d",
			nr.start, nr.end, s.ruleString(r), r.start, r.end))
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

// provisionFirewallRule creates an ingress TCP firewall rule from
// 0.0.0.0/0, as CKS does, with conflict detection.
func (s *Simulator) provisionFirewallRule(ip *publicIP, networkID string, start, end int) *apiError {
	r := &rule{purpose: purposeFirewall, protocol: "tcp", hasPorts: true, start: start, end: end,
		ipID: ip.id, networkID: networkID, accountID: ip.accountID, state: ruleStaged,
		cidrs: []string{"0.0.0.0/0"}, forDisplay: true}
	if err := s.persistRule(r, true); err != nil {
		return err
	}
	r.state = ruleActive
	return nil
}

// provisionPortForward writes a TCP port-forwarding rule straight to the
// table (state Add, no conflict detection, no source CIDRs) and applies it,
// as CKS's provisionPublicIpPortForwardingRule does.
func (s *Simulator) provisionPortForward(ip *publicIP, networkID string, publicPort, privatePort int, v *vm) {
	r := &rule{purpose: purposePF, protocol: "tcp", hasPorts: true, start: publicPort, end: publicPort,
		privateStart: privatePort, privateEnd: privatePort, vmID: v.id, vmGuestIP: v.ip,
		ipID: ip.id, networkID: networkID, accountID: ip.accountID, state: ruleAdd, forDisplay: true}
	_ = s.persistRule(r, false)
	r.state = ruleActive
	s.openForward(r)
}

// provisionLoadBalancer creates the api-lb rule on 6443.
func (s *Simulator) provisionLoadBalancer(ip *publicIP, networkID, name, description string, port int, members []*vm) *apiError {
	r := &rule{purpose: purposeLB, protocol: "tcp", hasPorts: true, start: port, end: port,
		privateStart: port, privateEnd: port, ipID: ip.id, networkID: networkID, accountID: ip.accountID,
		state: ruleAdd, name: name, description: description, algorithm: "roundrobin",
		cidrs: nil, forDisplay: true}
	for _, m := range members {
		r.lbMembers = append(r.lbMembers, m.id)
	}
	if err := s.persistRule(r, true); err != nil {
		return err
	}
	r.state = ruleActive
	return nil
}
