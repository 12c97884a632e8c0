package clusterops

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// External nodes through the engine: a join refused before any call when
// CloudStack would drop or skip the VM, a join that keeps the provider's
// layout, scales around external nodes (joined by the engine or by another
// client) that keep every SSH path, and a removal.

func TestJoinRefusesWhatCloudStackWouldDrop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	id := e.createCluster("join-checks", 1, 1)
	c := e.Cluster(id)
	plain := e.DeployVM(c.NetworkID, "plain", false)
	elsewhere := e.DeployVM(e.Info.IsolatedNetworkID, "elsewhere", true)
	stopped := e.DeployVM(c.NetworkID, "stopped", true)
	if err := e.Sim.SetVMState(stopped, "Stopped"); err != nil {
		t.Fatal(err)
	}
	worker := e.NthWorker(c, 0).ID
	for vm, want := range map[string]string{plain: "not marked for CKS", elsewhere: "default NIC", stopped: "is Stopped",
		worker: "a worker node it made"} {
		problems, err := e.engine().CheckJoin(e.ctx(), JoinRequest{ClusterID: id, VMID: vm})
		if err != nil || len(problems) != 1 || problems[0].Field != FieldVM || !strings.Contains(problems[0].Message, want) {
			t.Errorf("VM %s: problems %+v, %v; want one about %q", vm, problems, err, want)
		}
		before := e.Sim.CallCounts()["addNodesToKubernetesCluster"]
		_, err = e.engine().JoinNode(e.ctx(), JoinRequest{ClusterID: id, VMID: vm})
		var refused *JoinError
		if !errors.As(err, &refused) || e.Sim.CallCounts()["addNodesToKubernetesCluster"] != before {
			t.Errorf("VM %s: JoinNode = %v with an add call: want a refusal before any call", vm, err)
		}
	}
}

// everyProfile runs a test on each profile of the matrix.
func everyProfile(t *testing.T, f func(t *testing.T, profile string)) {
	t.Helper()
	for _, p := range simulator.Profiles() {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

func TestScaleAroundExternalNodesKeepsEverySSHPath(t *testing.T) {
	t.Parallel()
	everyProfile(t, func(t *testing.T, profile string) {
		e := newEnv(t, profile)
		id := e.createCluster("external", 3, 1)
		c := e.Cluster(id)
		e.Sim.AdvanceClock(2 * time.Second) // the VMs come after the cluster's own
		ours := e.DeployVM(c.NetworkID, "gpu-ours", true)
		theirs := e.DeployVM(c.NetworkID, "gpu-theirs", true)
		eng := e.engine()
		if _, err := eng.JoinNode(e.ctx(), JoinRequest{ClusterID: id, VMID: ours, ManualUpgrade: true}); err != nil {
			t.Fatalf("JoinNode: %v", err)
		}
		e.assertHardened(id)
		seen := SightExternalNodes(e.Cluster(id), nil)
		if err := e.JoinVM(id, theirs, false); err != nil {
			t.Fatalf("another client's join: %v", err)
		}
		seen = SightExternalNodes(e.Cluster(id), seen)
		for _, size := range []int64{2, 1, 2, 3, 1} {
			if _, err := eng.Scale(e.ctx(), id, size, Intent{}); err != nil {
				t.Fatalf("Scale to %d: %v", size, err)
			}
			c := e.assertHardened(id)
			if c.ManagedWorkers() != size || c.ExternalNodes() != 2 || c.State != "Running" {
				t.Fatalf("after scaling to %d: %d workers, %d external, %s", size, c.ManagedWorkers(), c.ExternalNodes(), c.State)
			}
			e.assertSSH(id, c)
		}
		// Another client's scale on the provider's layout succeeds, and the
		// next sync brings the layout back.
		if err := e.Scale(id, e.Cluster(id).Size+1); err != nil {
			t.Fatalf("another client's scale-up: %v", err)
		}
		if _, err := eng.Sync(e.ctx(), id, Intent{}); err != nil {
			t.Fatalf("Sync: %v", err)
		}
		e.assertHardened(id)
		// The upgrade skips our node (manual_upgrade) and reaches theirs,
		// whose map row comes before the workers made since, through the
		// forward the engine points at it.
		to := e.VersionID("1.34.2")
		if _, err := eng.Update(e.ctx(), id, UpdateRequest{KubernetesVersionID: to, ExternalSeen: seen}); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		c = e.Cluster(id)
		for _, vm := range c.VirtualMachines {
			want := "1.34.2"
			if vm.ID == ours || vm.IsEtcdNode {
				want = "1.33.13"
			}
			if vm.IsEtcdNode {
				continue
			}
			if strings.TrimPrefix(vm.KubernetesNodeVersion, "v") != want {
				t.Errorf("VM %s on %s after the upgrade, want %s", vm.Name, vm.KubernetesNodeVersion, want)
			}
		}
		if _, err := eng.Sync(e.ctx(), id, Intent{}); err != nil {
			t.Fatalf("Sync: %v", err)
		}
		e.assertHardened(id)
		if _, err := eng.RemoveNode(e.ctx(), id, ours); err != nil {
			t.Fatalf("RemoveNode: %v", err)
		}
		c = e.assertHardened(id)
		if c.ExternalNodes() != 1 || c.ManagedWorkers() != 2 {
			t.Errorf("after the removal: %d external, %d workers", c.ExternalNodes(), c.ManagedWorkers())
		}
		e.assertSSH(id, c)
	})
}

// A VM another client took out of the cluster keeps the provider's tags of
// its earlier join, and the cluster the node range the provider widened
// over it, which the port CloudStack gives the next node lies in: joining
// it again narrows the range first, replaces the tags (createTags refuses
// a key the VM has) and keeps every SSH path; its removal deletes the tags.
func TestRejoinReplacesTheTagsOfAnEarlierJoin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	id := e.createCluster("rejoin", 1, 1)
	vm := e.DeployVM(e.Cluster(id).NetworkID, "gpu-1", true)
	tags := func() map[string]string {
		t.Helper()
		v, err := e.API.GetVirtualMachine(e.ctx(), vm)
		if err != nil {
			t.Fatal(err)
		}
		return v.Tags
	}
	if _, err := e.engine().JoinNode(e.ctx(), JoinRequest{ClusterID: id, VMID: vm}); err != nil {
		t.Fatalf("join: %v", err)
	}
	if err := e.RemoveVM(id, vm); err != nil {
		t.Fatalf("another client's removal: %v", err)
	}
	if got := tags()[TagManualUpgrade]; got != "false" {
		t.Fatalf("tag %s = %q after another client's removal, want the earlier join's false", TagManualUpgrade, got)
	}
	if _, err := e.engine().JoinNode(e.ctx(), JoinRequest{ClusterID: id, VMID: vm, ManualUpgrade: true}); err != nil {
		t.Fatalf("join again: %v", err)
	}
	if got := tags(); got[TagManualUpgrade] != "true" || got[TagJoinedCluster] != id {
		t.Fatalf("tags after the second join %v", got)
	}
	e.assertSSH(id, e.assertHardened(id))
	if _, err := e.engine().RemoveNode(e.ctx(), id, vm); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if got := tags(); len(got) != 0 {
		t.Fatalf("tags after the removal %v, want none", got)
	}
}
