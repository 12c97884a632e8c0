package driftcheck

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

func TestCheckGracePeriodForStrayVM(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "stray", Size: 1})
	id, name, err := e.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: cl.ID, Created: time.Now().Add(-5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	req := e.sshRequest(cl.ID)

	res, _ := e.mustCheck(req)
	assertKinds(t, res) // five minutes old: an operation may not have mapped it yet

	later := &Checker{API: e.API, Now: func() time.Time { return time.Now().Add(20 * time.Minute) }}
	res, _, err = later.Check(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	assertKinds(t, res, drift.KindUnmappedVM)
	if f := res.Findings[0]; f.VMID != id || f.VMName != name {
		t.Fatalf("finding %+v, want stray VM %s (%s)", f, name, id)
	}
}

func TestCheckChangesNothing(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "readonly", EtcdNodes: 1, Size: 2})
	if err := e.Sim.DeleteMapRow(cl.ID, e.NthWorker(cl, 0).ID); err != nil {
		t.Fatal(err)
	}
	e.Sim.RunScanner() // the scanner runs on every list call; let it settle first
	before, err := e.Sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []NodeSource{NodeSourceSSH, NodeSourceKubeconfig, NodeSourceNone} {
		req := e.sshRequest(cl.ID)
		req.NodeSource = source
		if res, _ := e.mustCheck(req); res.InSync {
			t.Fatalf("%s: the deleted map row was not reported", source)
		}
	}
	after, err := e.Sim.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("the check changed the simulator state:\nbefore %s\nafter %s", before, after)
	}
}

func TestCheckEtcdVMsAreNeverExpectedAsNodes(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, simtest.WithOrderedList())
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "etcd", EtcdNodes: 3, Size: 1})
	res, _ := e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res)
	if !res.NodesChecked {
		t.Fatalf("nodes not checked: %s", res.NodeCheckError)
	}
}

func TestCheckFQDNNodeNamesMatchTheirVMs(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "fqdn", Size: 2})
	for _, vm := range cl.VirtualMachines {
		if err := e.Sim.RegisterNodeFQDN(vm.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res)
}

func TestCheckVMMappedToAnotherClusterIsNotUnmapped(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	a := e.NewCluster(cloudstack.CreateClusterParams{Name: "alpha", Size: 2})
	b := e.NewCluster(cloudstack.CreateClusterParams{Name: "beta", Size: 1})
	// A node rebuilt by hand into another cluster: alpha's VM, beta's map.
	moved := e.NthWorker(a, 1)
	if err := e.Sim.DeleteMapRow(a.ID, moved.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.InsertMapRow(b.ID, moved.ID, simulator.MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	req := e.sshRequest(a.ID)
	req.CheckNetworkRules = false
	res, _ := e.mustCheck(req)
	// Named as alpha's worker but in beta's map: not unmapped. Its node is
	// still registered in alpha's Kubernetes, which is drift of its own.
	assertKinds(t, res, drift.KindNodeWithoutVM, drift.KindVMMapInconsistent)
	if res.Findings[0].NodeName != strings.ToLower(moved.Name) {
		t.Fatalf("finding %+v", res.Findings[0])
	}
}

// TestCheckScaleDownWithEtcdAfterScaleUp follows a scale-down with separate
// etcd nodes after a scale-up (apache/cloudstack#14159): the scale-up leaves
// a scale hazard, and the scale-down it predicts breaks the cluster.
func TestCheckScaleDownWithEtcdAfterScaleUp(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, simtest.WithOrderedList(), simtest.WithProfile(simulator.Profile42211))
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "cks-etcd-minimal-20260912", EtcdNodes: 3, Size: 1})
	if err := e.Scale(cl.ID, 2); err != nil {
		t.Fatalf("scale to 2: %v", err)
	}
	res, _ := e.mustCheck(e.sshRequest(cl.ID))
	// After one scale-up the node range sorts after the etcd firewall rules:
	// the next scale would pick etcd rule 50000 (and 50001, 50002 after it).
	assertKinds(t, res, drift.KindScaleHazard, drift.KindScaleHazard, drift.KindScaleHazard)
	var ports []string
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "#14159") || f.RuleID == "" {
			t.Fatalf("hazard %+v", f)
		}
		ports = append(ports, f.Message[strings.Index(f.Message, "(tcp ")+5:][:5])
	}
	slices.Sort(ports)
	if want := []string{"50000", "50001", "50002"}; !slices.Equal(ports, want) {
		t.Fatalf("hazards on ports %v, want the etcd rules %v", ports, want)
	}

	if err := e.Scale(cl.ID, 1); err == nil || !strings.Contains(err.Error(), "unable to update network rules") {
		t.Fatalf("scale to 1: %v, want the #14159 failure", err)
	}
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	// The state #14159 leaves: stale size, forwards 2222, 2223 and 50000 gone,
	// the old range 2222-2224 left, etcd rule 50000 revoked; and the next
	// scale would hit the same bug through 50001 and 50002.
	assertKinds(t, res, drift.KindVMMapInconsistent, drift.KindSSHForwardMissing, drift.KindSSHForwardMissing,
		drift.KindSSHFirewallRangeMismatch, drift.KindEtcdSSHRuleMissing, drift.KindEtcdSSHRuleMissing,
		drift.KindScaleHazard, drift.KindScaleHazard)
	if res.ClusterState != "Alert" || res.NodesChecked || !strings.Contains(res.NodeCheckError, ":2222") {
		t.Fatalf("state %s, nodes checked %v (%s): SSH to :2222 should be gone", res.ClusterState, res.NodesChecked, res.NodeCheckError)
	}
	if !strings.Contains(res.Findings[0].Message, "its size (node_count) is 2") || !strings.Contains(res.Findings[0].Message, "node_count = 1") ||
		!strings.Contains(res.Findings[3].Message, "2222-2224, expected 2222-2223") {
		t.Fatalf("messages:\n%s", describe(res))
	}
}

func TestCheckInfersMapRowsTheAPIHides(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "hidden", Size: 2})
	gone, _, err := e.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: cl.ID, Created: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.ExpungeVM(gone); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.InsertMapRow(cl.ID, gone, simulator.MapRowSpec{}); err != nil {
		t.Fatal(err)
	}
	// CloudStack's state scanner runs on its own timer: run its pass.
	e.Sim.RunScanner()

	res, _ := e.mustCheck(e.sshRequest(cl.ID))

	// The API lists neither row; the scanner holds the cluster in Alert,
	// and the check gives the scanner's likely reason.
	assertKinds(t, res, drift.KindClusterStateUnexpected)
	if res.ClusterState != "Alert" || res.Findings[0].VMID != "" ||
		!strings.Contains(res.Findings[0].Message, "expunged or never existed") {
		t.Fatalf("state %s: %s", res.ClusterState, describe(res))
	}
	if res.Summary != "1 finding: 1 cluster_state_unexpected" {
		t.Fatalf("summary %q", res.Summary)
	}

	// Without the rows the scanner brings the cluster back, and so does the check.
	if err := e.Sim.DeleteMapRow(cl.ID, gone); err != nil {
		t.Fatal(err)
	}
	e.Sim.RunScanner()
	res, _ = e.mustCheck(e.sshRequest(cl.ID))
	assertKinds(t, res)
	if res.ClusterState != "Running" {
		t.Fatalf("state %s", res.ClusterState)
	}
}
