package simtest

import (
	csgo "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// VMs of a user and external nodes: what a user who joins a VM of their own
// to a cluster (with cmk or the UI) does.

// DeployVM deploys a running VM of the admin account into a network and
// returns its id: from the simulator's CKS-ready template (for_cks) when
// forCKS, else from a plain one.
func (e *Env) DeployVM(networkID, name string, forCKS bool) string {
	e.t.Helper()
	tpl := e.Info.PlainTemplateID
	if forCKS {
		tpl = e.Info.NodeTemplateID
	}
	cs := csgo.NewClient(e.Info.APIURL, e.Info.APIKey, e.Info.SecretKey, false)
	p := cs.VirtualMachine.NewDeployVirtualMachineParams(e.Info.ServiceOfferingID, tpl, e.Info.ZoneID)
	p.SetNetworkids([]string{networkID})
	p.SetName(name)
	r, err := cs.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		e.t.Fatalf("deploying VM %s: %v", name, err)
	}
	if err := e.WaitJob(r.JobID); err != nil {
		e.t.Fatalf("deploying VM %s: %v", name, err)
	}
	vms, err := e.API.ListVirtualMachines(e.t.Context(), cloudstack.ListVMsParams{NetworkID: networkID, ListAll: true})
	if err != nil {
		e.t.Fatalf("listing the VMs of network %s: %v", networkID, err)
	}
	for _, vm := range vms {
		if vm.Name == name {
			return vm.ID
		}
	}
	e.t.Fatalf("deployed VM %s not found", name)
	return ""
}

// JoinVM joins a VM to a cluster through the plain API, as another client
// would, and returns the failure of its job, if any. CloudStack's job
// succeeds also when it skipped the VM: read the cluster to know.
func (e *Env) JoinVM(clusterID, vmID string, manualUpgrade bool) error {
	ctx := e.t.Context()
	ref, err := e.API.AddNodesToKubernetesCluster(ctx, cloudstack.AddNodesParams{ClusterID: clusterID, VMIDs: []string{vmID},
		ManualUpgrade: manualUpgrade})
	if err != nil {
		return err
	}
	return e.waitJob(ctx, "addNodesToKubernetesCluster", ref.JobID)
}

// RemoveVM takes a VM out of a cluster through the plain API.
func (e *Env) RemoveVM(clusterID, vmID string) error {
	ctx := e.t.Context()
	ref, err := e.API.RemoveNodesFromKubernetesCluster(ctx, clusterID, []string{vmID})
	if err != nil {
		return err
	}
	return e.waitJob(ctx, "removeNodesFromKubernetesCluster", ref.JobID)
}
