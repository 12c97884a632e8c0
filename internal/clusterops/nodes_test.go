package clusterops

import (
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

func seedCluster() *cloudstack.Cluster {
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
	c := seedCluster()
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

// VMs CKS did not name (older releases, manual edits) get their role from
// their position: the first C non-etcd VMs are the control nodes.
func TestNodesOfUnknownNamesUsePosition(t *testing.T) {
	t.Parallel()
	c := &cloudstack.Cluster{ID: "id", Name: "prod", ControlNodes: 2, Size: 1, VirtualMachines: []cloudstack.ClusterVM{
		{ID: "a", Name: "first"}, {ID: "b", Name: "second"}, {ID: "c", Name: "third"},
		{ID: "x", Name: "external", IsExternalNode: true},
	}}
	got := NodesOf(c, rules.NetworkIsolated, 0)
	roles := []naming.Role{naming.RoleControl, naming.RoleControl, naming.RoleWorker, naming.RoleWorker}
	ports := []int{2222, 2223, 2224, 2225}
	for i, n := range got {
		if n.Role != roles[i] || n.SSHPort != ports[i] {
			t.Errorf("node %s = %s on %d, want %s on %d", n.Name, n.Role, n.SSHPort, roles[i], ports[i])
		}
	}
	if !got[3].External {
		t.Errorf("external flag lost: %+v", got[3])
	}
}

func TestStaleSize(t *testing.T) {
	t.Parallel()
	c := seedCluster()
	if MapWorkerCount(c) != 1 || !SizeIsStale(c) || !NeedsRecovery(c) {
		t.Errorf("seed 000 after the failure: workers %d, stale %v", MapWorkerCount(c), SizeIsStale(c))
	}
	c.Size, c.State = 1, "Running"
	if SizeIsStale(c) || NeedsRecovery(c) {
		t.Errorf("consistent Running cluster reported stale")
	}
	c.State = "Alert"
	if !NeedsRecovery(c) {
		t.Errorf("Alert cluster does not need recovery")
	}
	created := &cloudstack.Cluster{State: "Created", Size: 3, ControlNodes: 1}
	if SizeIsStale(created) {
		t.Errorf("a Created cluster without VMs is never stale")
	}
}

func TestStaleTarget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                      string
		control, size, mapWorkers int64
		desired, want             int64
		wantErr                   bool
	}{
		{name: "seed 000: back to the map", control: 1, size: 2, mapWorkers: 1, desired: 1, want: 1},
		{name: "shortage, larger desired: map first", control: 1, size: 3, mapWorkers: 1, desired: 3, want: 1},
		{name: "shortage, smaller desired", control: 1, size: 3, mapWorkers: 2, desired: 1, want: 1},
		{name: "excess: below the stale size", control: 1, size: 2, mapWorkers: 3, desired: 3, want: 1},
		{name: "excess, smaller desired", control: 1, size: 3, mapWorkers: 4, desired: 2, want: 2},
		{name: "no worker left", control: 1, size: 2, mapWorkers: 0, desired: 2, wantErr: true},
		{name: "excess from size 1", control: 1, size: 1, mapWorkers: 2, desired: 2, wantErr: true},
		{name: "several control nodes", control: 3, size: 2, mapWorkers: 1, desired: 1, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := staleTarget(&cloudstack.Cluster{ID: "c", ControlNodes: tc.control, Size: tc.size}, tc.mapWorkers, tc.desired)
			if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
				t.Errorf("staleTarget = %d, %v; want %d (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestEndpointHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://10.1.1.5:6443/":  "10.1.1.5",
		"https://[fd00::5]:6443/": "fd00::5",
		"https://10.1.1.5/":       "10.1.1.5",
		"":                        "",
	} {
		if got := endpointHost(in); got != want {
			t.Errorf("endpointHost(%q) = %q, want %q", in, got, want)
		}
	}
}
