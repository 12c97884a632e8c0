package clusterops

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// etcdCluster is a cluster with separate etcd nodes after the scale-down of
// apache/cloudstack#14159 failed: size 2, one worker left in the map.
func etcdCluster() *cloudstack.Cluster {
	return &cloudstack.Cluster{ID: "3b74274b-6554-40c2-b2cf-4329d4308544", Name: "cks-etcd-minimal-20260912",
		ControlNodes: 1, EtcdNodes: 3, Size: 2, State: "Alert", VirtualMachines: []cloudstack.ClusterVM{
			{ID: "e1", Name: "cks-etcd-minimal-20260912-etcd-1-1932a7a3b01", IsEtcdNode: true},
			{ID: "e2", Name: "cks-etcd-minimal-20260912-etcd-2-1932a7a3b01", IsEtcdNode: true},
			{ID: "e3", Name: "cks-etcd-minimal-20260912-etcd-3-1932a7a3b01", IsEtcdNode: true},
			{ID: "c1", Name: "cks-etcd-minimal-20260912-control-1932a7a3b02", State: "Running"},
			{ID: "w1", Name: "cks-etcd-minimal-20260912-node-1932a7a3b03"},
		}}
}

func TestNodesOfRolesAndPorts(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	want := []struct {
		role naming.Role
		port int
	}{{naming.RoleEtcd, 50000}, {naming.RoleEtcd, 50001}, {naming.RoleEtcd, 50002}, {naming.RoleControl, 2222}, {naming.RoleWorker, 2223}}
	got := NodesOf(c, rules.NetworkIsolated, 0)
	if len(got) != len(want) {
		t.Fatalf("NodesOf = %+v", got)
	}
	for i, n := range got {
		if n.Role != want[i].role || n.SSHPort != want[i].port || n.ID != c.VirtualMachines[i].ID {
			t.Errorf("node %d = %+v, want %s on %d", i, n, want[i].role, want[i].port)
		}
	}
	if n := NodesOf(c, rules.NetworkIsolated, 40000); n[0].SSHPort != 40000 || n[2].SSHPort != 40002 {
		t.Errorf("custom etcd start port: %+v", n)
	}
	for _, n := range NodesOf(c, rules.NetworkDirect, 0) {
		if n.SSHPort != 22 {
			t.Errorf("direct network node %s has SSH port %d, want 22", n.Name, n.SSHPort)
		}
	}
}

// VMs CKS did not name (older releases, manual edits) fill the control
// slots in name order; their SSH ports follow the map, as CKS gives them.
func TestNodesOfUnknownNamesFillTheControlSlots(t *testing.T) {
	t.Parallel()
	c := &cloudstack.Cluster{ID: "id", Name: "prod", ControlNodes: 2, Size: 2, VirtualMachines: []cloudstack.ClusterVM{
		{ID: "a", Name: "first"}, {ID: "b", Name: "second"}, {ID: "c", Name: "third"},
		{ID: "x", Name: "external", IsExternalNode: true},
	}}
	got := NodesOf(c, rules.NetworkIsolated, 0)
	want := map[string]Node{
		"first": {Role: naming.RoleControl, SSHPort: 2222}, "second": {Role: naming.RoleControl, SSHPort: 2223},
		"third": {Role: naming.RoleWorker, SSHPort: 2224}, "external": {Role: naming.RoleWorker, SSHPort: 2225, External: true},
	}
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
		if w := want[n.Name]; n.Role != w.Role || n.SSHPort != w.SSHPort || n.External != w.External {
			t.Errorf("node %s = %s on %d (external %t), want %s on %d (external %t)", n.Name, n.Role, n.SSHPort, n.External,
				w.Role, w.SSHPort, w.External)
		}
	}
	// Each role in name order, external nodes last.
	if !slices.Equal(names, []string{"first", "second", "third", "external"}) {
		t.Errorf("order %v", names)
	}
}

func TestInconsistentMap(t *testing.T) {
	t.Parallel()
	c := etcdCluster()
	bad := InconsistentMap(c)
	if bad == nil || !bad.Lost() || bad.Workers != 1 || bad.NodeCount != 2 || bad.Rows != 5 || bad.Expected != 6 {
		t.Fatalf("after the failed scale-down: %+v", bad)
	}
	fix := bad.AdminFix()
	for _, want := range []string{"node_count = 1", "uuid = '3b74274b-6554-40c2-b2cf-4329d4308544'", "cloud.kubernetes_cluster",
		"within about 30 seconds"} {
		if !strings.Contains(fix, want) {
			t.Errorf("admin fix %q lacks %q", fix, want)
		}
	}
	if !strings.Contains(bad.Error(), "unstable state") {
		t.Errorf("error %q does not quote CloudStack's refusal", bad.Error())
	}
	c.Size, c.State = 1, "Running"
	if InconsistentMap(c) != nil {
		t.Errorf("consistent Running cluster reported inconsistent")
	}
	c.Size = 0 // a failed scale-up: more workers than the size
	if bad := InconsistentMap(c); bad == nil || bad.Lost() || !strings.Contains(bad.Explanation(), "failed scale-up") {
		t.Errorf("extra worker: %+v", bad)
	}
	c.State = "Scaling"
	if InconsistentMap(c) != nil {
		t.Errorf("a cluster in the middle of a scale is inconsistent by design")
	}
	if InconsistentMap(&cloudstack.Cluster{State: "Created", Size: 3, ControlNodes: 1}) != nil {
		t.Errorf("a Created cluster without VMs is never inconsistent")
	}
}

func TestNodesAfterResize(t *testing.T) {
	t.Parallel()
	control := Node{ID: "c", Name: "prod-control-1932a7a3b01", Role: naming.RoleControl, SSHPort: 2222}
	worker := func(id string, port int, suffix string) Node {
		return Node{ID: id, Name: "prod-node-1932a7a3b" + suffix, Role: naming.RoleWorker, SSHPort: port}
	}
	healthy := []Node{control, worker("w1", 2223, "02"), worker("w2", 2224, "03"), worker("w3", 2225, "04")}
	for _, tc := range []struct {
		name      string
		nodes     []Node
		from, to  int64
		wantKeep  []int
		wantAdded int64
		wantOK    bool
	}{
		{"scale-up keeps every node and adds workers", healthy, 3, 5, []int{0, 1, 2, 3}, 2, true},
		{"scale-down removes the highest ports, the newest", healthy, 3, 1, []int{0, 1}, 0, true},
		{"ports and creation order disagree", []Node{control, worker("w1", 2223, "05"), worker("w2", 2224, "03")}, 2, 1, nil, 0, false},
		{"a worker without a port", []Node{control, worker("w1", 0, "02")}, 1, 2, nil, 0, false},
		{"the nodes hold another worker count", healthy, 2, 1, nil, 0, false},
		{"equal ports on a direct network", []Node{worker("w1", 22, "02"), worker("w2", 22, "03")}, 2, 1, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			keep, added, ok := NodesAfterResize(tc.nodes, tc.from, tc.to)
			if ok != tc.wantOK || added != tc.wantAdded || !slices.Equal(keep, tc.wantKeep) {
				t.Fatalf("NodesAfterResize = %v, %d, %v; want %v, %d, %v", keep, added, ok, tc.wantKeep, tc.wantAdded, tc.wantOK)
			}
		})
	}
}
