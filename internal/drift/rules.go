package drift

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// compareRules reports the SSH and API rules that no longer fit the VM map
// and the rules that would make the next scale, by any client, go wrong.
// It expects the rules the provider keeps (rules.Expected), and accepts in
// their place CKS's own single-port etcd SSH rules as long as no scale has
// armed them (rules.ArmedEtcdRules): such a cluster's first scale is safe.
// It returns why the rules were not compared when the view could not be
// built (RulesView.Err), and "" otherwise.
func (c *comparison) compareRules() string {
	view := c.in.Rules
	switch {
	case view == nil:
		return ""
	case view.Err != nil:
		return view.Err.Error()
	}
	view = withOwnSSHRules(view)
	l := view.Layout
	names := map[string]string{}
	for _, n := range l.Nodes {
		names[n.ID] = n.Name
	}
	cl := rules.Classify(l, view.Rules)
	cksEtcd := cksEtcdLayout(cl)

	stale := c.reportStaleRules(l, cl, names)
	foreign := c.reportMissingRules(view, cl, cksEtcd, stale, names)
	c.reportExposures(l, cl, foreign)
	c.reportMissingACLItems(view)
	c.reportScaleHazards(view, cksEtcd, names)
	c.describeAPIRules(view)
	return ""
}

// staleKinds says which expected rules were reported stale, so that the
// same rule is not also reported missing.
type staleKinds struct{ nodeRange, etcdRange, api bool }

// reportStaleRules reports the rules that no longer fit the VM map. CKS's
// own node range beside its single-port external node rules is not
// reported: every SSH path works, and the scale hazards those rules are
// (reportScaleHazards) say what is wrong with them.
func (c *comparison) reportStaleRules(l rules.Layout, cl rules.Classification, names map[string]string) staleKinds {
	var stale staleKinds
	cksExternal := cksExternalLayout(l, cl)
	for _, s := range cl.Stale {
		if c.reportSSHCIDRs(l, s, &stale) {
			continue
		}
		r := s.Rule
		switch s.Purpose {
		case rules.PurposeNodeSSHForward, rules.PurposeEtcdForward:
			c.add(Finding{Kind: KindSSHForwardStale, RuleID: r.ID, VMID: r.VMID, VMName: names[r.VMID],
				Message: fmt.Sprintf("SSH port forward %s (%d -> %d): %s", r.ID, r.StartPort, r.PrivatePort, s.Reason)})
		case rules.PurposeNodeSSHRange:
			stale.nodeRange = true
			if cksExternal && r.StartPort == rules.NodeSSHStartPort && r.EndPort == rules.NodeSSHStartPort+l.InternalCount()-1 {
				continue
			}
			c.add(Finding{Kind: KindSSHFirewallRangeMismatch, RuleID: r.ID,
				Message: fmt.Sprintf("firewall rule %s: %s", r.ID, s.Reason)})
		case rules.PurposeAPIFirewall:
			stale.api = true
			c.add(Finding{Kind: KindAPIRuleMismatch, RuleID: r.ID,
				Message: fmt.Sprintf("firewall rule %s: %s", r.ID, s.Reason)})
		case rules.PurposeAPIForward:
			stale.api = true
			c.add(Finding{Kind: KindAPIRuleMismatch, RuleID: r.ID, VMID: r.VMID, VMName: names[r.VMID],
				Message: fmt.Sprintf("port forward %s (%d -> %d): %s", r.ID, r.StartPort, r.PrivatePort, s.Reason)})
		}
	}

	return stale
}

// reportMissingRules reports the expected rules that do not exist. It
// returns the ids of the user rules it reported in the place of a missing
// API rule.
func (c *comparison) reportMissingRules(view *RulesView, cl rules.Classification, cksEtcd bool, stale staleKinds,
	names map[string]string,
) map[string]bool {
	l := view.Layout
	foreign := map[string]bool{}
	for _, e := range cl.Missing {
		switch e.Purpose {
		case rules.PurposeNodeSSHForward:
			c.add(Finding{Kind: KindSSHForwardMissing, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("SSH port forward %d -> %d to %s is missing", e.StartPort, e.PrivatePort, vmText(e.VMID, names))})
		case rules.PurposeNodeSSHRange:
			if !stale.nodeRange {
				c.add(Finding{Kind: KindSSHFirewallRangeMismatch,
					Message: fmt.Sprintf("node SSH firewall range %d-%d is missing", e.StartPort, e.EndPort)})
			}
		case rules.PurposeEtcdSSHRange:
			if !stale.etcdRange {
				c.reportEtcdFirewalls(l, cl, cksEtcd, names)
			}
		case rules.PurposeEtcdForward:
			c.add(Finding{Kind: KindEtcdSSHRuleMissing, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("etcd SSH port forward %d -> %d to %s is missing", e.StartPort, e.PrivatePort, vmText(e.VMID, names))})
		case rules.PurposeAPIFirewall:
			if !stale.api {
				c.reportAPIFirewall(cl, e, foreign)
			}
		case rules.PurposeAPILoadBalancer:
			if view.LoadBalancersListed {
				c.add(Finding{Kind: KindAPIRuleMissing, Message: fmt.Sprintf("the API load balancer rule %d -> %d is missing: the "+
					"Kubernetes API of cluster %s cannot be reached from outside", e.StartPort, e.PrivatePort, c.in.Cluster.Name)})
			}
		case rules.PurposeAPIForward:
			if !stale.api {
				c.add(Finding{Kind: KindAPIRuleMissing, Message: fmt.Sprintf("the API port forward %d -> %d to a control node "+
					"is missing: the Kubernetes API of cluster %s cannot be reached through its VPC IP", e.StartPort, e.PrivatePort,
					c.in.Cluster.Name)})
			}
		}
	}
	return foreign
}

