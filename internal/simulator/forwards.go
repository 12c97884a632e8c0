package simulator

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// openForward starts the SSH endpoint of a port-forwarding rule to port 22,
// unless the network ACL of its VPC tier keeps SSH out. Callers hold the lock.
func (s *Simulator) openForward(r *model.Rule) {
	if r.Purpose != model.PurposePF || r.PrivateStart != 22 || r.State != model.RuleActive || !s.forwardAllowed(r) {
		return
	}
	ip := s.rt.DB.IP(r.IPID)
	v := s.rt.DB.VM(r.VMID)
	if ip == nil || v == nil {
		return
	}
	if err := s.rt.EP.OpenForward(ip.Address, r.Start, s.sshTarget(v)); err != nil {
		s.rt.Logf("open SSH forward %s:%d: %v", ip.Address, r.Start, err)
	}
}

// sshTarget is the node an SSH endpoint leads to.
func (s *Simulator) sshTarget(v *model.VM) endpoints.Target {
	return endpoints.Target{ClusterID: v.ClusterID, VMID: v.ID, VMName: v.Name, Control: v.Role == model.RoleControl}
}

// closeForward stops the SSH endpoint of a port-forwarding rule. Callers
// hold s.mu.
func (s *Simulator) closeForward(r *model.Rule) {
	if r.Purpose != model.PurposePF || r.PrivateStart != 22 {
		return
	}
	if ip := s.rt.DB.IP(r.IPID); ip != nil {
		s.rt.EP.CloseForward(ip.Address, r.Start)
	}
}

const defaultSSHPort = 22
