package simulator

import "fmt"

// Behaviour profiles.
const (
	// Profile42211 is CloudStack 4.22.1.1, with the #14159 scale-down bug.
	Profile42211 = "4.22.1.1"
	// ProfileFixed is a 4.22 build with the #14159 fix: removeSshFirewallRule
	// prefers the rule starting at 2222 and the port-forward cleanup is bounded
	// to the node range.
	ProfileFixed = "fixed"
)

type profile struct {
	name              string
	cloudStackVersion string
	// preferNodeSSHRule: removeSshFirewallRule picks the rule starting at
	// 2222 before falling back to the PF-to-22 predicate (PR #14165).
	preferNodeSSHRule bool
	// boundedPFCleanup: the range port-forward cleanup stops at the end of the
	// node range (2222 + old node count - 1) instead of the picked rule's end.
	boundedPFCleanup bool
}

func profileByName(name string) (profile, error) {
	switch name {
	case "", Profile42211:
		return profile{name: Profile42211, cloudStackVersion: "4.22.1.1"}, nil
	case ProfileFixed:
		return profile{name: ProfileFixed, cloudStackVersion: "4.22.2.0", preferNodeSSHRule: true, boundedPFCleanup: true}, nil
	default:
		return profile{}, fmt.Errorf("simulator: unknown profile %q (want %q or %q)", name, Profile42211, ProfileFixed)
	}
}
