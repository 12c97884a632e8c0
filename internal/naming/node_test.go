package naming

import "testing"

func TestNodeNameFor(t *testing.T) {
	t.Parallel()
	if got := NodeNameFor("MyCluster-control-18fe761907b"); got != "mycluster-control-18fe761907b" {
		t.Errorf("NodeNameFor = %q", got)
	}
}

func TestMatchNode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vm, node  string
		exact, ok bool
	}{
		{"c-node-18fe761907b", "c-node-18fe761907b", true, true},
		{"MyCluster-control-18fe761907b", "mycluster-control-18fe761907b", true, true},
		{"c-node-18fe761907b", "c-node-18fe761907b.cs1cloud.internal", false, true},
		{"C-Node-18fe761907b", "c-node-18fe761907b.example.com", false, true},
		{"c-node-18fe761907b", "c-node-18fe761907c.example.com", false, false},
		{"c-node-1", "c-node-10", false, false},
		{"c-node-1", "c-node-1-extra.example.com", false, false},
		{"c-node-1", "", false, false},
		{"", ".example.com", false, false},
	}
	for _, tc := range cases {
		exact, ok := MatchNode(tc.vm, tc.node)
		if exact != tc.exact || ok != tc.ok {
			t.Errorf("MatchNode(%q, %q) = %v, %v; want %v, %v", tc.vm, tc.node, exact, ok, tc.exact, tc.ok)
		}
	}
}
