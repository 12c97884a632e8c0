package cluster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Plain VMs a user deploys, and the templates they come from: what a user
// needs to join a VM of their own to a cluster as an external node
// (addNodesToKubernetesCluster).

const cmdPkgVM = "org.apache.cloudstack.api.command.user.vm."

// cmdDeployVirtualMachine is DeployVMCmd for a VM in one guest network
// (networkids), from a template, with a service offering: the VM is
// created Running by a job (UserVmManagerImpl.createAdvancedVirtualMachine,
// startVirtualMachine). It runs no kubelet until a cluster joins it.
func cmdDeployVirtualMachine(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	for _, name := range []string{"zoneid", "serviceofferingid", "templateid"} {
		if _, err := p.Require(name); err != nil {
			return nil, err
		}
	}
	z, err := wire.ResolveParam(p, "zoneid", s.DB.Zone)
	if err != nil {
		return nil, err
	}
	off, err := wire.ResolveParam(p, "serviceofferingid", s.DB.Offering)
	if err != nil {
		return nil, err
	}
	tpl, err := wire.ResolveParam(p, "templateid", s.DB.Template)
	if err != nil {
		return nil, err
	}
	owner, err := s.ResolveOwner(c, p)
	if err != nil {
		return nil, err
	}
	n, err := s.deployNetwork(c, owner, p)
	if err != nil {
		return nil, err
	}
	if kp := p.Str("keypair"); kp != "" && s.DB.KeypairFor(owner.ID, kp) == nil {
		return nil, wire.InvalidParam("Unable to find key pair by name %s in account %s", kp, owner.Name)
	}
	spec := userVMSpec{zone: z, offering: off, template: tpl, network: n, owner: owner, name: p.Str("name"),
		keypair: p.Str("keypair")}
	j := s.StartJob(c, cmdPkgVM+"DeployVMCmd", "VirtualMachine", "", 2, func(jr *core.JobRun) (any, *wire.APIError) {
		jr.Op = "deploy-vm"
		v, aerr := s.deployUserVM(spec)
		if aerr != nil {
			return nil, aerr
		}
		jr.Job.InstanceID = v.ID
		return map[string]any{"virtualmachine": s.renderVM(v, c.IsAdmin())}, nil
	})
	return map[string]any{"jobid": j.ID}, nil
}

// deployNetwork resolves networkids: exactly one network of the owner (or
// a Shared one) in the zone.
func (s *Workers) deployNetwork(c *core.Caller, owner *model.Account, p wire.Params) (*model.Network, *wire.APIError) {
	ids := p.List("networkids")
	if len(ids) == 0 {
		return nil, wire.InvalidParam("Can't deploy a VM without a network: networkids is required in an advanced zone")
	}
	if len(ids) > 1 {
		return nil, wire.InvalidParam("The simulator deploys VMs into one network; got %d networkids", len(ids))
	}
	n := s.DB.Network(ids[0])
	if n == nil || n.Removed {
		return nil, wire.EntityNotFound("networkids", ids[0])
	}
	if n.NetType != "Shared" && n.AccountID != owner.ID {
		return nil, wire.PermissionDenied("Account %s does not have permission to operate within network %s", owner.Name, n.Name)
	}
	if err := s.CheckAccess(c, owner.ID, "network "+n.Name); err != nil {
		return nil, err
	}
	return n, nil
}

// userVMSpec is a DeployVMCmd's resolved input.
type userVMSpec struct {
	zone     *model.Zone
	offering *model.ServiceOffering
	template *model.Template
	network  *model.Network
	owner    *model.Account
	name     string
	keypair  string
}

// deployUserVM creates a Running user VM (vmtype User) with its NIC in the
// network. The host name is the name given, else VM-<uuid>.
func (s *Workers) deployUserVM(spec userVMSpec) (*model.VM, *wire.APIError) {
	st := s.DB
	if spec.network.State == model.NetworkAllocated {
		s.ImplementNetwork(spec.network)
	}
	ip, aerr := s.AllocPrivateIP(spec.network)
	if aerr != nil {
		return nil, aerr
	}
	now := s.Now()
	id := s.NewUUID()
	name := spec.name
	if name == "" {
		name = "VM-" + id
	}
	v := &model.VM{InternalID: st.NextID("vm"), ID: id, Name: name, State: model.VMRunning, Created: now, LastUpdated: now,
		ZoneID: spec.zone.ID, AccountID: spec.owner.ID, OfferingID: spec.offering.ID, TemplateID: spec.template.ID,
		NetworkID: spec.network.ID, Keypair: spec.keypair, RootDiskSize: 8, NICID: s.NewUUID(), IP: ip, UserVM: true}
	v.MAC = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", s.RNG.IntN(256), s.RNG.IntN(256), s.RNG.IntN(256), v.InternalID%256)
	host := int(v.InternalID) % len(st.HostIDs)
	v.HostID, v.HostName = st.HostIDs[host], st.HostNames[host]
	st.VMs = append(st.VMs, v)
	st.VMByID[strings.ToLower(v.ID)] = v
	s.OpenDirectSSH(v)
	return v, nil
}

// cmdDestroyVirtualMachine is DestroyVMCmd: the VM is destroyed, and with
// expunge=true expunged (its port forwards go with it). A VM in a
// Kubernetes cluster's VM map is destroyed all the same: CloudStack does not
// look at the map, and the map row stays.
func cmdDestroyVirtualMachine(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	v, err := wire.ResolveParam(p, "id", s.DB.VM)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, v.AccountID, "VM "+v.Name); err != nil {
		return nil, err
	}
	expunge, _ := p.Bool("expunge")
	j := s.StartJob(c, cmdPkgVM+"DestroyVMCmd", "VirtualMachine", v.ID, 1, func(jr *core.JobRun) (any, *wire.APIError) {
		jr.Op = "destroy-vm"
		if expunge {
			s.ExpungeVM(v)
		} else {
			s.SetVMState(v, model.VMDestroyed)
		}
		return map[string]any{"virtualmachine": s.renderVM(v, c.IsAdmin())}, nil
	})
	return map[string]any{"jobid": j.ID}, nil
}

func cmdListVirtualMachines(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.VM)
	if err != nil {
		return nil, err
	}
	n, err := wire.ResolveParam(p, "networkid", s.DB.Network)
	if err != nil {
		return nil, err
	}
	ids := p.List("ids")
	var matched []*model.VM
	for _, v := range s.DB.VMs {
		switch {
		case v.Expunged,
			v.State == model.VMDestroyed && !c.IsAdmin(),
			filter.Excludes(v, v.AccountID),
			len(ids) > 0 && !slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, v.ID) }),
			n != nil && v.NetworkID != n.ID,
			p.Has("name") && !strings.EqualFold(p.Str("name"), v.Name),
			p.Has("state") && !strings.EqualFold(p.Str("state"), v.State),
			p.Has("zoneid") && !strings.EqualFold(p.Str("zoneid"), v.ZoneID),
			p.Has("keypair") && p.Str("keypair") != v.Keypair,
			!wire.MatchesKeyword(p, v.Name):
			continue
		}
		matched = append(matched, v)
	}
	return core.ListBodyOf(s.Runtime, p, "virtualmachine", matched, func(v *model.VM) map[string]any { return s.renderVM(v, c.IsAdmin()) })
}
