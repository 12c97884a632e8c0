package driftcheck

import (
	"cmp"
	"maps"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// cloudStackTime is CloudStack's date format, yyyy-MM-dd'T'HH:mm:ssZ.
const cloudStackTime = "2006-01-02T15:04:05-0700"

// parseCreated parses a VM's created time. An unparsable time is zero, which
// drift treats as old: hiding drift is worse than reporting it early.
func parseCreated(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{cloudStackTime, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func toDriftCluster(c *cloudstack.Cluster) drift.Cluster {
	return drift.Cluster{
		ID:           c.ID,
		Name:         c.Name,
		State:        c.State,
		ClusterType:  c.ClusterType,
		Size:         int(c.Size),
		ControlNodes: int(c.ControlNodes),
		EtcdNodes:    int(c.EtcdNodes),
		// The semantic version from the name, so that policies need not
		// join version ids.
		KubernetesVersion: kubeversion.FromName(c.KubernetesVersionName),
		ServiceOfferingID: c.ServiceOfferingID,
		RoleOfferingIDs: map[naming.Role]string{naming.RoleControl: c.ControlOfferingID,
			naming.RoleWorker: c.WorkerOfferingID, naming.RoleEtcd: c.EtcdOfferingID},
		OfferingNames: offeringNames(c),
	}
}

// offeringNames names every offering the cluster and its VMs report.
func offeringNames(c *cloudstack.Cluster) map[string]string {
	names := maps.Clone(c.OfferingNames)
	if names == nil {
		names = map[string]string{}
	}
	for _, vm := range c.VirtualMachines {
		if vm.ServiceOfferingID != "" && vm.ServiceOfferingName != "" {
			names[vm.ServiceOfferingID] = vm.ServiceOfferingName
		}
	}
	return names
}

func toMap(c *cloudstack.Cluster) []drift.MappedVM {
	roles := clusterview.Roles(c)
	out := make([]drift.MappedVM, 0, len(c.VirtualMachines))
	for i, vm := range c.VirtualMachines {
		out = append(out, drift.MappedVM{ID: vm.ID, Name: vm.Name, IsEtcd: roles[i] == naming.RoleEtcd, IsExternal: vm.IsExternalNode,
			NodeVersion: vm.KubernetesNodeVersion, OfferingID: vm.ServiceOfferingID})
	}
	return out
}

func toVMs(vms []cloudstack.VirtualMachine) []drift.VM {
	out := make([]drift.VM, 0, len(vms))
	for _, vm := range vms {
		out = append(out, drift.VM{ID: vm.ID, Name: vmName(vm), State: vm.State, Created: parseCreated(vm.Created)})
	}
	return out
}

// vmName is the VM's name, its display name when it has none.
func vmName(vm cloudstack.VirtualMachine) string { return cmp.Or(vm.Name, vm.DisplayName) }

func toNodes(list []nodes.Node) []drift.Node {
	out := make([]drift.Node, 0, len(list))
	for _, n := range list {
		out = append(out, drift.Node{Name: n.Name, Ready: n.Ready, Version: n.Version})
	}
	return out
}

// isActive leaves out rules on their way out (Revoke, Deleting).
func isActive(state string) bool {
	return !strings.EqualFold(state, "Revoke") && !strings.EqualFold(state, "Deleting")
}

func firewallRules(list []cloudstack.FirewallRule) []rules.Rule {
	out := make([]rules.Rule, 0, len(list))
	for _, fw := range list {
		if !isActive(fw.State) {
			continue
		}
		out = append(out, rules.Rule{ID: fw.ID, Kind: rules.KindFirewall, Protocol: fw.Protocol,
			StartPort: fw.StartPort, EndPort: fw.EndPort, CIDRs: fw.CIDRList,
			IPAddressID: fw.IPAddressID, NetworkID: fw.NetworkID})
	}
	return out
}

func forwardRules(list []cloudstack.PortForwardingRule) []rules.Rule {
	out := make([]rules.Rule, 0, len(list))
	for _, pf := range list {
		if !isActive(pf.State) {
			continue
		}
		out = append(out, rules.Rule{ID: pf.ID, Kind: rules.KindPortForward, Protocol: pf.Protocol,
			StartPort: pf.PublicPort, EndPort: pf.PublicEndPort, PrivatePort: pf.PrivatePort,
			PrivateEndPort: pf.PrivateEndPort, VMID: pf.VirtualMachineID, CIDRs: pf.CIDRList,
			IPAddressID: pf.IPAddressID, NetworkID: pf.NetworkID})
	}
	return out
}
