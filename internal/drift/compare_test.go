package drift

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCleanClusterIsInSync(t *testing.T) {
	t.Parallel()
	r := Compare(cleanInput())
	assertKinds(t, r)
	if r.Skipped || !r.NodesChecked || r.NodeCheckError != "" || r.Summary != "in sync" || r.ClusterState != "Running" {
		t.Fatalf("result = %+v", r)
	}
	if len(r.Counts) != len(Kinds()) || r.Counts[KindVMMapInconsistent] != 0 {
		t.Fatalf("counts = %v", r.Counts)
	}
}

func TestDeletedWorkerRow(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	removeMapRow(&in, "493")
	r := Compare(in)
	// The node of the unmapped VM matches that VM, so it is not also a node without a VM.
	assertKinds(t, r, KindUnmappedVM, KindVMMapInconsistent)
	f := r.Findings[0]
	if f.VMID != "493" || f.VMName != worker2Name || f.VMState != "Running" ||
		!strings.Contains(f.Message, "named as a worker node of cluster test but is in no cluster's VM map") {
		t.Errorf("unmapped finding = %+v", f)
	}
	if !strings.Contains(r.Findings[1].Message, "but its size (node_count) is 2") {
		t.Errorf("size finding = %q", r.Findings[1].Message)
	}
	if r.Summary != "2 findings: 1 unmapped_vm, 1 vm_map_inconsistent" {
		t.Errorf("summary = %q", r.Summary)
	}
}

func TestRowsForExpungedAndNonExistentVMs(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Map = append(in.Map,
		MappedVM{ID: "489", Name: "prod-node-1a1c2dc4f00"},
		MappedVM{ID: "999999"},
	)
	in.VMs = append(in.VMs, VM{ID: "489", Name: "prod-node-1a1c2dc4f00", State: "Expunging", Created: testNow.Add(-time.Hour)})
	r := Compare(in)
	assertKinds(t, r, KindMappedVMMissing, KindMappedVMNotRunning, KindVMMapInconsistent)
	if f := r.Findings[0]; f.VMID != "999999" || !strings.Contains(f.Message, "VM 999999 is in the VM map of cluster test but does not exist") {
		t.Errorf("missing finding = %+v", f)
	}
	if f := r.Findings[1]; f.VMID != "489" || f.VMState != "Expunging" || !strings.Contains(f.Message, "but is Expunging") {
		t.Errorf("not running finding = %+v", f)
	}
}

func TestDestroyedErrorAndStoppedMappedVMs(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.VMs[0].State = "Destroyed"
	in.VMs[1].State = "Error"
	in.VMs[2].State = "Stopped"
	in.Nodes = nil
	r := Compare(in)
	assertKinds(t, r, KindMappedVMNotRunning, KindMappedVMNotRunning, KindMappedVMNotRunning)
	if !strings.Contains(r.Findings[2].Message, "Stopped while the cluster is Running") {
		t.Errorf("stopped finding = %q", r.Findings[2].Message)
	}

	// In Alert a stopped VM is not a finding on its own; destroyed still is.
	in.Cluster.State = "Alert"
	assertKinds(t, Compare(in), KindMappedVMNotRunning, KindMappedVMNotRunning)
}

func TestKubeletStoppedAndNodeDeleted(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes.Nodes = in.Nodes.Nodes[:1]
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: worker2Name, Ready: true})
	r := Compare(in)
	assertKinds(t, r, KindVMNotNode)
	if f := r.Findings[0]; f.VMID != "492" || !strings.Contains(f.Message, "is running but is not a Kubernetes node") {
		t.Errorf("finding = %+v", f)
	}
}

func TestKubeletStoppedNodeNotReady(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes.Nodes[1].Ready = false
	r := Compare(in)
	assertKinds(t, r, KindNodeNotReady)
	if f := r.Findings[0]; f.NodeName != worker1Name || f.VMID != "492" {
		t.Errorf("finding = %+v", f)
	}
}

func TestNodeCheckErrorStillComparesVMs(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	removeMapRow(&in, "493")
	in.Nodes = &NodeView{Err: errors.New("ssh: handshake failed: i/o timeout")}
	r := Compare(in)
	assertKinds(t, r, KindUnmappedVM, KindVMMapInconsistent)
	if r.NodesChecked || r.NodeCheckError != "ssh: handshake failed: i/o timeout" {
		t.Fatalf("nodes checked %v, error %q", r.NodesChecked, r.NodeCheckError)
	}
	if !strings.HasSuffix(r.Summary, "; Kubernetes nodes not checked: ssh: handshake failed: i/o timeout") {
		t.Errorf("summary = %q", r.Summary)
	}
}

