package clusterops

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// describeRule names a rule in words for report messages, e.g. "etcd SSH
// firewall rule 50000" or "node SSH port forward 2222→22 to VM c-control-1".
func (s *Snapshot) describeRule(r rules.Rule, purpose rules.Purpose) string {
	ports := rules.PortRange(r.StartPort, r.EndPort)
	switch r.Kind {
	case rules.KindFirewall:
		switch purpose {
		case rules.PurposeNodeSSHRange:
			return "node SSH firewall range " + ports
		case rules.PurposeExternalSSHFirewall:
			return "external node SSH firewall rule " + ports
		case rules.PurposeEtcdFirewall:
			return "etcd SSH firewall rule " + ports
		case rules.PurposeEtcdSSHRange:
			return "etcd SSH firewall range " + ports
		case rules.PurposeAPIFirewall:
			return "API firewall rule " + ports
		default:
			return fmt.Sprintf("user firewall rule %s %s from %s", strings.ToLower(r.Protocol), ports, rules.CIDRText(r.CIDRs))
		}
	case rules.KindPortForward:
		what := "port forward"
		switch purpose {
		case rules.PurposeNodeSSHForward:
			what = "node SSH port forward"
		case rules.PurposeEtcdForward:
			what = "etcd SSH port forward"
		case rules.PurposeUser:
			what = "user port forward"
		}
		return fmt.Sprintf("%s %s→%s to %sVM %s", what, ports, rules.PortRange(r.PrivatePort, r.PrivateEndPort), s.roleOf(r.VMID), s.vmName(r.VMID))
	default:
		return fmt.Sprintf("load balancer rule %s→%s", ports, rules.PortRange(r.PrivatePort, r.PrivateEndPort))
	}
}

// roleOf is "control ", "worker " or "etcd " for a VM of the cluster's
// map, "" for any other.
func (s *Snapshot) roleOf(id string) string {
	if s != nil {
		for _, n := range s.Layout.Nodes {
			if n.ID == id && n.Role != "" {
				return string(n.Role) + " "
			}
		}
	}
	return ""
}

// vmName names a VM of the cluster as "name (id)", or by id alone.
func (s *Snapshot) vmName(id string) string {
	if s != nil {
		for _, vm := range s.Cluster.VirtualMachines {
			if vm.ID == id && vm.Name != "" {
				return fmt.Sprintf("%s (%s)", vm.Name, id)
			}
		}
	}
	return id
}

// DescribePlan words each change of a rule plan for a plan-time message,
// e.g. "create node SSH firewall range 2222-2223 from 10.0.0.0/8", and each
// rule it cannot create.
func (s *Snapshot) DescribePlan(p rules.Plan) []string {
	var out []string
	for _, a := range p.Actions() {
		desc := s.describeRule(a.Rule, a.Purpose)
		switch {
		case a.Op == rules.OpDelete:
			out = append(out, fmt.Sprintf("delete %s (rule %s): %s", desc, a.Rule.ID, strings.TrimPrefix(a.Reason, "stale: ")))
		case a.Rule.Kind == rules.KindFirewall:
			out = append(out, fmt.Sprintf("create %s from %s", desc, rules.CIDRText(a.Rule.CIDRs)))
		default:
			out = append(out, "create "+desc)
		}
	}
	for _, b := range p.Blocked {
		out = append(out, fmt.Sprintf("not create %s: %s%s", s.describeRule(b.Expectation.Rule(s.Layout), b.Expectation.Purpose),
			b.Reason, s.keptText(b)))
	}
	return append(s.describeACLSync(), out...)
}

// keptText says which rules a blocked rule leaves in place, so that
// nothing it would replace closes: "; rule 84 (API firewall rule 6443 from
// 127.0.0.1/32) stays until then".
func (s *Snapshot) keptText(b rules.Blocked) string {
	if len(b.Kept) == 0 {
		return ""
	}
	parts := make([]string, 0, len(b.Kept))
	for _, r := range b.Kept {
		what := s.describeRule(r, b.Expectation.Purpose)
		if r.Kind == rules.KindFirewall {
			what += " from " + rules.CIDRText(r.CIDRs)
		}
		parts = append(parts, fmt.Sprintf("rule %s (%s)", r.ID, what))
	}
	verb := "stays"
	if len(parts) > 1 {
		verb = "stay"
	}
	return fmt.Sprintf("; %s %s until then, so nothing it serves closes", strings.Join(parts, ", "), verb)
}

// DescribeClusters names clusters by id, zone, state and creation time.
func DescribeClusters(cs []cloudstack.Cluster) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, describeCluster(c))
	}
	return strings.Join(parts, "; ")
}

func describeCluster(c cloudstack.Cluster) string {
	s := fmt.Sprintf("id %s, zone %s, state %s", c.ID, c.ZoneID, c.State)
	if c.Created != "" {
		s += ", created " + c.Created
	}
	return s
}
