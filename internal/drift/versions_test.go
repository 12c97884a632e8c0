package drift

import (
	"strings"
	"testing"
)

// versionedInput is cleanInput on Kubernetes 1.32.5, with every map row and
// kubelet on that version, as CKS records it.
func versionedInput() Input {
	in := cleanInput()
	in.Cluster.KubernetesVersion = "1.32.5"
	for i := range in.Map {
		in.Map[i].NodeVersion = "1.32.5"
	}
	for i := range in.Nodes.Nodes {
		in.Nodes.Nodes[i].Version = "v1.32.5"
	}
	return in
}

func TestVersionsInSync(t *testing.T) {
	t.Parallel()
	assertKinds(t, Compare(versionedInput()))
}

// An upgrade to 1.33.13 that failed on the second node: the first node and
// its map row are ahead, the cluster keeps its old version.
func TestHalfFinishedUpgradeIsVersionSkew(t *testing.T) {
	t.Parallel()
	in := versionedInput()
	in.Map[0].NodeVersion = "v1.33.13\n" // as kubectl printed it
	in.Nodes.Nodes[0].Version = "v1.33.13"
	r := Compare(in)
	assertKinds(t, r, KindNodeVersionSkew)
	f := r.Findings[0]
	if f.VMID != "491" || f.VMName != controlName || f.NodeName != controlName {
		t.Fatalf("finding names %+v", f)
	}
	for _, want := range []string{"Kubernetes node " + controlName + " of VM " + controlName, "not on Kubernetes 1.32.5",
		"cluster test", "its kubelet reports v1.33.13 and the VM map records v1.33.13", "half-finished upgrade"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
}

// A kubelet behind the cluster while its row says otherwise: the node was
// left out of the upgrade or re-joined from an older template.
func TestKubeletBehindTheClusterIsVersionSkew(t *testing.T) {
	t.Parallel()
	in := versionedInput()
	in.Nodes.Nodes[2].Version = "v1.31.9"
	r := Compare(in)
	assertKinds(t, r, KindNodeVersionSkew)
	if f := r.Findings[0]; f.VMID != "493" || !strings.Contains(f.Message, "its kubelet reports v1.31.9") ||
		strings.Contains(f.Message, "VM map records") || !strings.Contains(f.Message, "not upgraded with the cluster") {
		t.Fatalf("finding %+v", f)
	}
}

// Without the nodes (node_source none, or a Stopped cluster) the map rows
// are still compared; etcd rows, which upgrades skip, never are.
func TestVersionRowsWithoutNodesAndEtcdRows(t *testing.T) {
	t.Parallel()
	in := versionedInput()
	in.Nodes = nil
	in.Map[1].NodeVersion = "1.33.13"
	r := Compare(in)
	assertKinds(t, r, KindNodeVersionSkew)
	if f := r.Findings[0]; f.NodeName != "" || f.VMID != "492" || !strings.HasPrefix(f.Message, "VM "+worker1Name) {
		t.Fatalf("finding %+v", f)
	}

	etcd := etcdClusterInput("Running", 1, "w1")
	etcd.Cluster.KubernetesVersion = "1.33.13"
	for i := range etcd.Map {
		etcd.Map[i].NodeVersion = "1.33.13"
		if etcd.Map[i].IsEtcd {
			etcd.Map[i].NodeVersion = "1.32.5" // upgrades leave etcd rows as they were
		}
	}
	etcd.Rules = nil
	assertKinds(t, Compare(etcd))
}

// A cluster whose version name is no semantic version, and rows and
// kubelets that report nothing, give no version finding.
func TestUnknownVersionsSayNothing(t *testing.T) {
	t.Parallel()
	in := versionedInput()
	in.Cluster.KubernetesVersion = ""
	in.Map[0].NodeVersion = "1.40.0"
	assertKinds(t, Compare(in))

	in = versionedInput()
	in.Map[0].NodeVersion = ""
	in.Nodes.Nodes[0].Version = ""
	assertKinds(t, Compare(in))

	in = versionedInput()
	in.Nodes.Nodes[0].Version = "v1.32.5-eks.1"
	if r := Compare(in); len(r.Findings) != 1 || strings.Contains(r.Findings[0].Message, "half-finished") {
		t.Fatalf("an unparsable version differs, with no direction: %+v", r.Findings)
	}
}