func TestNodeSourceNone(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes = nil
	removeMapRow(&in, "492")
	r := Compare(in)
	assertKinds(t, r, KindUnmappedVM, KindVMMapInconsistent)
	if r.NodesChecked || r.NodeCheckError != "" {
		t.Fatalf("nodes checked %v, error %q", r.NodesChecked, r.NodeCheckError)
	}
}

func TestGracePeriodForStrayVM(t *testing.T) {
	t.Parallel()
	stray := VM{ID: "494", Name: "test-node-1a1c6f00000", State: "Running"}
	cases := []struct {
		age  time.Duration
		want []string
	}{
		{5 * time.Minute, nil},
		{15 * time.Minute, nil},
		{16 * time.Minute, []string{KindUnmappedVM}},
	}
	for _, tc := range cases {
		in := cleanInput()
		s := stray
		s.Created = testNow.Add(-tc.age)
		in.VMs = append(in.VMs, s)
		// A joining node of the stray VM is not a node without a VM either.
		in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: s.Name, Ready: false})
		r := Compare(in)
		got := kinds(r)
		if tc.want == nil {
			if len(got) != 1 || got[0] != KindNodeNotReady {
				t.Errorf("age %v: findings %v, want only the NotReady joining node", tc.age, got)
			}
			continue
		}
		if len(got) != 2 || got[0] != KindUnmappedVM || got[1] != KindNodeNotReady {
			t.Errorf("age %v: findings %v", tc.age, got)
		}
	}
}

func TestGracePeriodForJoiningNode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		age  time.Duration
		want bool
	}{{10 * time.Minute, false}, {20 * time.Minute, true}} {
		in := cleanInput()
		in.Cluster.Size = 3
		in.Map = append(in.Map, MappedVM{ID: "495", Name: "test-node-1a1c6f11111"})
		in.VMs = append(in.VMs, VM{ID: "495", Name: "test-node-1a1c6f11111", State: "Running", Created: testNow.Add(-tc.age)})
		r := Compare(in)
		if got := r.Counts[KindVMNotNode] == 1; got != tc.want || len(r.Findings) != r.Counts[KindVMNotNode] {
			t.Errorf("age %v: findings %v", tc.age, kinds(r))
		}
	}
}

func TestFQDNNodeNames(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	for i := range in.Nodes.Nodes {
		in.Nodes.Nodes[i].Name += ".cs1cloud.internal"
	}
	assertKinds(t, Compare(in))

	// A second, FQDN registration of a VM that already has an exact node is stale.
	in = cleanInput()
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: worker1Name + ".cs1cloud.internal", Ready: false})
	r := Compare(in)
	assertKinds(t, r, KindNodeWithoutVM)
	if r.Findings[0].NodeName != worker1Name+".cs1cloud.internal" {
		t.Errorf("finding = %+v", r.Findings[0])
	}
}

func TestNodeWithoutVM(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: "rogue-worker", Ready: true})
	r := Compare(in)
	assertKinds(t, r, KindNodeWithoutVM)
	if f := r.Findings[0]; f.NodeName != "rogue-worker" || !strings.Contains(f.Message, "matches no VM of cluster test") {
		t.Errorf("finding = %+v", f)
	}
}

func TestEtcdVMsAreNotNodes(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Cluster.EtcdNodes = 2
	etcd := []VM{
		{ID: "480", Name: "test-etcd-1-1a1c6ea0000", State: "Running", Created: testNow.Add(-time.Hour)},
		{ID: "481", Name: "test-etcd-2-1a1c6ea0000", State: "Running", Created: testNow.Add(-time.Hour)},
	}
	in.VMs = append(in.VMs, etcd...)
	// The second row lacks isetcdnode, as cloudstack-go drops it: the name tells.
	in.Map = append([]MappedVM{{ID: "480", Name: etcd[0].Name, IsEtcd: true}, {ID: "481", Name: etcd[1].Name}}, in.Map...)
	assertKinds(t, Compare(in))
}

