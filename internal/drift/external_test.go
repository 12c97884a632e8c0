package drift

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// External nodes: VMs joined with addNodesToKubernetesCluster, which count
// in node_count and have a map row flagged isexternalnode.

// externalInput is etcdClusterInput with worker w1 and an external node
// "gpu-1" joined: node_count 2, five map rows.
func externalInput() Input {
	in := etcdClusterInput("Running", 2, "w1")
	created := testNow.Add(-30 * time.Minute)
	in.Map = append(in.Map, MappedVM{ID: "ext", Name: "gpu-1", IsExternal: true})
	in.VMs = append(in.VMs, VM{ID: "ext", Name: "gpu-1", State: "Running", Created: created})
	in.Nodes.Nodes = append(in.Nodes.Nodes, Node{Name: "gpu-1", Ready: true})
	in.Rules.Layout.Nodes = append(in.Rules.Layout.Nodes, rules.Node{ID: "ext", Name: "gpu-1", Role: "worker", External: true})
	return in
}

// providerRules are the rules the provider keeps for externalInput: one
// node range over the control node, the worker and the external node.
func providerRules() []rules.Rule {
	return []rules.Rule{fw("range", 2222, 2224), fw("api", 6443, 6443), fw("etcd", 50000, 50002),
		pf("p0", 2222, "control"), pf("p1", 2223, "w1"), pf("p2", 2224, "ext"),
		pf("e0", 50000, "etcd1"), pf("e1", 50001, "etcd2"), pf("e2", 50002, "etcd3"), lb("lb")}
}

func TestExternalNodeIsNoDrift(t *testing.T) {
	t.Parallel()
	in := externalInput()
	setRules(&in, providerRules()...)
	assertKinds(t, Compare(in))
}

// CKS's own layout, as an add or another client's scale leaves it: every
// SSH path works, and the single-port rule is a scale hazard, not a range
// mismatch.
func TestExternalNodeInCKSLayoutIsAScaleHazard(t *testing.T) {
	t.Parallel()
	in := externalInput()
	setRules(&in, fw("range", 2222, 2223), fw("ext-fw", 2224, 2224), fw("api", 6443, 6443), fw("etcd", 50000, 50002),
		pf("p0", 2222, "control"), pf("p1", 2223, "w1"), pf("p2", 2224, "ext"),
		pf("e0", 50000, "etcd1"), pf("e1", 50001, "etcd2"), pf("e2", 50002, "etcd3"), lb("lb"))
	r := Compare(in)
	assertKinds(t, r, KindScaleHazard)
	if !strings.Contains(r.Findings[0].Message, "a scale-up's new node SSH range would also conflict with it") {
		t.Errorf("message: %s", r.Findings[0].Message)
	}
}

func TestExternalNodeStoppedAndNotReady(t *testing.T) {
	t.Parallel()
	in := externalInput()
	setRules(&in, providerRules()...)
	in.VMs[len(in.VMs)-1].State = "Stopped"
	in.Nodes.Nodes[len(in.Nodes.Nodes)-1].Ready = false
	r := Compare(in)
	assertKinds(t, r, KindMappedVMNotRunning, KindNodeNotReady)
	if !strings.Contains(r.Findings[0].Message, "external node VM gpu-1") {
		t.Errorf("message: %s", r.Findings[0].Message)
	}
}

func TestExternalNodeMissing(t *testing.T) {
	t.Parallel()
	in := externalInput()
	setRules(&in, providerRules()...)
	in.VMs = in.VMs[:len(in.VMs)-1]
	in.Nodes.Nodes = in.Nodes.Nodes[:len(in.Nodes.Nodes)-1]
	r := Compare(in)
	assertKinds(t, r, KindMappedVMMissing)
	if !strings.Contains(r.Findings[0].Message, "external node VM gpu-1") {
		t.Errorf("message: %s", r.Findings[0].Message)
	}
}

// After an upgrade that skipped the external node (manual_upgrade), it is
// behind the cluster: shown as that, not as an unexplained skew.
func TestExternalNodeLeftBehindByAnUpgrade(t *testing.T) {
	t.Parallel()
	in := externalInput()
	setRules(&in, providerRules()...)
	in.Cluster.KubernetesVersion = "1.34.2"
	for i := range in.Map {
		in.Map[i].NodeVersion = "v1.34.2"
	}
	for i := range in.Nodes.Nodes {
		in.Nodes.Nodes[i].Version = "v1.34.2"
	}
	in.Map[len(in.Map)-1].NodeVersion = "1.33.13"
	in.Nodes.Nodes[len(in.Nodes.Nodes)-1].Version = "v1.33.13"
	r := Compare(in)
	assertKinds(t, r, KindManualUpgradePending)
	if !strings.Contains(r.Findings[0].Message, "manual_upgrade") {
		t.Errorf("message: %s", r.Findings[0].Message)
	}
	// A worker CKS made that is behind is still a skew.
	in.Map[len(in.Map)-2].NodeVersion = "1.33.13"
	assertKinds(t, Compare(in), KindNodeVersionSkew, KindManualUpgradePending)
}
