package provider

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// TestRelDumpProblems proves that the dump check of the fault suite finds
// each kind of leak and duplicate it claims to, and nothing in a clean dump.
func TestRelDumpProblems(t *testing.T) {
	t.Parallel()
	info := simulator.Info{IsolatedNetworkID: "seed-net"}
	clean := func() simulator.DumpState {
		return simulator.DumpState{
			Clusters: []simulator.DumpCluster{{ID: "c1", Name: "a", State: "Running", ControlNodes: 1, Size: 1,
				NetworkID: "n1", PublicIPID: "ip1"}},
			VMMap: []simulator.DumpMapRow{{ClusterID: "c1", VMID: "v1", Control: true}, {ClusterID: "c1", VMID: "v2"}},
			VMs: []simulator.DumpVM{{ID: "v1", Name: "a-control", ClusterID: "c1"}, {ID: "v2", Name: "a-node", ClusterID: "c1"},
				{ID: "v0", Name: "gone", ClusterID: "c0", Expunged: true}},
			Rules: []simulator.DumpRule{
				{Purpose: "Firewall", Protocol: "tcp", StartPort: 2222, EndPort: 2223, IPAddressID: "ip1", NetworkID: "n1"},
				{Purpose: "PortForwarding", Protocol: "tcp", StartPort: 2222, EndPort: 2222, PrivatePort: 22, VMID: "v1", IPAddressID: "ip1", NetworkID: "n1"},
				{Purpose: "PortForwarding", Protocol: "tcp", StartPort: 2223, EndPort: 2223, PrivatePort: 22, VMID: "v2", IPAddressID: "ip1", NetworkID: "n1"},
			},
			Networks: []simulator.DumpNetwork{{ID: "seed-net", Name: "seed"}, {ID: "n1", Name: "a-network"},
				{ID: "n0", Name: "old-network", Removed: true}},
		}
	}
	if problems := relDumpProblems(info, clean(), "a"); len(problems) != 0 {
		t.Fatalf("a clean dump has problems: %v", problems)
	}

	cases := []struct {
		name   string
		mutate func(*simulator.DumpState)
		want   string
	}{
		{"a second cluster of the same name", func(d *simulator.DumpState) {
			d.Clusters = append(d.Clusters, simulator.DumpCluster{ID: "c2", Name: "a", State: "Error", NetworkID: "n1"})
		}, `live clusters are ["a" "a"], want ["a"]`},
		{"a VM in no map", func(d *simulator.DumpState) {
			d.VMs = append(d.VMs, simulator.DumpVM{ID: "v3", Name: "a-node-2", ClusterID: "c1", State: "Running"})
		}, "VM a-node-2 (Running) is in no live cluster's VM map: leaked"},
		{"a map row to an expunged VM", func(d *simulator.DumpState) {
			d.VMs[1].Expunged = true
			d.Rules = d.Rules[:2] // its forward went with it
		}, "the map of cluster a points to VM v2, which does not exist"},
		{"a map row too many", func(d *simulator.DumpState) {
			d.Clusters[0].Size = 2
		}, "cluster a (Running) has 2 map rows, want control 1 + size 2 + etcd 0"},
		{"a duplicated rule", func(d *simulator.DumpState) {
			d.Rules = append(d.Rules, d.Rules[0])
		}, "duplicated rule: Firewall ip1 tcp 2222-2223"},
		{"a forward to a VM that is gone", func(d *simulator.DumpState) {
			d.Rules[2].VMID = "v0"
		}, "PortForwarding rule 2223-2223 points to VM v0, which does not exist"},
		{"a rule left on a removed cluster", func(d *simulator.DumpState) {
			d.Rules = append(d.Rules, simulator.DumpRule{Purpose: "Firewall", StartPort: 6443, EndPort: 6443, IPAddressID: "ip0",
				IPAddress: "127.0.0.9", NetworkID: "n0"})
		}, "Firewall rule 6443-6443 is left on 127.0.0.9, which belongs to no live cluster"},
		{"a network that outlived its cluster", func(d *simulator.DumpState) {
			d.Networks[2].Removed = false
		}, "network old-network () outlived its cluster"},
	}
	if problems := relMidwayProblems(info, func() simulator.DumpState {
		d := clean()
		d.Clusters[0].Size = 0 // a stale size, as a failed scale-up leaves it
		return d
	}()); len(problems) != 0 {
		t.Fatalf("midway, a stale size is no leak: %v", problems)
	}
	dup := clean()
	dup.Clusters = append(dup.Clusters, simulator.DumpCluster{ID: "c2", Name: "a", State: "Error"})
	if problems := relMidwayProblems(info, dup); len(problems) != 1 || !strings.Contains(problems[0], "appears twice") {
		t.Fatalf("midway, a duplicated cluster gave %v", problems)
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := clean()
			tc.mutate(&d)
			problems := relDumpProblems(info, d, "a")
			if len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
				t.Fatalf("problems = %q, want exactly one containing %q", problems, tc.want)
			}
		})
	}
}
