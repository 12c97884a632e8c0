package clusterview

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// ServerFor describes the management server for the hazards of a cluster's
// rules. Only a TCP firewall rule without ports makes its version matter,
// so version is called only when the rules hold one; a version that cannot
// be read counts as one that breaks on it.
func ServerFor(onIP []rules.Rule, version func() (string, error)) rules.Server {
	if !slices.ContainsFunc(onIP, rules.PortlessTCP) {
		return rules.Server{}
	}
	v, err := version()
	return rules.Server{PortlessRuleBreaksScale: err != nil || PortlessRuleBreaksScale(v)}
}

// PortlessRuleBreaksScale reports whether a CloudStack version's scale
// worker throws on a TCP firewall rule without ports: removeSshFirewallRule
// appeared in 4.21.0 (apache/cloudstack#9102) and unboxed the null ports
// until 4.22.1 (#12806 added the null check). An unparsable version counts
// as affected.
func PortlessRuleBreaksScale(version string) bool {
	v, ok := parseVersion(version)
	if !ok {
		return true
	}
	return !less(v, [4]int{4, 21, 0, 0}) && less(v, [4]int{4, 22, 1, 0})
}

// LacksCSI reports whether a CloudStack version is known to have no CKS CSI
// driver support: the CSI driver came with 4.22.0 (apache/cloudstack#11419).
// An unparsable version is not known to lack it.
func LacksCSI(version string) bool {
	v, ok := parseVersion(version)
	return ok && less(v, [4]int{4, 22, 0, 0})
}

func parseVersion(s string) ([4]int, bool) {
	var v [4]int
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) < 2 {
		return v, false
	}
	for i := 0; i < len(parts) && i < 4; i++ {
		digits := parts[i]
		if end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
			digits = digits[:end] // "0-SNAPSHOT"
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func less(a, b [4]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// ExternalPortCountsEtcd reports whether a CloudStack version gives a new
// external node the port 2222 + C + node_count + E (the etcd nodes counted,
// as the KubernetesClusterAddWorker revision read for 4.21 does) rather than
// 2222 + C + node_count (later revisions subtract getEtcdNodeCount()). An
// unparsable version is taken to be a later one.
func ExternalPortCountsEtcd(version string) bool {
	v, ok := parseVersion(version)
	return ok && !less(v, [4]int{4, 21, 0, 0}) && less(v, [4]int{4, 22, 0, 0})
}
