package simulator

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"

// openForward starts the SSH endpoint of a port-forwarding rule to port 22,
// unless the network ACL of its VPC tier keeps SSH out. Callers hold s.mu.
func (s *Simulator) openForward(r *rule) {
	if r.purpose != purposePF || r.privateStart != 22 || r.state != ruleActive || !s.forwardAllowed(r) {
		return
	}
	ip := s.st.ip(r.ipID)
	v := s.st.vm(r.vmID)
	if ip == nil || v == nil {
		return
	}
	if err := s.ep.OpenForward(ip.address, r.start, s.sshTarget(v)); err != nil {
		s.logf("open SSH forward %s:%d: %v", ip.address, r.start, err)
	}
}

// sshTarget is the node an SSH endpoint leads to.
func (s *Simulator) sshTarget(v *vm) endpoints.Target {
	return endpoints.Target{ClusterID: v.clusterID, VMID: v.id, VMName: v.name, Control: v.role == roleControl}
}

// closeForward stops the SSH endpoint of a port-forwarding rule. Callers
// hold s.mu.
func (s *Simulator) closeForward(r *rule) {
	if r.purpose != purposePF || r.privateStart != 22 {
		return
	}
	if ip := s.st.ip(r.ipID); ip != nil {
		s.ep.CloseForward(ip.address, r.start)
	}
}

const defaultSSHPort = 22
