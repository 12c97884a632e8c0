package clusterview

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

func TestRoles(t *testing.T) {
	t.Parallel()
	const id = "3b74274b-6554-40c2-b2cf-4329d4308544"
	vm := func(name string) cloudstack.ClusterVM { return cloudstack.ClusterVM{ID: "id-" + name, Name: name} }
	for _, tc := range []struct {
		name    string
		cluster cloudstack.Cluster
		want    map[string]naming.Role // by VM name
	}{
		{
			name: "named by CKS, etcd by its flag",
			cluster: cloudstack.Cluster{Name: "prod", ControlNodes: 1, EtcdNodes: 1, VirtualMachines: []cloudstack.ClusterVM{
				{ID: "e", Name: "prod-etcd-1-1932a7a3b01", IsEtcdNode: true}, vm("prod-control-1932a7a3b02"), vm("prod-node-1932a7a3b03"),
			}},
			want: map[string]naming.Role{"prod-etcd-1-1932a7a3b01": naming.RoleEtcd, "prod-control-1932a7a3b02": naming.RoleControl,
				"prod-node-1932a7a3b03": naming.RoleWorker},
		},
		{
			name: "etcd by its name in a response without the flag",
			cluster: cloudstack.Cluster{Name: "prod", ControlNodes: 1, EtcdNodes: 1, VirtualMachines: []cloudstack.ClusterVM{
				vm("prod-etcd-1-1932a7a3b01"), vm("prod-control-1932a7a3b02"),
			}},
			want: map[string]naming.Role{"prod-etcd-1-1932a7a3b01": naming.RoleEtcd, "prod-control-1932a7a3b02": naming.RoleControl},
		},
		{
			name: "an etcd-like name in a cluster without etcd nodes is no etcd node",
			cluster: cloudstack.Cluster{Name: "prod", ControlNodes: 1, VirtualMachines: []cloudstack.ClusterVM{
				vm("prod-etcd-1-1932a7a3b01"), vm("prod-control-1932a7a3b02"),
			}},
			want: map[string]naming.Role{"prod-etcd-1-1932a7a3b01": naming.RoleWorker, "prod-control-1932a7a3b02": naming.RoleControl},
		},
		{
			name: "unnamed VMs fill the control slots the named ones left, in name order",
			cluster: cloudstack.Cluster{Name: "prod", ControlNodes: 3, VirtualMachines: []cloudstack.ClusterVM{
				vm("zeta"), vm("prod-control-1932a7a3b02"), vm("beta"), vm("alpha"), vm("prod-node-1932a7a3b03"),
			}},
			want: map[string]naming.Role{"alpha": naming.RoleControl, "beta": naming.RoleControl, "zeta": naming.RoleWorker,
				"prod-control-1932a7a3b02": naming.RoleControl, "prod-node-1932a7a3b03": naming.RoleWorker},
		},
		{
			name: "external nodes are workers, whatever their names",
			cluster: cloudstack.Cluster{Name: "prod", ControlNodes: 1, VirtualMachines: []cloudstack.ClusterVM{
				{ID: "x", Name: "aaa", IsExternalNode: true}, {ID: "y", Name: "prod-control-1932a7a3b09", IsExternalNode: true}, vm("bbb"),
			}},
			want: map[string]naming.Role{"aaa": naming.RoleWorker, "prod-control-1932a7a3b09": naming.RoleWorker, "bbb": naming.RoleControl},
		},
		{
			name: "names of another prefix by the pattern of any cluster",
			cluster: cloudstack.Cluster{Name: "renamed", ControlNodes: 1, VirtualMachines: []cloudstack.ClusterVM{
				vm("aaa"), vm("old-node-1932a7a3b03"), vm("old-control-1932a7a3b02"),
			}},
			want: map[string]naming.Role{"aaa": naming.RoleWorker, "old-node-1932a7a3b03": naming.RoleWorker,
				"old-control-1932a7a3b02": naming.RoleControl},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := tc.cluster
			c.ID = id
			rng := rand.New(rand.NewPCG(1, 2))
			// Every order the API might list the map in gives each VM the
			// same role.
			for try := range 24 {
				got := Roles(&c)
				for i, v := range c.VirtualMachines {
					if got[i] != tc.want[v.Name] {
						t.Fatalf("order %d %s: %s is %q, want %q", try, mapNames(c), v.Name, got[i], tc.want[v.Name])
					}
				}
				rng.Shuffle(len(c.VirtualMachines), func(i, j int) {
					c.VirtualMachines[i], c.VirtualMachines[j] = c.VirtualMachines[j], c.VirtualMachines[i]
				})
			}
		})
	}
}

func mapNames(c cloudstack.Cluster) string {
	names := make([]string, 0, len(c.VirtualMachines))
	for _, vm := range c.VirtualMachines {
		names = append(names, vm.Name)
	}
	return fmt.Sprint(names)
}
