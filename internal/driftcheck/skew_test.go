package driftcheck

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The findings a platform team expects next, on what the simulator's
// server does: an upgrade that fails halfway, a VM resized behind CKS's
// back, and an Alert cluster.

// An upgrade from 1.33.13 to 1.34.2 that cannot reach the second node (its
// SSH forward is gone) upgrades the first node and its map row, then fails:
// the cluster keeps 1.33.13. The scanner returns the cluster to Running
// once the forward is back, and the skew stays until the upgrade is run
// again.
func TestCheckReportsAHalfFinishedUpgrade(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "skew", Size: 2})
	control := controlVM(t, cl)
	second := e.NthWorker(cl, 0)
	e.DeleteForward(cl, 2223)
	ref, err := e.API.UpgradeKubernetesCluster(t.Context(), cl.ID, e.VersionID("1.34.2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.WaitJob(ref.JobID); err == nil || !strings.Contains(err.Error(), "unable to upgrade Kubernetes node") {
		t.Fatalf("the upgrade should fail on the second node: %v", err)
	}
	// The forward is back, as CKS made it.
	ref, err = e.API.CreatePortForwardingRule(t.Context(), cloudstack.CreatePortForwardingRuleParams{IPAddressID: cl.IPAddressID,
		Protocol: "tcp", PublicPort: 2223, PublicEndPort: 2223, PrivatePort: 22, PrivateEndPort: 22,
		VirtualMachineID: second.ID, NetworkID: cl.NetworkID})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatal(err)
	}

	res, _ := e.mustCheck(e.sshRequest(cl.ID))
	if res.ClusterState != "Alert" || res.KubernetesVersion != "1.33.13" {
		t.Fatalf("state %s, version %s", res.ClusterState, res.KubernetesVersion)
	}
	assertKinds(t, res, drift.KindNodeVersionSkew, drift.KindClusterStateUnexpected)
	skew := res.Findings[0]
	if skew.VMID != control.ID || skew.NodeName != strings.ToLower(control.Name) {
		t.Fatalf("skew finding %+v, want the control VM %s", skew, control.Name)
	}
	for _, want := range []string{"not on Kubernetes 1.33.13", "its kubelet reports v1.34.2 and the VM map records v1.34.2",
		"half-finished upgrade"} {
		if !strings.Contains(skew.Message, want) {
			t.Errorf("message lacks %q: %s", want, skew.Message)
		}
	}

	e.Sim.RunScanner()
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	if res.ClusterState != "Running" {
		t.Fatalf("the scanner should recover the cluster: %s", describe(res))
	}
	assertKinds(t, res, drift.KindNodeVersionSkew)
}

// A kubelet upgraded by hand shows through the Kubernetes API too; its map
// row still says the cluster's version.
func TestCheckReportsAKubeletUpgradedByHand(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "byhand", Size: 1})
	worker := e.NthWorker(cl, 0)
	if err := e.Sim.SetKubeletVersion(worker.ID, "1.34.2"); err != nil {
		t.Fatal(err)
	}
	res, _ := e.mustCheck(Request{ClusterID: cl.ID, Options: Options{NodeSource: NodeSourceKubeconfig,
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true}})
	assertKinds(t, res, drift.KindNodeVersionSkew)
	if f := res.Findings[0]; f.VMID != worker.ID || !strings.Contains(f.Message, "its kubelet reports v1.34.2") ||
		strings.Contains(f.Message, "VM map records") {
		t.Fatalf("finding %+v", f)
	}
}

// A worker resized out of band (scaleVirtualMachine) runs another offering
// than the worker role; the message names both by name.
func TestCheckReportsAVMResizedOutOfBand(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "resized", Size: 2})
	worker := e.NthWorker(cl, 1)
	if err := e.Sim.SetVMOffering(worker.ID, e.Info.LargeServiceOfferingID); err != nil {
		t.Fatal(err)
	}
	res, _ := e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res, drift.KindVMOfferingMismatch)
	f := res.Findings[0]
	if f.VMID != worker.ID || f.VMName != worker.Name {
		t.Fatalf("finding %+v", f)
	}
	for _, want := range []string{"runs service offering", e.Info.LargeServiceOfferingID, "not the worker offering",
		cl.WorkerOfferingID} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
	if !strings.Contains(f.Message, "(") {
		t.Errorf("the offerings should be named: %s", f.Message)
	}
}

func controlVM(t *testing.T, cl *cloudstack.Cluster) cloudstack.ClusterVM {
	t.Helper()
	for _, vm := range cl.VirtualMachines {
		if strings.Contains(vm.Name, "-control-") {
			return vm
		}
	}
	t.Fatalf("cluster %s has no control VM", cl.Name)
	return cloudstack.ClusterVM{}
}
