package drift

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// compareRules reports SSH rules that no longer fit the VM map and rules
// that would make the next scale fail (#14159).
func (c *comparison) compareRules() {
	view := c.in.Rules
	if view == nil {
		return
	}
	l := view.Layout
	names := map[string]string{}
	for _, n := range l.Nodes {
		names[n.ID] = n.Name
	}
	cl := rules.Classify(l, view.Rules)

	staleRange := false
	for _, s := range cl.Stale {
		r := s.Rule
		switch s.Purpose {
		case rules.PurposeNodeSSHForward, rules.PurposeEtcdForward:
			c.add(Finding{Kind: KindSSHForwardStale, RuleID: r.ID, VMID: r.VMID, VMName: names[r.VMID],
				Message: fmt.Sprintf("SSH port forward %s (%d -> %d): %s", r.ID, r.StartPort, r.PrivatePort, s.Reason)})
		case rules.PurposeNodeSSHRange:
			staleRange = true
			c.add(Finding{Kind: KindSSHFirewallRangeMismatch, RuleID: r.ID,
				Message: fmt.Sprintf("firewall rule %s: %s", r.ID, s.Reason)})
		}
	}

	for _, e := range cl.Missing {
		switch e.Purpose {
		case rules.PurposeNodeSSHForward:
			c.add(Finding{Kind: KindSSHForwardMissing, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("SSH port forward %d -> %d to %s is missing", e.StartPort, e.PrivatePort, vmText(e.VMID, names))})
		case rules.PurposeNodeSSHRange:
			if !staleRange {
				c.add(Finding{Kind: KindSSHFirewallRangeMismatch,
					Message: fmt.Sprintf("node SSH firewall range %d-%d is missing", e.StartPort, e.EndPort)})
			}
		case rules.PurposeExternalSSHFirewall:
			c.add(Finding{Kind: KindSSHFirewallRangeMismatch, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("SSH firewall port %d for external node %s is missing", e.StartPort, vmText(e.VMID, names))})
		case rules.PurposeEtcdFirewall:
			c.add(Finding{Kind: KindEtcdSSHRuleMissing, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("etcd SSH firewall rule %d for %s is missing", e.StartPort, vmText(e.VMID, names))})
		case rules.PurposeEtcdForward:
			c.add(Finding{Kind: KindEtcdSSHRuleMissing, VMID: e.VMID, VMName: names[e.VMID],
				Message: fmt.Sprintf("etcd SSH port forward %d -> %d to %s is missing", e.StartPort, e.PrivatePort, vmText(e.VMID, names))})
		}
	}

	for _, h := range rules.Hazards(l, view.Rules, view.NetworkForwards) {
		f := Finding{Kind: KindScaleHazard, RuleID: h.Rule.ID, Message: h.Explanation}
		if h.Rule.Kind == rules.KindPortForward {
			f.VMID = h.Rule.VMID
			f.VMName = names[h.Rule.VMID]
		}
		c.add(f)
	}
}

func vmText(id string, names map[string]string) string {
	if name := names[id]; name != "" {
		return fmt.Sprintf("VM %s (%s)", name, id)
	}
	return "VM " + id
}
