package rules

import "strings"

// DetectConflict mirrors CloudStack's FirewallManagerImpl.detectRulesConflict
// for a candidate rule against the active rules on the same
// public IP, and returns the first existing rule the server would report.
// The server answers such a create with HTTP 537 and keeps nothing.
//
//   - A firewall rule never conflicts with a rule of another kind, nor with a
//     firewall rule of another protocol.
//   - Two firewall rules, or two forwards, conflict only if their source
//     CIDRs intersect (exact strings; two empty lists intersect).
//   - Two forwards of different protocols never conflict; a forward and a
//     load balancer rule do, whatever their protocols.
//   - Rules of different networks always conflict.
//   - Otherwise the public port ranges must overlap; a rule without ports
//     only conflicts with another rule without ports (same protocol, CIDRs).
func DetectConflict(existing []Rule, candidate Rule) (Rule, bool) {
	for _, r := range existing {
		if candidate.ID != "" && r.ID == candidate.ID {
			continue
		}
		if conflicts(r, candidate) {
			return r, true
		}
	}
	return Rule{}, false
}

func conflicts(existing, candidate Rule) bool {
	sameProtocol := strings.EqualFold(strings.TrimSpace(existing.Protocol), strings.TrimSpace(candidate.Protocol))
	oneIsFirewall := (existing.Kind == KindFirewall || candidate.Kind == KindFirewall) &&
		(existing.Kind != candidate.Kind || !sameProtocol)
	bothFirewall := existing.Kind == KindFirewall && candidate.Kind == KindFirewall

	if existing.NetworkID != "" && candidate.NetworkID != "" && existing.NetworkID != candidate.NetworkID {
		return true
	}
	if oneIsFirewall {
		return false
	}
	if (bothFirewall || existing.Kind == KindPortForward && candidate.Kind == KindPortForward) &&
		!cidrsIntersect(cidrs(existing), cidrs(candidate)) {
		return false
	}
	if existing.Kind == KindPortForward && candidate.Kind == KindPortForward && !sameProtocol {
		return false
	}

	existingPorts, candidatePorts := existing.StartPort > 0, candidate.StartPort > 0
	if !existingPorts || !candidatePorts {
		// Only two port-less firewall rules of one protocol collide.
		return bothFirewall && !existingPorts && !candidatePorts && sameProtocol
	}
	return existing.StartPort <= candidate.End() && candidate.StartPort <= existing.End()
}

// cidrsIntersect is detectConflictingCidrs: exact string intersection, where
// two empty lists count as intersecting.
func cidrsIntersect(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
