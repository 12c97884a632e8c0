package provider

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// Drift between a cluster's VM map, its VMs and its Kubernetes nodes, on a
// cluster of 1 control node and 2 workers on an isolated network, created
// 40 minutes earlier (past the grace period).

func TestAccClusterDrift_CleanClusterInSync(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
		ConfigStateChecks: append(expectDriftFindings(),
			expectDriftAttr("cluster_state", knownvalue.StringExact("Running")),
			expectDriftAttr("skipped", knownvalue.Bool(false)),
			expectDriftAttr("skip_reason", knownvalue.Null()),
			expectDriftAttr("nodes_checked", knownvalue.Bool(true)),
			expectDriftAttr("node_check_error", knownvalue.Null()),
			expectDriftAttr("summary", knownvalue.StringExact("in sync")),
			expectDriftAttr("node_source", knownvalue.StringExact("ssh")),
			expectDriftAttr("grace_period", knownvalue.StringExact("15m")),
			expectDriftAttr("check_network_rules", knownvalue.Bool(true)),
			expectDriftAttr("fail_on_drift", knownvalue.Bool(false)),
		),
	}}})
}

func TestAccClusterDrift_WorkerMissingFromVMMap(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 1)
	if err := e.Sim.DeleteMapRow(cl.ID, worker.ID); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// The three views disagree: the VM is named as a worker but in no
			// map, and the size no longer matches. Its node matches it, so it
			// is not also a node without a VM.
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)+"  check_network_rules = false\n"),
			ConfigStateChecks: append(expectDriftFindings(drift.KindUnmappedVM, drift.KindVMMapInconsistent),
				expectDriftFinding(0, map[string]knownvalue.Check{
					"vm_id":     knownvalue.StringExact(worker.ID),
					"vm_name":   knownvalue.StringExact(worker.Name),
					"vm_state":  knownvalue.StringExact("Running"),
					"node_name": knownvalue.Null(),
					"message":   driftContains("named as a worker node of cluster test", "in no cluster's VM map"),
				}),
				expectDriftFinding(1, map[string]knownvalue.Check{
					"message": driftContains("cluster test: its VM map holds 2 VM(s) with 1 worker(s), but its size (node_count) is 2", "node_count = 1"),
				}),
				expectDriftAttr("summary", knownvalue.StringExact("2 findings: 1 unmapped_vm, 1 vm_map_inconsistent")),
			),
		},
		{
			// With the rules: the VM's forward 2224 is no longer CKS's, so the
			// node range is one port too long and the next scale would delete
			// that forward.
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: expectDriftFindings(drift.KindUnmappedVM, drift.KindVMMapInconsistent,
				drift.KindSSHFirewallRangeMismatch, drift.KindScaleHazard),
		},
		{
			PreConfig: func() {
				if err := e.Sim.RestoreMapRow(cl.ID, worker.ID); err != nil {
					t.Fatal(err)
				}
			},
			Config:            e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: expectDriftFindings(),
		},
	}})
}

func TestAccClusterDrift_MapRowsWithoutVMs(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	// A row for the VM of a node removed from another cluster, expunged,
	// and a row for an id that never existed.
	other := e.NewCluster(cloudstack.CreateClusterParams{Name: "prod", Size: 2})
	expunged := e.NthWorker(other, 1).ID
	if err := e.Sim.DeleteMapRow(other.ID, expunged); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.ExpungeVM(expunged); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.InsertMapRow(cl.ID, expunged, simulator.MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	// CloudStack's state scanner runs on its own timer: run its pass.
	e.Sim.RunScanner()
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			// The API lists neither row (it joins the map with live VMs), but
			// CloudStack's scanner sees them and holds the cluster in Alert
			// while every visible view is clean: that is reported, with the
			// scanner's likely reason.
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: append(expectDriftFindings(drift.KindClusterStateUnexpected),
				expectDriftAttr("cluster_state", knownvalue.StringExact("Alert")),
				expectDriftFinding(0, map[string]knownvalue.Check{
					"vm_id":   knownvalue.Null(),
					"message": driftContains("cluster test is in Alert", "expunged or never existed"),
				}),
			),
		},
		{
			PreConfig: func() {
				if err := e.Sim.DeleteMapRow(cl.ID, expunged); err != nil {
					t.Fatal(err)
				}
				e.Sim.RunScanner()
			},
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("cluster_state", knownvalue.StringExact("Running"))),
		},
	}})
}

func TestAccClusterDrift_NodeDeletedOutOfBand(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	worker := e.NthWorker(cl, 0)
	if err := e.Sim.DeleteKubeNode(worker.ID); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
		ConfigStateChecks: append(expectDriftFindings(drift.KindVMNotNode),
			expectDriftFinding(0, map[string]knownvalue.Check{
				"vm_id":    knownvalue.StringExact(worker.ID),
				"vm_state": knownvalue.StringExact("Running"),
				"message":  driftContains(worker.Name, "is running but is not a Kubernetes node"),
			}),
		),
	}}})
}

