package simulator

import (
	"fmt"
	"slices"
	"strings"
)

// Plain VMs a user deploys, and the templates they come from: what a user
// needs to join a VM of their own to a cluster as an external node
// (addNodesToKubernetesCluster).

const cmdPkgVM = "org.apache.cloudstack.api.command.user.vm."

// cmdDeployVirtualMachine is DeployVMCmd for a VM in one guest network
// (networkids), from a template, with a service offering: the VM is
// created Running by a job (UserVmManagerImpl.createAdvancedVirtualMachine,
// startVirtualMachine). It runs no kubelet until a cluster joins it.
func cmdDeployVirtualMachine(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	for _, name := range []string{"zoneid", "serviceofferingid", "templateid"} {
		if _, err := p.require(name); err != nil {
			return nil, err
		}
	}
	z, err := resolveParam(p, "zoneid", s.st.zone)
	if err != nil {
		return nil, err
	}
	off, err := resolveParam(p, "serviceofferingid", s.st.offering)
	if err != nil {
		return nil, err
	}
	tpl, err := resolveParam(p, "templateid", s.st.template)
	if err != nil {
		return nil, err
	}
	owner, err := s.resolveOwner(c, p)
	if err != nil {
		return nil, err
	}
	n, err := s.deployNetwork(c, owner, p)
	if err != nil {
		return nil, err
	}
	if kp := p.str("keypair"); kp != "" && s.st.keypairFor(owner.id, kp) == nil {
		return nil, invalidParam("Unable to find key pair by name %s in account %s", kp, owner.name)
	}
	spec := userVMSpec{zone: z, offering: off, template: tpl, network: n, owner: owner, name: p.str("name"),
		keypair: p.str("keypair")}
	j := s.startJob(c, cmdPkgVM+"DeployVMCmd", "VirtualMachine", "", 2, func(jr *jobRun) (any, *apiError) {
		jr.op = "deploy-vm"
		v, aerr := s.deployUserVM(spec)
		if aerr != nil {
			return nil, aerr
		}
		jr.job.instanceID = v.id
		return map[string]any{"virtualmachine": s.renderVM(v, c.isAdmin())}, nil
	})
	return map[string]any{"jobid": j.id}, nil
}

// deployNetwork resolves networkids: exactly one network of the owner (or
// a Shared one) in the zone.
func (s *Simulator) deployNetwork(c *caller, owner *account, p params) (*network, *apiError) {
	ids := p.list("networkids")
	if len(ids) == 0 {
		return nil, invalidParam("Can't deploy a VM without a network: networkids is required in an advanced zone")
	}
	if len(ids) > 1 {
		return nil, invalidParam("The simulator deploys VMs into one network; got %d networkids", len(ids))
	}
	n := s.st.network(ids[0])
	if n == nil || n.removed {
		return nil, entityNotFound("networkids", ids[0])
	}
	if n.netType != "Shared" && n.accountID != owner.id {
		return nil, permissionDenied("Account %s does not have permission to operate within network %s", owner.name, n.name)
	}
	if err := s.checkAccess(c, owner.id, "network "+n.name); err != nil {
		return nil, err
	}
	return n, nil
}

// userVMSpec is a DeployVMCmd's resolved input.
type userVMSpec struct {
	zone     *zone
	offering *serviceOffering
	template *template
	network  *network
	owner    *account
	name     string
	keypair  string
}

// deployUserVM creates a Running user VM (vmtype User) with its NIC in the
// network. The host name is the name given, else VM-<uuid>.
func (s *Simulator) deployUserVM(spec userVMSpec) (*vm, *apiError) {
	st := s.st
	if spec.network.state == netAllocated {
		s.implementNetwork(spec.network)
	}
	ip, aerr := s.allocPrivateIP(spec.network)
	if aerr != nil {
		return nil, aerr
	}
	now := s.now()
	id := s.newUUID()
	name := spec.name
	if name == "" {
		name = "VM-" + id
	}
	v := &vm{internalID: st.nextID("vm"), id: id, name: name, state: vmRunning, created: now, lastUpdated: now,
		zoneID: spec.zone.id, accountID: spec.owner.id, offeringID: spec.offering.id, templateID: spec.template.id,
		networkID: spec.network.id, keypair: spec.keypair, rootDiskSize: 8, nicID: s.newUUID(), ip: ip, userVM: true}
	v.mac = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", s.rng.IntN(256), s.rng.IntN(256), s.rng.IntN(256), v.internalID%256)
	host := int(v.internalID) % len(st.hostIDs)
	v.hostID, v.hostName = st.hostIDs[host], st.hostNames[host]
	st.vms = append(st.vms, v)
	st.vmByID[strings.ToLower(v.id)] = v
	s.openDirectSSH(v)
	return v, nil
}

// cmdDestroyVirtualMachine is DestroyVMCmd: the VM is destroyed, and with
// expunge=true expunged (its port forwards go with it). A VM in a
// Kubernetes cluster's VM map is destroyed all the same: CloudStack does not
// look at the map, and the map row stays.
func cmdDestroyVirtualMachine(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	if _, err := p.require("id"); err != nil {
		return nil, err
	}
	v, err := resolveParam(p, "id", s.st.vm)
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, v.accountID, "VM "+v.name); err != nil {
		return nil, err
	}
	expunge, _ := p.boolean("expunge")
	j := s.startJob(c, cmdPkgVM+"DestroyVMCmd", "VirtualMachine", v.id, 1, func(jr *jobRun) (any, *apiError) {
		jr.op = "destroy-vm"
		if expunge {
			s.expungeVM(v)
		} else {
			s.setVMState(v, vmDestroyed)
		}
		return map[string]any{"virtualmachine": s.renderVM(v, c.isAdmin())}, nil
	})
	return map[string]any{"jobid": j.id}, nil
}

func cmdListVirtualMachines(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	filter, err := newListFilter(s, c, p, s.st.vm)
	if err != nil {
		return nil, err
	}
	n, err := resolveParam(p, "networkid", s.st.network)
	if err != nil {
		return nil, err
	}
	ids := p.list("ids")
	var matched []*vm
	for _, v := range s.st.vms {
		switch {
		case v.expunged,
			v.state == vmDestroyed && !c.isAdmin(),
			filter.excludes(v, v.accountID),
			len(ids) > 0 && !slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, v.id) }),
			n != nil && v.networkID != n.id,
			p.has("name") && !strings.EqualFold(p.str("name"), v.name),
			p.has("state") && !strings.EqualFold(p.str("state"), v.state),
			p.has("zoneid") && !strings.EqualFold(p.str("zoneid"), v.zoneID),
			p.has("keypair") && p.str("keypair") != v.keypair,
			!matchesKeyword(p, v.name):
			continue
		}
		matched = append(matched, v)
	}
	return listBodyOf(s, p, "virtualmachine", matched, func(v *vm) map[string]any { return s.renderVM(v, c.isAdmin()) })
}
