package rules

// Models of removeSshFirewallRule for the rule timelines in the tests.

// BuggyPick is KubernetesClusterResourceModifierActionWorker's
// removeSshFirewallRule, which KubernetesClusterScaleWorker calls, as
// shipped from 4.21.0 through at least 4.22.1.1 (apache/cloudstack#14159):
// over the TCP firewall rules in id order, the first one that starts at
// 2222, or whose exact public ports are those of a port forward in the
// network that targets port 22. rules holds the firewall rules of the IP
// and the port forwards of the whole network.
//
// After a scale re-creates the node range, every etcd firewall rule comes
// first and matches through its 50000+j -> 22 forward, which is the bug.
func BuggyPick(rules []Rule) (Rule, bool) {
	for _, fw := range tcpFirewalls(rules) {
		if fw.StartPort == NodeSSHStartPort || forwardsToSSH(rules, fw) {
			return fw, true
		}
	}
	return Rule{}, false
}

// FixedPick is removeSshFirewallRule as proposed by PR #14165: the first TCP
// firewall rule that starts at 2222 (always the node range), falling back to
// BuggyPick's forward test only when there is none.
func FixedPick(rules []Rule) (Rule, bool) {
	fws := tcpFirewalls(rules)
	for _, fw := range fws {
		if fw.StartPort == NodeSSHStartPort {
			return fw, true
		}
	}
	for _, fw := range fws {
		if forwardsToSSH(rules, fw) {
			return fw, true
		}
	}
	return Rule{}, false
}

func tcpFirewalls(rules []Rule) []Rule {
	var out []Rule
	for _, r := range rules {
		if r.Kind == KindFirewall && isTCP(r) {
			out = append(out, r)
		}
	}
	return out
}

// forwardsToSSH mirrors findByNetworkAndPorts(network, start, end) followed
// by the private port test: the DAO returns one forward with exactly those
// public ports (the first in id order here), which must target port 22.
func forwardsToSSH(rules []Rule, fw Rule) bool {
	if fw.StartPort <= 0 {
		return false
	}
	for _, pf := range rules {
		if pf.Kind != KindPortForward || !sameNetwork(pf, fw) {
			continue
		}
		if pf.StartPort == fw.StartPort && pf.End() == fw.End() {
			return pf.PrivatePort == SSHPort
		}
	}
	return false
}
