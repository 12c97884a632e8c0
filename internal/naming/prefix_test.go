package naming

import (
	"strings"
	"testing"
)

const testUUID = "3b74274b-6554-40c2-b2cf-4329d4308544"

func TestClusterPrefix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"valid name kept", "k8s-cluster-01", "k8s-cluster-01"},
		{"lowercased (#10778 test)", "k8s-CLUSTER-01", "k8s-cluster-01"},
		{"44 c cut to 43 (#10778 test)", strings.Repeat("c", 44), strings.Repeat("c", 43)},
		{"leading digit and symbol (#10778 test)", "1!" + strings.Repeat("c", 43), "k8s-1" + strings.Repeat("c", 38)},
		{"symbols stripped (#10778 test)", "Cluster!@#$%^&*()_+?.-01|<>", "k8s-cluster-01"},
		{"all invalid uses uuid (#10778 test)", "!@#$%^&*()", "k8s-" + testUUID},
		{"leading digit", "1abc", "k8s-1abc"},
		{"valid but longer than 63", strings.Repeat("a", 64), "k8s-" + strings.Repeat("a", 39)},
		{"exactly 63 is still a label", strings.Repeat("b", 63), strings.Repeat("b", 43)},
		{"cut can leave a trailing hyphen", strings.Repeat("a", 42) + "-b", strings.Repeat("a", 42) + "-"},
		{"leading hyphen", "-abc", "k8s--abc"},
		{"trailing hyphen", "abc-", "k8s-abc-"},
		{"cluster of apache/cloudstack#14159", "cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912"},
		{"empty name uses uuid", "", "k8s-" + testUUID},
		{"mixed case", "MyCluster", "mycluster"},
		{"dotted name", "my.cluster", "k8s-mycluster"},
		// Java lowercases U+0130 to "i" plus a combining dot, which fails the label check.
		{"capital I with dot", "\u0130x", "k8s-ix"},
		// The Kelvin sign lowercases to ASCII k in Java as well.
		{"Kelvin sign", "\u212ax", "kx"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ClusterPrefix(tc.in, testUUID); got != tc.want {
				t.Errorf("ClusterPrefix(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLegacyClusterPrefix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"valid name keeps its case", "MyCluster", "MyCluster"},
		{"valid lowercase", "k8s-cluster-01", "k8s-cluster-01"},
		{"44 c cut to 40", strings.Repeat("c", 44), strings.Repeat("c", 40)},
		{"symbols stripped, case kept", "My_Cluster", "k8s-MyCluster"},
		{"leading digit", "1abc", "k8s-1abc"},
		{"all invalid uses uuid", "!!", "k8s-" + testUUID},
		{"leading digit and symbol", "1!" + strings.Repeat("C", 43), "k8s-1" + strings.Repeat("C", 35)},
		{"valid but longer than 63", strings.Repeat("a", 64), "k8s-" + strings.Repeat("a", 36)},
		{"Kelvin sign passes the Java check", "\u212ax", "\u212ax"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := LegacyClusterPrefix(tc.in, testUUID); got != tc.want {
				t.Errorf("LegacyClusterPrefix(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEtcdPrefix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"keeps case", "MyCluster", "MyCluster-etcd"},
		{"cluster of apache/cloudstack#14159", "cks-etcd-minimal-20260912", "cks-etcd-minimal-20260912-etcd"},
		{"invalid stripped, no k8s-", "My_Cluster!", "MyCluster-etcd"},
		{"leading digit stripped of nothing", "1abc", "1abc-etcd"},
		{"all invalid uses uuid, cut to 40", "!!", testUUID + "-etc"},
		{"35 chars keeps the whole suffix", strings.Repeat("a", 35), strings.Repeat("a", 35) + "-etcd"},
		{"37 chars keeps part of the suffix", strings.Repeat("a", 37), strings.Repeat("a", 37) + "-et"},
		{"40 chars loses the suffix", strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{"longer than 63 keeps case and is cut", strings.Repeat("A", 70), strings.Repeat("A", 40)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := EtcdPrefix(tc.in, testUUID); got != tc.want {
				t.Errorf("EtcdPrefix(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEtcdNamesOfSpecExample(t *testing.T) {
	t.Parallel()
	m := NewMatcher("MyCluster", testUUID)
	for i, name := range []string{
		"MyCluster-etcd-1-18fe761907b",
		"MyCluster-etcd-2-18fe761907b",
		"MyCluster-etcd-3-18fe761907b",
	} {
		role, ok := m.Role(name)
		if !ok || role != RoleEtcd {
			t.Fatalf("Role(%q) = %q, %v; want etcd", name, role, ok)
		}
		idx, ok := m.EtcdIndex(name)
		if !ok || idx != i+1 {
			t.Fatalf("EtcdIndex(%q) = %d, %v; want %d", name, idx, ok, i+1)
		}
	}
}
