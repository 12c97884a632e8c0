package naming

import (
	"slices"
	"strings"
	"testing"
)

func addPrefixSeeds(f *testing.F) {
	f.Helper()
	for _, name := range []string{
		"", "a", "MyCluster", "k8s-CLUSTER-01", "Cluster!@#$%^&*()_+?.-01|<>", "1abc", "-", "a-",
		strings.Repeat("c", 44), "1!" + strings.Repeat("c", 43), strings.Repeat("a", 64), strings.Repeat("A", 70),
		"\u0130x", "\u212ax", "\xff\xfe", "日本語クラスタ", "a.b*c(d)", "\U0001F600cluster",
	} {
		f.Add(name, testUUID)
	}
	f.Add("!!", "")
	f.Add("", "UPPER-CASE-UUID")
	f.Add("x", "\U0001F600\U0001F600")
}

// FuzzPrefixes checks that the prefixes never panic, respect CloudStack's
// length limits (in Java's UTF-16 units) and that a Matcher recognises the
// names it would generate.
func FuzzPrefixes(f *testing.F) {
	addPrefixSeeds(f)
	f.Fuzz(func(t *testing.T, name, uuid string) {
		cur := ClusterPrefix(name, uuid)
		legacy := LegacyClusterPrefix(name, uuid)
		etcd := EtcdPrefix(name, uuid)

		if n := utf16Len(cur); n > MaxClusterPrefixLength {
			t.Fatalf("ClusterPrefix(%q) has %d units", name, n)
		}
		if n := utf16Len(legacy); n > MaxLegacyClusterPrefixLength {
			t.Fatalf("LegacyClusterPrefix(%q) has %d units", name, n)
		}
		if n := utf16Len(etcd); n > MaxEtcdPrefixLength {
			t.Fatalf("EtcdPrefix(%q) has %d units", name, n)
		}
		if cur == "" || legacy == "" || etcd == "" {
			t.Fatalf("empty prefix for %q: %q %q %q", name, cur, legacy, etcd)
		}
		if !strings.HasPrefix(cur, generatedPrefix) && !isHostNameLabel(cur) && !strings.HasSuffix(cur, "-") {
			t.Fatalf("ClusterPrefix(%q) = %q is neither generated nor a label", name, cur)
		}
		if isPlainUUID(uuid) {
			for _, r := range cur {
				if !isLowerAlnumOrHyphen(r) && r != '\u212a' {
					t.Fatalf("ClusterPrefix(%q) = %q has %q", name, cur, r)
				}
			}
		}

		m := NewMatcher(name, uuid)
		const hex = "0123456789a"
		for _, p := range []string{cur, legacy} {
			if role, ok := m.Role(p + "-control-" + hex); !ok || role != RoleControl {
				t.Fatalf("Role of control name for %q = %q, %v", name, role, ok)
			}
			if role, ok := m.Role(p + "-node-" + hex); !ok || role != RoleWorker {
				t.Fatalf("Role of worker name for %q = %q, %v", name, role, ok)
			}
		}
		if idx, ok := m.EtcdIndex(etcd + "-7-" + hex); !ok || idx != 7 {
			t.Fatalf("EtcdIndex for %q = %d, %v", name, idx, ok)
		}
		// A fleet indexes VMs by NamePrefixes: each generated name must
		// carry the prefix it was made with.
		for vm, p := range map[string]string{cur + "-control-" + hex: cur, legacy + "-node-" + hex: legacy, etcd + "-7-" + hex: etcd} {
			if !slices.Contains(NamePrefixes(vm), p) {
				t.Fatalf("NamePrefixes(%q) = %q, without %q", vm, NamePrefixes(vm), p)
			}
		}
	})
}

// FuzzMatchNode checks that node matching never panics and that an exact
// match is always also a match.
func FuzzMatchNode(f *testing.F) {
	f.Add("c-node-18fe761907b", "c-node-18fe761907b.example.com")
	f.Add("C", "c")
	f.Add("", "")
	f.Add("\u0130", "i")
	f.Fuzz(func(t *testing.T, vm, node string) {
		exact, ok := MatchNode(vm, node)
		if exact && !ok {
			t.Fatalf("MatchNode(%q, %q) exact without ok", vm, node)
		}
		if ok && vm == "" {
			t.Fatalf("MatchNode matched an empty VM name")
		}
	})
}

func isPlainUUID(s string) bool {
	for _, r := range s {
		if !isLowerAlnumOrHyphen(r) {
			return false
		}
	}
	return true
}