func TestAccClusterDrift_ControlNodeUnreachable(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	// The forward of public port 2222 is deleted (SSH to the control node
	// fails) and a worker's map row is deleted: the VMs are still compared.
	e.DeleteForward(cl, 2222)
	worker := e.NthWorker(cl, 1)
	if err := e.Sim.DeleteMapRow(cl.ID, worker.ID); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)+"  check_network_rules = false\n"),
		ConfigStateChecks: append(expectDriftFindings(drift.KindUnmappedVM, drift.KindVMMapInconsistent),
			expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
			expectDriftAttr("node_check_error", driftContains(cl.IPAddress+":2222", "connection refused")),
			expectDriftAttr("summary", driftContains("2 findings", "; Kubernetes nodes not checked: ", "connection refused")),
		),
	}}})
}

func TestAccClusterDrift_NodeSourceNone(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	// A node missing from Kubernetes is not looked for without nodes.
	if err := e.Sim.DeleteKubeNode(e.NthWorker(cl, 0).ID); err != nil {
		t.Fatal(err)
	}
	sessions := e.Sim.SSHSessions()
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: e.driftHCL(cl.ID, ""),
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("node_source", knownvalue.StringExact("none")),
				expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
				expectDriftAttr("node_check_error", knownvalue.Null()),
			),
		},
		{
			Config: e.driftHCL(cl.ID, "  node_source = \"none\"\n"+e.sshHCL(cl.ID)),
			ConfigStateChecks: append(expectDriftFindings(),
				expectDriftAttr("nodes_checked", knownvalue.Bool(false))),
			Check: func(*terraform.State) error {
				if n := e.Sim.SSHSessions() - sessions; n != 0 {
					return fmt.Errorf("node_source = none opened %d SSH sessions", n)
				}
				return nil
			},
		},
	}})
}

func TestAccClusterDrift_MidScaleAndGracePeriod(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", Size: 2})
	// A stray VM named as a worker, deployed five minutes ago.
	strayID, strayName, err := e.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: cl.ID, Created: time.Now().Add(-5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetClusterState(cl.ID, "Scaling"); err != nil {
		t.Fatal(err)
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: []statecheck.StateCheck{
				expectDriftAttr("in_sync", knownvalue.Bool(false)),
				expectDriftAttr("findings", knownvalue.ListExact([]knownvalue.Check{})),
				expectDriftAttr("counts", expectDriftCounts(nil)),
				expectDriftAttr("skipped", knownvalue.Bool(true)),
				expectDriftAttr("cluster_state", knownvalue.StringExact("Scaling")),
				expectDriftAttr("skip_reason", driftContains("Scaling", "not in a steady state")),
				expectDriftAttr("nodes_checked", knownvalue.Bool(false)),
			},
		},
		{
			// The scale is over; the stray VM is within the grace period.
			PreConfig: func() {
				if err := e.Sim.SetClusterState(cl.ID, "Running"); err != nil {
					t.Fatal(err)
				}
			},
			Config:            e.driftHCL(cl.ID, e.sshHCL(cl.ID)),
			ConfigStateChecks: expectDriftFindings(),
		},
		{
			// Past a grace period shorter than its age, it is reported.
			Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)+"  grace_period = \"4m\"\n"),
			ConfigStateChecks: append(expectDriftFindings(drift.KindUnmappedVM),
				expectDriftFinding(0, map[string]knownvalue.Check{
					"vm_id": knownvalue.StringExact(strayID), "vm_name": knownvalue.StringExact(strayName)}),
				expectDriftAttr("grace_period", knownvalue.StringExact("4m")),
			),
		},
	}})
}

func TestAccClusterDrift_ReadChangesNothing(t *testing.T) {
	t.Parallel()
	e := newDriftEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "test", EtcdNodes: 1, Size: 2})
	if err := e.Sim.DeleteMapRow(cl.ID, e.NthWorker(cl, 1).ID); err != nil {
		t.Fatal(err)
	}
	// The scanner runs on every cluster list; let it settle before the dump.
	e.Sim.RunScanner()
	before, err := e.Sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func(*terraform.State) error {
		after, err := e.Sim.Dump()
		if err != nil {
			return err
		}
		if !bytes.Equal(before, after) {
			return fmt.Errorf("the drift check changed the simulator:\nbefore: %s\nafter: %s", before, after)
		}
		return nil
	}
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{Config: e.driftHCL(cl.ID, e.sshHCL(cl.ID)), Check: unchanged,
			ConfigStateChecks: []statecheck.StateCheck{expectDriftAttr("in_sync", knownvalue.Bool(false))}},
		{Config: e.driftHCL(cl.ID, "  node_source = \"kubeconfig\"\n"), Check: unchanged},
	}})
}
