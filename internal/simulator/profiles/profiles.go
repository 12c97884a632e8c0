// Package profiles describes the CloudStack builds the simulator can behave
// as (simulator.Options.Profile): what each one's CKS workers do
// differently, with the upstream change that made the difference. It
// imports nothing of the simulator.
package profiles

import (
	"fmt"
	"slices"
	"strings"
)

// Behaviour profiles: CloudStack builds that exist upstream. Each reports
// its version as listCapabilities' cloudstackversion.
const (
	// Profile42211 is CloudStack 4.22.1.1 (the default):
	// KubernetesClusterResourceModifierActionWorker.removeSshFirewallRule
	// picks the first TCP firewall rule that starts at 2222 or whose twin
	// port forward goes to port 22 (apache/cloudstack#14159); TCP rules
	// without ports are skipped (#12806).
	Profile42211 = "4.22.1.1"
	// Profile42200 is CloudStack 4.22.0.0: the same selector, without the
	// #12806 null check, so a TCP firewall rule without ports that it reaches
	// before the node SSH rule throws a NullPointerException (the job fails
	// with 530 and the cluster stays in Scaling or Destroying).
	Profile42200 = "4.22.0.0"
	// ProfilePR14165 is a 4.22 build with the open fix apache/cloudstack#14165:
	// removeSshFirewallRule prefers the rule starting at 2222 and falls back
	// to the port-forward-to-22 match; the port-forward cleanup that follows
	// is still unbounded ([2222, end of the picked rule], network-wide).
	ProfilePR14165 = "pr14165"
	// Profile42100 is CloudStack 4.21.0.0, the first release with separate
	// etcd nodes: no CSI support (createManagedKubernetesCluster has no
	// csi_enabled column before 4.22, apache/cloudstack#11419, so enablecsi
	// is ignored and the response has no csienabled), and the 4.22.0 scale
	// worker otherwise. It is not in Names(): the matrix runs the 4.22
	// builds.
	Profile42100 = "4.21.0.0"
	// ProfileFixed is an alias of ProfilePR14165, kept for existing callers.
	// The bounded port-forward cleanup it once stood for exists in no
	// upstream build.
	ProfileFixed = "fixed"
)

// Profile is one build's behaviour.
type Profile struct {
	Name              string
	CloudStackVersion string
	// PreferNodeSSHRule: removeSshFirewallRule picks the rule starting at
	// 2222 before falling back to the PF-to-22 predicate (PR #14165).
	PreferNodeSSHRule bool
	// PortlessRuleNPE: a TCP firewall rule without ports reached by
	// removeSshFirewallRule throws a NullPointerException (before #12806).
	PortlessRuleNPE bool
	// Before4221 is 4.22.0.x, from which 4.22.1 differs in the scale worker:
	// a missing node SSH firewall rule fails the rule rebuild
	// (KubernetesClusterScaleWorker.scaleKubernetesClusterIsolatedNetworkRules
	// throws "Firewall rule for node SSH access can't be provisioned"; 4.22.1
	// logs a warning and goes on, #12806), and a size-only scale-down removes
	// the workers after subList(controlNodeCount + size - 1) (4.22.1 removes
	// the last node_count - size workers, getWorkerNodesToRemove, #12302).
	Before4221 bool
	// NoCSI is a server before 4.22: enablecsi is ignored and the cluster
	// response has no csienabled.
	NoCSI bool
	// ExternalPortCountsEtcd: addNodesToKubernetesCluster gives external
	// node k the port 2222 + getTotalNodeCount() + k, etcd nodes included
	// (KubernetesClusterAddWorker.validateAndSetupNode in 4.21.0; later
	// revisions subtract getEtcdNodeCount()).
	ExternalPortCountsEtcd bool
}

var matrix = []Profile{
	{Name: Profile42211, CloudStackVersion: "4.22.1.1"},
	{Name: Profile42200, CloudStackVersion: "4.22.0.0", PortlessRuleNPE: true, Before4221: true},
	{Name: ProfilePR14165, CloudStackVersion: "4.22.2.0", PreferNodeSSHRule: true},
}

// otherProfiles are selectable by name but not in the default matrix.
var otherProfiles = []Profile{
	{Name: Profile42100, CloudStackVersion: "4.21.0.0", PortlessRuleNPE: true, Before4221: true, NoCSI: true,
		ExternalPortCountsEtcd: true},
}

// Names returns the name of every behaviour profile (aliases excluded),
// the default first, for profile-matrix tests.
func Names() []string {
	out := make([]string, 0, len(matrix))
	for _, p := range matrix {
		out = append(out, p.Name)
	}
	return out
}

// ByName is the profile of a name: "" is the default, ProfileFixed an
// alias of ProfilePR14165.
func ByName(name string) (Profile, error) {
	switch name {
	case "":
		name = Profile42211
	case ProfileFixed:
		name = ProfilePR14165
	}
	for _, p := range append(slices.Clone(matrix), otherProfiles...) {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("simulator: unknown profile %q (want one of %s, or %q for %s)",
		name, strings.Join(Names(), ", "), ProfileFixed, ProfilePR14165)
}
