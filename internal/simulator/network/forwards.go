package network

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// openForward starts the SSH endpoint of a port-forwarding rule to port 22,
// unless the network ACL of its VPC tier keeps SSH out. Callers hold the lock.
func (s *Networks) openForward(r *model.Rule) {
	if r.Purpose != model.PurposePF || r.PrivateStart != 22 || r.State != model.RuleActive || !s.ForwardAllowed(r) {
		return
	}
	ip := s.DB.IP(r.IPID)
	v := s.DB.VM(r.VMID)
	if ip == nil || v == nil {
		return
	}
	if err := s.EP.OpenForward(ip.Address, r.Start, s.SSHTarget(v)); err != nil {
		s.Logf("open SSH forward %s:%d: %v", ip.Address, r.Start, err)
	}
}

// SSHTarget is the node an SSH endpoint leads to.
func (s *Networks) SSHTarget(v *model.VM) endpoints.Target {
	return endpoints.Target{ClusterID: v.ClusterID, VMID: v.ID, VMName: v.Name, Control: v.Role == model.RoleControl}
}

// closeForward stops the SSH endpoint of a port-forwarding rule. Callers
// hold the lock.
func (s *Networks) closeForward(r *model.Rule) {
	if r.Purpose != model.PurposePF || r.PrivateStart != 22 {
		return
	}
	if ip := s.DB.IP(r.IPID); ip != nil {
		s.EP.CloseForward(ip.Address, r.Start)
	}
}

const DefaultSSHPort = 22