// reportExposures reports the rules of others that open the API port, or
// an SSH port of the layout, to addresses the configured api_cidrs or
// ssh_cidrs do not admit, whatever the strings of their CIDRs
// (rules.Exposures compares address space). A rule already reported in the
// place of a missing API rule is not reported again.
func (c *comparison) reportExposures(l rules.Layout, cl rules.Classification, reported map[string]bool) {
	for _, e := range rules.Exposures(l, cl) {
		r := e.Rule
		source := strings.Join(r.CIDRs, ",")
		if source == "" {
			source = rules.AnyCIDR
		}
		if e.API {
			if reported[r.ID] {
				continue
			}
			c.add(Finding{Kind: KindAPIRuleMismatch, RuleID: r.ID, Message: fmt.Sprintf("firewall rule %s opens %s to %s, "+
				"which admits %s, outside api_cidrs %s: the Kubernetes API of cluster %s is open beyond them; it is not the "+
				"cluster's rule, so only its owner can narrow or delete it", r.ID, e.Ports, source, e.Outside,
				strings.Join(e.Allowed, ","), c.in.Cluster.Name)})
			continue
		}
		c.add(Finding{Kind: KindSSHFirewallRangeMismatch, RuleID: r.ID, Message: fmt.Sprintf("firewall rule %s opens SSH "+
			"port(s) %s of cluster %s to %s, which admits %s, outside ssh_cidrs %s; it is not the cluster's rule, so only "+
			"its owner can narrow or delete it", r.ID, e.Ports, c.in.Cluster.Name, source, e.Outside, strings.Join(e.Allowed, ","))})
	}
}

// reportScaleHazards reports the rules that would make the next scale, by
// any client, go wrong.
func (c *comparison) reportScaleHazards(view *RulesView, cksEtcd bool, names map[string]string) {
	l := view.Layout
	armed, known := true, true
	if cksEtcd {
		armed, known = rules.ArmedEtcdRules(l, view.Firewalls())
	}
	hazards := rules.Preflight(l, view.Rules, view.NetworkForwards, view.Server)
	if l.Network == rules.NetworkVPC {
		// The next scale up deletes every forward of the tier up to the
		// port its new node gets.
		hazards = rules.PreflightVPC(l, view.Rules, view.NetworkForwards, l.NodeVMCount()+1)
	}
	for _, h := range hazards {
		if h.Purpose == rules.PurposeEtcdFirewall && h.Owner == rules.OwnerCKS && !armed {
			continue // CKS's own layout that no scale touched: its next scale is safe
		}
		f := Finding{Kind: KindScaleHazard, RuleID: h.Rule.ID, Message: h.Explanation}
		if h.Purpose == rules.PurposeEtcdFirewall && !known {
			f.Message += "; the server's rule order could not be read from the list, so this rule is assumed to come first"
		}
		if h.Rule.Kind == rules.KindPortForward {
			f.VMID = h.Rule.VMID
			f.VMName = names[h.Rule.VMID]
		}
		c.add(f)
	}
}

// cksExternalLayout reports whether the external nodes have CKS's own
// single-port SSH firewall rules.
func cksExternalLayout(l rules.Layout, cl rules.Classification) bool {
	external := 0
	for _, n := range l.Nodes {
		if n.External {
			external++
		}
	}
	singles := 0
	for _, cr := range cl.Rules {
		if cr.Purpose == rules.PurposeExternalSSHFirewall {
			singles++
		}
	}
	return external > 0 && singles > 0
}

