package drift

import (
	"cmp"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// compareOfferings reports the VMs of the map whose service offering is
// not their role's. CloudStack deploys each node type's VMs with the
// offering it records for that type, the cluster's service offering when
// it records none (KubernetesClusterManagerImpl.getServiceOfferingNodeTypeMap),
// and lists both with the cluster (createKubernetesClusterResponse:
// serviceofferingid, controlofferingid, workerofferingid, etcdofferingid).
// Every offering scale moves a role's VMs and its column together
// (KubernetesClusterScaleWorker.scaleCluster), so a VM on another offering
// was resized behind CKS's back (scaleVirtualMachine) or by a failed
// offering scale. The next scale compares the role's first VM with the
// role's offering (getExistingOfferingIdForNodeType) and may try to change
// it. External nodes bring their own VMs and are not compared.
func (c *comparison) compareOfferings() {
	cl := c.in.Cluster
	for _, v := range c.mapped {
		role := v.role
		if v.etcd {
			role = naming.RoleEtcd
		}
		if !v.listed || v.external || role == "" || v.offeringID == "" {
			continue
		}
		want := cmp.Or(cl.RoleOfferingIDs[role], cl.ServiceOfferingID)
		if want == "" || want == v.offeringID {
			continue
		}
		c.add(Finding{Kind: KindVMOfferingMismatch, VMID: v.id, VMName: v.name, VMState: v.state,
			Attribute: string(role) + "_offering_id", Live: []string{v.offeringID}, Expected: []string{want},
			Message: fmt.Sprintf("%s of cluster %s runs service offering %s, not the %s offering %s of the cluster: it was "+
				"resized out of band or by a failed offering scale, and the next scale may try to change it back",
				v.label(), cl.Name, c.offeringText(v.offeringID), role, c.offeringText(want))})
	}
}

// offeringText names an offering by name and id when its name is known.
func (c *comparison) offeringText(id string) string {
	if name := c.in.Cluster.OfferingNames[id]; name != "" && name != id {
		return fmt.Sprintf("%s (%s)", name, id)
	}
	return id
}
