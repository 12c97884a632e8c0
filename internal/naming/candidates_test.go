package naming

import (
	"slices"
	"testing"
)

func TestNamePrefixes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"prod-control-1a1c6eb0000":      {"prod"},
		"prod-node-1a1c6eb8176":         {"prod"},
		"prod-etcd-2-1a1c6eb8176":       {"prod-etcd"},
		"x-control-node-1a1c6eb8176":    {"x-control"},
		"a-node-3-1a1c6eb8176":          {"a-node"},
		"web-server-01":                 nil,
		"-node-1a1c6eb8176":             nil,
		"node-1a1c6eb8176":              nil,
		"prod-node1a1c6eb81760":         nil,
		"":                              nil,
		"app-00001":                     nil,
		"prod-control-1a1c6eb0000-copy": nil,
	} {
		if got := NamePrefixes(name); !slices.Equal(got, want) {
			t.Errorf("NamePrefixes(%q) = %q, want %q", name, got, want)
		}
	}
}

// Every name a cluster's Matcher accepts carries one of its prefixes, so
// indexing by NamePrefixes loses no candidate.
func TestMatcherNamesCarryTheirPrefixes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, uuid string }{
		{"prod", "3b74274b-6554-40c2-b2cf-4329d4308544"},
		{"Team_A.prod", "3b74274b-6554-40c2-b2cf-4329d4308544"},
		{"a-very-long-cluster-name-that-is-cut-somewhere-later", "3b74274b-6554-40c2-b2cf-4329d4308544"},
		{"ÄÖÜ", "3b74274b-6554-40c2-b2cf-4329d4308544"},
	} {
		m := NewMatcher(c.name, c.uuid)
		for _, vm := range []string{m.Prefix() + "-control-1a1c6eb0000", m.LegacyPrefix() + "-node-1a1c6eb8176",
			m.EtcdPrefix() + "-12-1a1c6eb8176"} {
			if _, ok := m.Role(vm); !ok {
				t.Fatalf("%s: the matcher refuses %q", c.name, vm)
			}
			prefixes := NamePrefixes(vm)
			if !slices.ContainsFunc(prefixes, func(p string) bool {
				return p == m.Prefix() || p == m.LegacyPrefix() || p == m.EtcdPrefix()
			}) {
				t.Errorf("%s: %q carries %q, none of the matcher's prefixes", c.name, vm, prefixes)
			}
		}
	}
}
