package naming

import (
	"strings"
	"testing"
)

func TestMatcherRole(t *testing.T) {
	t.Parallel()
	const hex = "18fe761907b"
	long := strings.Repeat("x", 42) // legacy prefix is cut to 40, current to 42
	cases := []struct {
		cluster string
		vm      string
		want    Role
		ok      bool
	}{
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-control-" + hex, RoleControl, true},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-node-" + hex, RoleWorker, true},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-etcd-3-" + hex, RoleEtcd, true},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-etcd-0-" + hex, "", false},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-node-18fe761907", "", false},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-node-18fe761907bb", "", false},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-node-18FE761907B", "", false},
		{"cks-etcd-minimal-20260912", "other-node-" + hex, "", false},
		{"cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-worker-" + hex, "", false},
		// Current names are lowercase; pre-#10778 names keep the case.
		{"MyCluster", "mycluster-control-" + hex, RoleControl, true},
		{"MyCluster", "MyCluster-control-" + hex, RoleControl, true},
		{"MyCluster", "MYCLUSTER-control-" + hex, "", false},
		{"MyCluster", "MyCluster-etcd-1-" + hex, RoleEtcd, true},
		{"MyCluster", "mycluster-etcd-1-" + hex, "", false},
		{long, long + "-node-" + hex, RoleWorker, true},
		{long, long[:40] + "-node-" + hex, RoleWorker, true},
		{long, long[:41] + "-node-" + hex, "", false},
		// Prefix metacharacters must not act as a pattern.
		{"a.b", "k8s-ab-node-" + hex, RoleWorker, true},
		{"a.b", "k8s-aXb-node-" + hex, "", false},
		// A cluster "a" does not claim the nodes of cluster "a-node".
		{"a", "a-node-node-" + hex, "", false},
		{"a-node", "a-node-node-" + hex, RoleWorker, true},
		// A stray VM named as a node of the cluster.
		{"test", "test-node-1a1c6f00000", RoleWorker, true},
	}
	for _, tc := range cases {
		m := NewMatcher(tc.cluster, testUUID)
		got, ok := m.Role(tc.vm)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NewMatcher(%q).Role(%q) = %q, %v; want %q, %v", tc.cluster, tc.vm, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMatcherEtcdIndex(t *testing.T) {
	t.Parallel()
	m := NewMatcher("c1", testUUID)
	if idx, ok := m.EtcdIndex("c1-etcd-12-18fe761907b"); !ok || idx != 12 {
		t.Errorf("EtcdIndex = %d, %v; want 12, true", idx, ok)
	}
	for _, name := range []string{"c1-node-18fe761907b", "c1-etcd-x-18fe761907b", "c1-etcd-99999999999999999999999-18fe761907b"} {
		if idx, ok := m.EtcdIndex(name); ok {
			t.Errorf("EtcdIndex(%q) = %d, true; want false", name, idx)
		}
	}
}

func TestMatcherPrefixes(t *testing.T) {
	t.Parallel()
	m := NewMatcher("My_Cluster", testUUID)
	if m.Prefix() != "k8s-mycluster" || m.LegacyPrefix() != "k8s-MyCluster" || m.EtcdPrefix() != "MyCluster-etcd" {
		t.Errorf("prefixes = %q, %q, %q", m.Prefix(), m.LegacyPrefix(), m.EtcdPrefix())
	}
}

func TestRoleOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vm   string
		want Role
		ok   bool
	}{
		{"test1-control-18fe761907b", RoleControl, true},
		{"k8ss-node-1977de40dc8", RoleWorker, true},
		{"MyCluster-etcd-2-18fe761907b", RoleEtcd, true},
		{"abc-node-1-18fe761907b", RoleEtcd, true},
		{"Test1-control-18fe761907b", "", false},
		{"1test-node-18fe761907b", "", false},
		{"test1-control-18fe76190", "", false},
		{strings.Repeat("a", 43) + "-node-18fe761907b", RoleWorker, true},
		{strings.Repeat("a", 44) + "-node-18fe761907b", "", false},
		{"web-server-01", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		got, ok := RoleOf(tc.vm)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RoleOf(%q) = %q, %v; want %q, %v", tc.vm, got, ok, tc.want, tc.ok)
		}
	}
}