// cksEtcdLayout reports whether the etcd SSH firewall rules are CKS's own:
// single-port rules and no etcd SSH range.
func cksEtcdLayout(cl rules.Classification) bool {
	hasRange, singles := false, 0
	for _, cr := range cl.Rules {
		switch cr.Purpose {
		case rules.PurposeEtcdSSHRange:
			hasRange = true
		case rules.PurposeEtcdFirewall:
			singles++
		}
	}
	return !hasRange && singles > 0
}

// reportEtcdFirewalls reports the etcd SSH firewall rules that are
// missing: in CKS's own layout each etcd node's single-port rule, else the
// provider's etcd SSH range.
func (c *comparison) reportEtcdFirewalls(l rules.Layout, cl rules.Classification, cksEtcd bool, names map[string]string) {
	if !cksEtcd {
		from, to := 0, 0
		for _, e := range rules.Expected(l) {
			if e.Purpose == rules.PurposeEtcdSSHRange {
				from, to = e.StartPort, e.EndPort
			}
		}
		c.add(Finding{Kind: KindEtcdSSHRuleMissing,
			Message: fmt.Sprintf("the etcd SSH firewall rule (%d-%d) is missing: the etcd nodes cannot be reached over SSH", from, to)})
		return
	}
	have := map[int]bool{}
	for _, cr := range cl.Rules {
		if cr.Purpose == rules.PurposeEtcdFirewall {
			have[cr.Index] = true
		}
	}
	for _, e := range rules.Expected(l) {
		if e.Purpose != rules.PurposeEtcdForward || have[e.Index] {
			continue
		}
		c.add(Finding{Kind: KindEtcdSSHRuleMissing, VMID: e.VMID, VMName: names[e.VMID],
			Message: fmt.Sprintf("etcd SSH firewall rule %d for %s is missing", e.StartPort, vmText(e.VMID, names))})
	}
}

// reportAPIFirewall reports the expected API firewall rule as missing, or,
// when rules the user keeps open 6443 to other CIDRs, each of them as a
// mismatch: the API is then reachable from those CIDRs only. Each such rule
// is reported, so that the findings do not depend on the list's order.
func (c *comparison) reportAPIFirewall(cl rules.Classification, e rules.Expectation, reported map[string]bool) {
	foreign := false
	for _, cr := range cl.Rules {
		r := cr.Rule
		if cr.Owned() || r.Kind != rules.KindFirewall || r.StartPort != rules.APIPort || (r.EndPort != 0 && r.EndPort != rules.APIPort) {
			continue
		}
		c.add(Finding{Kind: KindAPIRuleMismatch, RuleID: r.ID, Message: fmt.Sprintf("firewall rule %s opens %d to %s, not to %s: "+
			"the Kubernetes API of cluster %s is open to those CIDRs instead; if the cks_cluster sets api_cidrs, give the "+
			"check the same", r.ID, rules.APIPort, strings.Join(r.CIDRs, ","), strings.Join(e.CIDRs, ","), c.in.Cluster.Name)})
		reported[r.ID] = true
		foreign = true
	}
	if foreign {
		return
	}
	c.add(Finding{Kind: KindAPIRuleMissing, Message: fmt.Sprintf("the API firewall rule %d is missing: the Kubernetes API "+
		"of cluster %s cannot be reached from outside", e.StartPort, c.in.Cluster.Name)})
}

func vmText(id string, names map[string]string) string {
	if name := names[id]; name != "" {
		return fmt.Sprintf("VM %s (%s)", name, id)
	}
	return "VM " + id
}

// reportMissingACLItems reports the network ACL items CKS keeps on a VPC
// tier's list that are missing (rules.ExpectedACL).
func (c *comparison) reportMissingACLItems(view *RulesView) {
	if view.ACL == nil {
		return
	}
	what := map[rules.Purpose]string{rules.PurposeAPIACL: "the Kubernetes API", rules.PurposeSSHACL: "SSH to the nodes through " +
		"their port forwards", rules.PurposeEtcdACL: "the etcd nodes' client port"}
	for _, e := range rules.ClassifyACL(view.Layout, *view.ACL).Missing {
		list := view.ACL.ID
		if view.ACL.Name != "" {
			list = fmt.Sprintf("%s (%s)", view.ACL.Name, view.ACL.ID)
		}
		c.add(Finding{Kind: KindNetworkACLItemMissing, Message: fmt.Sprintf("nothing on the network ACL list %s of the cluster's "+
			"VPC tier lets TCP %d in (CKS's item for it is gone, or an item denies it to everyone first): %s cannot be reached "+
			"through the tier, by CloudStack (which needs it to start, scale and upgrade the cluster) or anyone else", list, e.Port,
			what[e.Purpose])})
	}
}