func TestVMMappedToAnotherCluster(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.VMs = append(in.VMs, VM{ID: "700", Name: "test-node-1a1c6f22222", State: "Running", Created: testNow.Add(-time.Hour)})
	in.MappedElsewhere["700"] = "test-node-cluster-uuid"
	assertKinds(t, Compare(in))

	// Named like a node but destroyed or in error: not a stray VM.
	in = cleanInput()
	in.VMs = append(in.VMs,
		VM{ID: "701", Name: "test-node-1a1c6f33333", State: "Destroyed", Created: testNow.Add(-time.Hour)},
		VM{ID: "702", Name: "test-node-1a1c6f44444", State: "Error", Created: testNow.Add(-time.Hour)},
	)
	assertKinds(t, Compare(in))
}

func TestLegacyNamedStrayVM(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Cluster.Name = "MyCluster"
	in.VMs = append(in.VMs, VM{ID: "800", Name: "MyCluster-control-1a1c6f55555", State: "Stopped", Created: testNow.Add(-time.Hour)})
	r := Compare(in)
	if r.Counts[KindUnmappedVM] != 1 {
		t.Fatalf("findings = %v, want the pre-#10778 named VM as unmapped", kinds(r))
	}
}

func TestSkippedStates(t *testing.T) {
	t.Parallel()
	for _, state := range []string{"Starting", "Scaling", "ScalingStoppedCluster", "Upgrading", "Stopping",
		"RemovingNodes", "Importing", "Recovering", "Destroying", "Destroyed", "Created", "Error", ""} {
		in := cleanInput()
		in.Cluster.State = state
		removeMapRow(&in, "493")
		r := Compare(in)
		if !r.Skipped || r.SkipReason == "" || len(r.Findings) != 0 || r.InSync || !strings.HasPrefix(r.Summary, "skipped: ") {
			t.Errorf("state %q: %+v", state, r)
		}
	}
	in := cleanInput()
	in.Cluster.ClusterType = "ExternalManaged"
	if r := Compare(in); !r.Skipped || !strings.Contains(r.SkipReason, "ExternalManaged") {
		t.Errorf("ExternalManaged: %+v", r)
	}
	// States are compared exactly, as CloudStack writes them: a state it
	// never writes is not taken for a steady one.
	in = cleanInput()
	in.Cluster.State = "running"
	if r := Compare(in); !r.Skipped || !strings.Contains(r.SkipReason, "running") {
		t.Errorf("lowercase running not skipped: %+v", r)
	}
}

func TestStoppedClusterExpectsNoNodes(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Cluster.State = "Stopped"
	for i := range in.VMs[:3] {
		in.VMs[i].State = "Stopped"
	}
	in.Nodes = &NodeView{}
	r := Compare(in)
	assertKinds(t, r)
	if r.NodesChecked {
		t.Error("nodes checked in a Stopped cluster")
	}
}

func TestFindingsOrderAndSummary(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	removeMapRow(&in, "493")
	in.Map = append(in.Map, MappedVM{ID: "999999"})
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: "b-rogue", Ready: true}, Node{Name: "a-rogue", Ready: false})
	in.Nodes.Nodes[0].Ready = false
	r := Compare(in)
	assertKinds(t, r, KindMappedVMMissing, KindUnmappedVM, KindNodeWithoutVM, KindNodeWithoutVM, KindNodeNotReady)
	if r.Findings[2].NodeName != "a-rogue" || r.Findings[3].NodeName != "b-rogue" {
		t.Errorf("node findings not sorted by name: %+v", r.Findings[2:4])
	}
	want := "5 findings: 1 mapped_vm_missing, 1 unmapped_vm, 2 node_without_vm, 1 node_not_ready"
	if r.Summary != want {
		t.Errorf("summary = %q, want %q", r.Summary, want)
	}
	// Same input, same result.
	if again := Compare(in); again.Summary != r.Summary || len(again.Findings) != len(r.Findings) {
		t.Error("Compare is not deterministic")
	}
	if !reflect.DeepEqual(Compare(in).Findings, r.Findings) {
		t.Fatal("Compare is not deterministic")
	}
}

func TestDuplicateMapRows(t *testing.T) {
	t.Parallel()
	in := cleanInput()
	in.Map = append(in.Map, in.Map[1])
	assertKinds(t, Compare(in))
}
