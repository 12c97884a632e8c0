package simulator

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// External nodes: addNodesToKubernetesCluster and
// removeNodesFromKubernetesCluster, and what scale, upgrade and delete do
// with a cluster that has them.

// deployVM deploys a user VM into a network from a template and returns its
// id.
func (e *testEnv) deployVM(networkID, templateID, name string) string {
	e.t.Helper()
	p := e.cs.VirtualMachine.NewDeployVirtualMachineParams(e.info.ServiceOfferingID, templateID, e.info.ZoneID)
	p.SetNetworkids([]string{networkID})
	p.SetName(name)
	r, err := e.cs.VirtualMachine.DeployVirtualMachine(p)
	if err != nil {
		e.t.Fatalf("deployVirtualMachine: %v", err)
	}
	e.mustSucceed(r.JobID)
	return e.vmNamed(name)
}

// addNodes starts addNodesToKubernetesCluster and returns the job id.
func (e *testEnv) addNodes(clusterID string, manual bool, vmIDs ...string) string {
	e.t.Helper()
	p := e.cs.Kubernetes.NewAddNodesToKubernetesClusterParams(clusterID, vmIDs)
	if manual {
		p.SetManualupgrade(true)
	}
	r, err := e.cs.Kubernetes.AddNodesToKubernetesCluster(p)
	if err != nil {
		e.t.Fatalf("addNodesToKubernetesCluster: %v", err)
	}
	return r.JobID
}

// removeNodes starts removeNodesFromKubernetesCluster and returns the job id.
func (e *testEnv) removeNodes(clusterID string, vmIDs ...string) string {
	e.t.Helper()
	r, err := e.cs.Kubernetes.RemoveNodesFromKubernetesCluster(e.cs.Kubernetes.NewRemoveNodesFromKubernetesClusterParams(clusterID, vmIDs))
	if err != nil {
		e.t.Fatalf("removeNodesFromKubernetesCluster: %v", err)
	}
	return r.JobID
}

// joinedCluster creates a cluster (1 control node, size workers, etcd etcd
// nodes) and joins one VM of the CKS template to it; it returns the
// cluster's and the VM's ids.
func (e *testEnv) joinedCluster(size, etcd int64, manual bool) (string, string) {
	e.t.Helper()
	id := e.ledgerCluster(size, etcd, nil)
	vmID := e.deployVM(e.cluster(id).Networkid, e.info.NodeTemplateID, "gpu-1")
	e.mustSucceed(e.addNodes(id, manual, vmID))
	return id, vmID
}

// vmNamed is the id of the VM with the name.
func (e *testEnv) vmNamed(name string) string {
	e.t.Helper()
	for _, v := range e.sim.DumpState().VMs {
		if v.Name == name {
			return v.ID
		}
	}
	e.t.Fatalf("no VM %s", name)
	return ""
}

func (e *testEnv) mapRow(clusterID, vmID string) *DumpMapRow {
	for _, r := range e.sim.DumpState().VMMap {
		if r.ClusterID == clusterID && r.VMID == vmID {
			return &r
		}
	}
	return nil
}

func TestAddNodesJoinsAVMWithItsOwnSSHRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id, vmID := e.joinedCluster(1, 1, true)
	cl := e.cluster(id)
	if cl.Size != 2 {
		t.Errorf("size = %d, want 2: node_count counts the external node", cl.Size)
	}
	row := e.mapRow(id, vmID)
	if row == nil || !row.External || !row.ManualUpgrade || row.NodeVersion != "1.33.13" {
		t.Fatalf("map row %+v, want external, manual_upgrade, version 1.33.13", row)
	}
	// C=1 and node_count=1 before the add: the node's port is 2222+1+1.
	if got := firewallRanges(e.firewallRules(cl.Ipaddressid)); !slices.Contains(got, "2224-2224") {
		t.Errorf("firewall rules %v, want the single-port rule 2224", got)
	}
	if got := forwardPorts(e.portForwards(cl.Ipaddressid)); !slices.Contains(got, "2224->22") {
		t.Errorf("forwards %v, want 2224->22", got)
	}
	joined := false
	for _, n := range e.sim.DumpState().Nodes {
		joined = joined || n.VMID == vmID
	}
	if !joined {
		t.Error("the VM's kubelet did not join the cluster")
	}
	for _, c := range e.sim.DumpState().Clusters {
		if c.ID == id && strings.Join(c.StateHistory, ">") != "Created>Starting>Running>Importing>Running" {
			t.Errorf("states %v", c.StateHistory)
		}
	}
}

func TestAddNodesDropsVMsValidateNodesRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.ledgerCluster(1, 0, nil)
	network := e.cluster(id).Networkid
	plain := e.deployVM(network, e.info.PlainTemplateID, "plain")
	elsewhere := e.deployVM(e.info.IsolatedNetworkID, e.info.NodeTemplateID, "elsewhere")
	worker := e.workerIDs(id)[0]
	for _, vm := range []string{plain, elsewhere, worker} {
		_, text := e.mustFail(e.addNodes(id, false, vm))
		if text != "No valid nodes found to be added to the Kubernetes cluster" {
			t.Errorf("add of %s: %q", vm, text)
		}
	}
	if cl := e.cluster(id); cl.Size != 1 || cl.State != model.ClusterRunning {
		t.Errorf("size %d state %s, want 1 and Running", cl.Size, cl.State)
	}
}

// A VM that fails the node check is skipped and its rules reverted; the
// revert looks the firewall rule up by its exact ports with no purpose
// filter, so it may pick the node's forward and throw, which fails the job
// (after a second revert, which may pick right, or leave both rules). Either
// way the VM is never counted or mapped, and the cluster ends Running.
func TestAddNodesRevertPicksEitherRule(t *testing.T) {
	t.Parallel()
	outcomes := map[string]bool{}
	for seed := uint64(1); seed <= 16 && len(outcomes) < 3; seed++ {
		e := newEnv(t, Options{DisableScanner: true, Seed: seed})
		id := e.ledgerCluster(1, 0, nil)
		cl := e.cluster(id)
		vmID := e.deployVM(cl.Networkid, e.info.NodeTemplateID, "stopped")
		if err := e.sim.SetVMState(vmID, model.VMStopped); err != nil {
			t.Fatal(err)
		}
		r := e.waitJob(e.addNodes(id, false, vmID))
		after := e.cluster(id)
		if after.Size != 1 || e.mapRow(id, vmID) != nil || after.State != model.ClusterRunning {
			t.Fatalf("seed %d: size %d, row %v, state %s", seed, after.Size, e.mapRow(id, vmID), after.State)
		}
		leftFirewall := slices.Contains(firewallRanges(e.firewallRules(cl.Ipaddressid)), "2224-2224")
		leftForward := slices.Contains(forwardPorts(e.portForwards(cl.Ipaddressid)), "2224->22")
		switch {
		case leftFirewall != leftForward:
			t.Fatalf("seed %d: firewall rule left %t, forward left %t: the revert keeps both or neither", seed, leftFirewall, leftForward)
		case r.Jobstatus == model.JobSucceeded && !leftFirewall:
			outcomes["reverted, job succeeded"] = true
		case r.Jobstatus == model.JobFailed && !leftFirewall:
			outcomes["forward picked first, job failed"] = true
		case r.Jobstatus == model.JobFailed && leftFirewall:
			outcomes["forward picked twice, rules left"] = true
		default:
			t.Fatalf("seed %d: job status %d with leftover rules %t", seed, r.Jobstatus, leftFirewall)
		}
	}
	if len(outcomes) != 3 {
		t.Errorf("outcomes %v: the random pick should show all three", outcomes)
	}
}

func TestRemoveNodesLeavesTheVMRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id, vmID := e.joinedCluster(1, 1, false)
	ip := e.cluster(id).Ipaddressid
	e.mustSucceed(e.removeNodes(id, vmID))
	cl := e.cluster(id)
	if cl.Size != 1 || e.mapRow(id, vmID) != nil {
		t.Fatalf("size %d, row %v: want 1 and no row", cl.Size, e.mapRow(id, vmID))
	}
	if got := firewallRanges(e.firewallRules(ip)); slices.Contains(got, "2224-2224") {
		t.Errorf("firewall rules %v: the node's rule should be revoked", got)
	}
	for _, pf := range e.portForwards(ip) {
		if pf.Virtualmachineid == vmID {
			t.Errorf("forward %s to the removed VM is left", pf.Publicport)
		}
	}
	for _, v := range e.sim.DumpState().VMs {
		if v.ID == vmID && v.State != model.VMRunning {
			t.Errorf("VM state %s, want Running", v.State)
		}
	}
	for _, n := range e.sim.DumpState().Nodes {
		if n.VMID == vmID {
			t.Error("the node is still in Kubernetes")
		}
	}
}

// removeNodesFromKubernetesCluster lowers node_count for every VM it
// processes, whether the cluster had it or not.
func TestRemoveNodesCountsNonMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id := e.ledgerCluster(2, 0, nil)
	stranger := e.deployVM(e.info.IsolatedNetworkID, e.info.NodeTemplateID, "stranger")
	e.mustSucceed(e.removeNodes(id, stranger))
	cl := e.cluster(id)
	if cl.Size != 1 || len(cl.Virtualmachines) != 3 {
		t.Errorf("size %d with %d VMs: want the stale size 1 with 3 VMs", cl.Size, len(cl.Virtualmachines))
	}
}

// The literal reading of the 4.22 scale worker with an external node in
// CKS's own layout (its single-port rule right after the node range).
func TestScaleWithExternalNodeBreaks(t *testing.T) {
	t.Parallel()
	t.Run("scale-up conflicts with the external rule", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Options{DisableScanner: true})
		id, _ := e.joinedCluster(1, 0, false)
		e.mustFail(e.scale(id, 3))
		cl := e.cluster(id)
		if cl.State != model.ClusterAlert || cl.Size != 2 || len(cl.Virtualmachines) != 4 {
			t.Errorf("state %s size %d VMs %d: want Alert, the old size and the new VM mapped", cl.State, cl.Size, len(cl.Virtualmachines))
		}
	})
	t.Run("scale-down by one removes nothing and stays in Scaling", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Options{DisableScanner: true})
		id, _ := e.joinedCluster(2, 0, false)
		e.mustFail(e.scale(id, 2))
		cl := e.cluster(id)
		if cl.State != model.ClusterScaling || len(cl.Virtualmachines) != 4 {
			t.Errorf("state %s VMs %d: want Scaling and no VM removed", cl.State, len(cl.Virtualmachines))
		}
	})
	t.Run("scale-down by two doubles the external rules", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Options{DisableScanner: true})
		id, vmID := e.joinedCluster(3, 0, false)
		e.mustSucceed(e.scale(id, 2))
		cl := e.cluster(id)
		var ports []string
		for _, pf := range e.portForwards(cl.Ipaddressid) {
			if pf.Virtualmachineid == vmID {
				ports = append(ports, pf.Publicport)
			}
		}
		slices.Sort(ports)
		if cl.Size != 2 || len(cl.Virtualmachines) != 4 || !slices.Equal(ports, []string{"2225", "2226"}) {
			t.Fatalf("size %d VMs %d external forwards %v: want size 2 (one below the map), 4 VMs, forwards 2225 and 2226",
				cl.Size, len(cl.Virtualmachines), ports)
		}
		// The next scale meets the external node's older single-port rule
		// with its twin forward before the rebuilt range (#14159).
		e.mustFail(e.scale(id, 3))
		if cl := e.cluster(id); cl.State != model.ClusterAlert && cl.State != model.ClusterScaling {
			t.Errorf("state %s, want the next scale to break the cluster", cl.State)
		}
	})
}

func TestUpgradeSkipsManualUpgradeNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	id, vmID := e.joinedCluster(1, 1, true)
	r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.34.2"]))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	if row := e.mapRow(id, vmID); row == nil || row.NodeVersion != "1.33.13" {
		t.Errorf("external row %+v: want it left on 1.33.13", row)
	}
	for _, n := range e.sim.DumpState().Nodes {
		if n.VMID == vmID && n.Version != "1.33.13" {
			t.Errorf("external node on %s, want 1.33.13", n.Version)
		}
	}
}

func TestDeleteWithExternalNodes(t *testing.T) {
	t.Parallel()
	t.Run("own network refuses", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Options{DisableScanner: true})
		id, _ := e.joinedCluster(1, 0, false)
		r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
		if err != nil {
			t.Fatal(err)
		}
		e.mustFail(r.JobID)
		if cl := e.cluster(id); cl.State != model.ClusterRunning {
			t.Errorf("state %s, want Running", cl.State)
		}
	})
	t.Run("user network destroys the external VM", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, Options{DisableScanner: true})
		p := e.createParams("on-user-network", 1)
		p.SetNetworkid(e.info.IsolatedNetworkID)
		id := e.createCluster(p)
		vmID := e.deployVM(e.info.IsolatedNetworkID, e.info.NodeTemplateID, "gpu-1")
		e.mustSucceed(e.addNodes(id, false, vmID))
		r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
		if err != nil {
			t.Fatal(err)
		}
		e.mustSucceed(r.JobID)
		for _, v := range e.sim.DumpState().VMs {
			if v.ID == vmID && v.State != model.VMExpunging {
				t.Errorf("external VM state %s, want expunged with the cluster", v.State)
			}
		}
	})
}

func TestListTemplatesReportsForCks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	for id, want := range map[string]bool{e.info.NodeTemplateID: true, e.info.PlainTemplateID: false} {
		p := e.cs.Template.NewListTemplatesParams("executable")
		p.SetId(id)
		p.SetDetails([]string{"all"})
		r, err := e.cs.Template.ListTemplates(p)
		if err != nil || r.Count != 1 {
			t.Fatalf("listTemplates %s: %v %+v", id, err, r)
		}
		if r.Templates[0].Forcks != want {
			t.Errorf("template %s forcks %t, want %t", id, r.Templates[0].Forcks, want)
		}
	}
}

// externalNodeScenarios are the write ledger's add-nodes and remove-nodes
// operations.
func externalNodeScenarios() []ledgerScenario {
	return []ledgerScenario{
		{op: "add-nodes", name: "one VM, manual upgrade", setup: func(e *testEnv) string {
			id := e.ledgerCluster(1, 1, nil)
			e.deployVM(e.cluster(id).Networkid, e.info.NodeTemplateID, "gpu-1")
			return id
		},
			run: func(e *testEnv, id string) string { e.mustSucceed(e.addNodes(id, true, e.vmNamed("gpu-1"))); return id },
			writes: func(e *testEnv, id string) map[string]ledgerCheck {
				cpu, mem := e.capacityPlus(id, 1, e.info.ServiceOfferingID)
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, "Importing", model.ClusterRunning), "cluster.size": is("2"),
					"cluster.cpunumber": is(cpu), "cluster.memory": is(mem), "vm.added": is("1"),
					"rules.Firewall": written, "rules.PortForwarding": written}
			}},
		{op: "remove-nodes", name: "one external node", setup: func(e *testEnv) string {
			id, _ := e.joinedCluster(1, 1, false)
			return id
		},
			run: func(e *testEnv, id string) string { e.mustSucceed(e.removeNodes(id, e.vmNamed("gpu-1"))); return id },
			writes: func(e *testEnv, id string) map[string]ledgerCheck {
				cpu, mem := e.capacityPlus(id, -1, e.info.ServiceOfferingID)
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, "RemovingNodes", model.ClusterRunning), "cluster.size": is("1"),
					"cluster.cpunumber": is(cpu), "cluster.memory": is(mem), "vm.removed": is("1"),
					"rules.Firewall": written, "rules.PortForwarding": written}
			}},
	}
}
