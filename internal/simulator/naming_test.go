package simulator

import (
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

func TestClusterNodePrefix(t *testing.T) {
	t.Parallel()
	const uuid = "3b74274b-6554-40c2-b2cf-4329d4308544"
	cases := []struct{ name, want string }{
		{"k8s-CLUSTER-01", "k8s-cluster-01"},
		{strings.Repeat("c", 44), strings.Repeat("c", 43)},
		{"1!" + strings.Repeat("c", 43), "k8s-1" + strings.Repeat("c", 38)},
		{"Cluster!@#$%^&*()_+?.-01|<>", "k8s-cluster-01"},
		{"!!!", "k8s-" + uuid},
		{"1abc", "k8s-1abc"},
		{"MyCluster", "mycluster"},
		{strings.Repeat("a", 64), "k8s-" + strings.Repeat("a", 39)},
	}
	for _, c := range cases {
		if got := model.ClusterNodePrefix(c.name, uuid); got != c.want {
			t.Errorf("clusterNodePrefix(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEtcdNodePrefix(t *testing.T) {
	t.Parallel()
	const uuid = "3b74274b-6554-40c2-b2cf-4329d4308544"
	cases := []struct{ name, want string }{
		{"MyCluster", "MyCluster-etcd"},
		{"My_Cluster!", "MyCluster-etcd"},
		{"!!!", (uuid + "-etcd")[:40]},
		{strings.Repeat("x", 38), strings.Repeat("x", 38) + "-e"},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-etcd"},
	}
	for _, c := range cases {
		if got := model.EtcdNodePrefix(c.name, uuid); got != c.want {
			t.Errorf("etcdNodePrefix(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := model.EtcdNodeName("MyCluster-etcd", 2, 0x18fe761907b); got != "MyCluster-etcd-2-18fe761907b" {
		t.Errorf("etcdNodeName = %q", got)
	}
	if got := model.ControlNodeName("test1", 0x18fe761907b); got != "test1-control-18fe761907b" {
		t.Errorf("controlNodeName = %q", got)
	}
	if got := model.WorkerNodeName("k8ss", 0x1977de40dc8); got != "k8ss-node-1977de40dc8" {
		t.Errorf("workerNodeName = %q", got)
	}
}
