package rules

import "slices"

// The selector of CloudStack's scale and destroy workers
// (KubernetesClusterResourceModifierActionWorker.removeSshFirewallRule):
// over the TCP firewall rules of the cluster's IP, the first that starts at
// 2222, or whose exact public ports are those of a port forward in the
// network (portForwardingRulesDao.findByNetworkAndPorts) that targets port
// 22. The DAO query has no ORDER BY, and findByNetworkAndPorts picks one of
// several equal forwards at random, so nothing here depends on an order.

// anyForwardToSSH is the conservative form of forwardsToSSH for hazards:
// the DAO's choice between several forwards with the same ports is not
// specified, so any of them targeting port 22 counts.
func anyForwardToSSH(forwards []Rule, fw Rule) bool {
	if fw.StartPort <= 0 {
		return false
	}
	for _, pf := range forwards {
		if pf.Kind == KindPortForward && sameNetwork(pf, fw) &&
			pf.StartPort == fw.StartPort && pf.End() == fw.End() && pf.PrivatePort == SSHPort {
			return true
		}
	}
	return false
}

func sameNetwork(a, b Rule) bool {
	return a.NetworkID == "" || b.NetworkID == "" || a.NetworkID == b.NetworkID
}

// ArmedEtcdRules tells whether CKS's single-port etcd SSH firewall rules
// are armed: whether a scale re-created the node SSH range after them, so
// that the scale worker, which in practice reads rules in ascending id
// order, would meet an etcd rule before the range and revoke it (#14159).
// A cluster CKS created and no scale touched has the range first and its
// first scale is safe. firewalls is listFirewallRules' answer for the IP;
// the order the server gave it in is each rule's Listed, which the client
// keeps while it hands every list on sorted by id.
//
// This is the one judgement that needs an order, and only for clusters in
// CKS's own layout: the provider replaces those rules with an etcd SSH
// range, which no order can make dangerous. The id order comes from the
// list, which FirewallManagerImpl.listFirewallRules sorts newest first
// (Filter on "id", descending). The direction is checked against rules
// whose creation order is fixed: CKS creates the API rule 6443 before the
// etcd rules (KubernetesClusterResourceModifierActionWorker), and no scale
// re-creates either. When the list contradicts both directions (known is
// false), the rules are reported armed. A list in no order at all may still
// look ordered by chance, so the verdict is only as good as the server's
// order.
func ArmedEtcdRules(l Layout, firewalls []Rule) (armed, known bool) {
	c := Classify(l, slices.SortedStableFunc(slices.Values(firewalls), func(a, b Rule) int { return a.Listed - b.Listed }))
	rangeAt, apiAt := -1, -1
	var etcdAt []int
	for i, cr := range c.Rules {
		switch cr.Purpose {
		case PurposeNodeSSHRange:
			if rangeAt < 0 {
				rangeAt = i
			}
		case PurposeAPIFirewall:
			apiAt = i
		case PurposeEtcdFirewall:
			etcdAt = append(etcdAt, i)
		}
	}
	switch {
	case len(etcdAt) == 0:
		return false, true
	case rangeAt < 0:
		// Without a range the selector can only pick an etcd rule.
		return true, true
	}
	newestFirst := true
	if apiAt >= 0 {
		before, after := 0, 0
		for _, e := range etcdAt {
			if e < apiAt {
				before++
			} else {
				after++
			}
		}
		switch {
		case after == 0: // every etcd rule listed before the older API rule
		case before == 0:
			newestFirst = false
		default:
			return true, false
		}
	}
	for _, e := range etcdAt {
		// An etcd rule older than the range is evaluated before it.
		if (newestFirst && e > rangeAt) || (!newestFirst && e < rangeAt) {
			return true, true
		}
	}
	return false, true
}

// DetectEtcdStartPort reads cloud.kubernetes.etcd.node.start.port from the
// cluster's etcd forwards: CKS forwards public ports start..start+E-1 to
// port 22 of its etcd VMs (KubernetesClusterStartWorker.
// setupKubernetesEtcdNetworkRules), in the order of its own VM map query,
// which the API does not promise to repeat, so only the ports are used:
// start lies between the highest port minus E-1 and the lowest. The setting
// is dynamic, so the value configured now (l.EtcdStartPort) may not be the
// cluster's; it decides only between the candidates the forwards leave, and
// otherwise the lowest candidate wins (a lost forward is the first one's,
// as after apache/cloudstack#14159). It reports false when no etcd forward
// exists.
func DetectEtcdStartPort(l Layout, forwards []Rule) (int, bool) {
	etcd := map[string]bool{}
	for _, n := range l.etcdNodes() {
		etcd[n.ID] = true
	}
	lowest, highest := 0, 0
	for _, pf := range forwards {
		public, single := singlePublicPort(pf)
		if pf.Kind != KindPortForward || !etcd[pf.VMID] || !single || privateSinglePort(pf) != SSHPort || !isTCP(pf) {
			continue
		}
		if lowest == 0 || public < lowest {
			lowest = public
		}
		highest = max(highest, public)
	}
	if lowest == 0 {
		return 0, false
	}
	from := max(highest-(len(etcd)-1), 1)
	if from > lowest {
		return lowest, true // more ports than etcd nodes: the lowest is CKS's
	}
	if configured := l.etcdStart(); configured >= from && configured <= lowest {
		return configured, true
	}
	return from, true
}

// DestroyCandidates are the user firewall rules of the classification that
// the destroy worker on a network the user gave may revoke in the place of
// CKS's: KubernetesClusterDestroyWorker.
// deleteKubernetesClusterIsolatedNetworkRules revokes the first TCP rule of
// the IP whose ports are exactly 6443-6443 (removeApiFirewallRule) and the
// first the SSH selector accepts (removeSshFirewallRule), both in the DAO's
// order, which has no ORDER BY. So every such rule of the user is at risk,
// whatever its age: the provider's own re-created API rule is younger than
// a user rule made before it, and no order is promised anyway.
// networkForwards are the port forwards of the whole network, which the SSH
// selector's twin test looks at (the destroy expunges the cluster's VMs,
// and their forwards, before it picks, so a rule whose twin reaches a
// cluster VM is listed though it is rarely taken).
func DestroyCandidates(c Classification, networkForwards []Rule) []Rule {
	var out []Rule
	for _, cr := range c.Rules {
		r := cr.Rule
		if cr.Owned() || r.Kind != KindFirewall || !isTCP(r) || r.StartPort <= 0 {
			continue
		}
		api := r.StartPort == APIPort && r.End() == APIPort
		if api || r.StartPort == NodeSSHStartPort || anyForwardToSSH(networkForwards, r) {
			out = append(out, r)
		}
	}
	return out
}
