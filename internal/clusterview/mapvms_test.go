package clusterview

import (
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

func TestMapVMsAndWorkers(t *testing.T) {
	t.Parallel()
	// A response without isetcdnode: the etcd VM is told by its name, as
	// Roles tells it, and counts as no worker.
	c := &cloudstack.Cluster{ID: "3b74274b-6554-40c2-b2cf-4329d4308544", Name: "prod", ControlNodes: 1, EtcdNodes: 1, Size: 2,
		VirtualMachines: []cloudstack.ClusterVM{
			{ID: "e", Name: "prod-etcd-1-1932a7a3b01", Created: "2026-01-02T03:04:05+0000"},
			{ID: "c", Name: "prod-control-1932a7a3b02", State: "Running", IPAddress: "10.1.1.2", ServiceOfferingID: "o1",
				ServiceOfferingName: "small", TemplateID: "t", KubernetesNodeVersion: "v1.33.1"},
			{ID: "w", Name: "prod-node-1932a7a3b03"},
			{ID: "x", Name: "gpu", IsExternalNode: true},
		}}
	vms := MapVMs(c)
	want := map[string]naming.Role{"e": naming.RoleEtcd, "c": naming.RoleControl, "w": naming.RoleWorker, "x": naming.RoleWorker}
	for i, vm := range vms {
		if vm.ID != c.VirtualMachines[i].ID || vm.Role != want[vm.ID] {
			t.Errorf("MapVMs[%d] = %s as %q, want %s as %q", i, vm.ID, vm.Role, c.VirtualMachines[i].ID, want[c.VirtualMachines[i].ID])
		}
	}
	if ctl := vms[1]; ctl.State != "Running" || ctl.IPAddress != "10.1.1.2" || ctl.OfferingID != "o1" || ctl.OfferingName != "small" ||
		ctl.TemplateID != "t" || ctl.NodeVersion != "v1.33.1" || ctl.External {
		t.Errorf("control VM read as %+v", ctl)
	}
	if !vms[3].External {
		t.Errorf("the external node is not External")
	}
	if got := vms[0].Created; !got.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("Created = %v", got)
	}
	if got := MapWorkers(c); got != 1 {
		t.Errorf("MapWorkers = %d, want 1: the etcd VM without its flag and the external node are no workers CKS made", got)
	}
}
