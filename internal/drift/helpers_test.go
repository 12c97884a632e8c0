package drift

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/testutil"
)

var testNow = time.Date(2026, 11, 10, 21, 0, 0, 0, time.UTC)

const (
	controlName = "test-control-1a1c6eb0000"
	worker1Name = "test-node-1a1c6eb8176"
	worker2Name = "test-node-1a1c6ebf01d"
)

// cleanInput is a cluster in sync: 1 control, 2 workers, created 40 minutes
// before the check, every VM a Ready node.
func cleanInput() Input {
	created := testNow.Add(-40 * time.Minute)
	return Input{
		Cluster: Cluster{ID: "c-uuid", Name: "test", State: "Running", ClusterType: "CloudManaged", Size: 2, ControlNodes: 1},
		Map: []MappedVM{
			{ID: "491", Name: controlName},
			{ID: "492", Name: worker1Name},
			{ID: "493", Name: worker2Name},
		},
		VMs: []VM{
			{ID: "491", Name: controlName, State: "Running", Created: created},
			{ID: "492", Name: worker1Name, State: "Running", Created: created},
			{ID: "493", Name: worker2Name, State: "Running", Created: created},
			{ID: "600", Name: "web-server-01", State: "Running", Created: created},
			{ID: "601", Name: "prod-node-1a1c2dc4f71", State: "Running", Created: created},
		},
		MappedElsewhere: map[string]string{"601": "prod-uuid"},
		Nodes: &NodeView{Nodes: []Node{
			{Name: controlName, Ready: true},
			{Name: worker1Name, Ready: true},
			{Name: worker2Name, Ready: true},
		}},
		Now:         testNow,
		GracePeriod: DefaultGracePeriod,
	}
}

func kinds(r Result) []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func assertKinds(t *testing.T, r Result, want ...string) {
	t.Helper()
	testutil.AssertKinds(t, kinds(r), r.InSync, fmt.Sprintf("%+v", r.Findings), want...)
}

func removeMapRow(in *Input, id string) {
	in.Map = slices.DeleteFunc(in.Map, func(m MappedVM) bool { return m.ID == id })
}

// The cluster of apache/cloudstack#14159: 3 etcd VMs, 1 control, workers,
// on an isolated network.
const etcdCluster = "cks-etcd-minimal-20260912"

var workerSuffix = map[string]string{"w1": "1977de40e02", "w2": "1977de40e03"}

func etcdClusterInput(state string, size int, workers ...string) Input {
	created := testNow.Add(-2 * time.Hour)
	in := Input{
		Cluster: Cluster{ID: "3b74274b-6554-40c2-b2cf-4329d4308544", Name: etcdCluster, State: state,
			ClusterType: "CloudManaged", Size: size, ControlNodes: 1, EtcdNodes: 3},
		Nodes:       &NodeView{},
		Now:         testNow,
		GracePeriod: DefaultGracePeriod,
	}
	layout := rules.Layout{Network: rules.NetworkIsolated, IPAddressID: "ip", NetworkID: "net"}
	add := func(id, name string, role naming.Role) {
		in.Map = append(in.Map, MappedVM{ID: id, Name: name, IsEtcd: role == naming.RoleEtcd})
		in.VMs = append(in.VMs, VM{ID: id, Name: name, State: "Running", Created: created})
		layout.Nodes = append(layout.Nodes, rules.Node{ID: id, Name: name, Role: role})
		if role != naming.RoleEtcd {
			in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: name, Ready: true})
		}
	}
	for j, id := range []string{"etcd1", "etcd2", "etcd3"} {
		add(id, etcdCluster+"-etcd-"+string(rune('1'+j))+"-1977de40dc8", naming.RoleEtcd)
	}
	add("control", etcdCluster+"-control-1977de40e01", naming.RoleControl)
	for _, w := range workers {
		add(w, etcdCluster+"-node-"+workerSuffix[w], naming.RoleWorker)
	}
	in.Rules = &RulesView{Layout: layout}
	return in
}

func fw(id string, start, end int) rules.Rule {
	return rules.Rule{ID: id, Kind: rules.KindFirewall, Protocol: "tcp", StartPort: start, EndPort: end,
		CIDRs: []string{"0.0.0.0/0"}, IPAddressID: "ip", NetworkID: "net"}
}

func pf(id string, public int, vm string) rules.Rule {
	return rules.Rule{ID: id, Kind: rules.KindPortForward, Protocol: "tcp", StartPort: public, EndPort: public,
		PrivatePort: 22, PrivateEndPort: 22, VMID: vm, IPAddressID: "ip", NetworkID: "net"}
}

func lb(id string) rules.Rule {
	return rules.Rule{ID: id, Kind: rules.KindLoadBalancer, Protocol: "tcp", StartPort: 6443, EndPort: 6443,
		PrivatePort: 6443, PrivateEndPort: 6443, IPAddressID: "ip", NetworkID: "net"}
}

func setRules(in *Input, rs ...rules.Rule) {
	in.Rules.Rules = rs
	in.Rules.NetworkForwards = nil
	for _, r := range rs {
		if r.Kind == rules.KindPortForward {
			in.Rules.NetworkForwards = append(in.Rules.NetworkForwards, r)
		}
	}
}
