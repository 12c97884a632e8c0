package kubectlout

import (
	"reflect"
	"testing"
)

func TestParseNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		out  string
		want []string
	}{
		{name: "plain", out: "node/cp-1\nnode/w-1\n", want: []string{"cp-1", "w-1"}},
		{name: "crlf and no final newline", out: "node/cp-1\r\nnode/w-1", want: []string{"cp-1", "w-1"}},
		{
			name: "warnings, klog and blank lines mixed in",
			out:  "Warning: something is deprecated\n" + klogNoise + "\n\nnode/cp-1\n\n  node/w-1  \r\n" + klogNoise + "\n",
			want: []string{"cp-1", "w-1"},
		},
		{name: "duplicates reported once", out: "node/w-1\nnode/w-2\nnode/w-1\n", want: []string{"w-1", "w-2"}},
		{name: "fqdn", out: "node/w-1.cks.local\n", want: []string{"w-1.cks.local"}},
		{
			name: "other kinds and invalid names skipped",
			out:  "pod/x\nnode/\nnode/UPPER\nnode/a b\nnode/-bad\nnodes/w-9\nnode/ok\n",
			want: []string{"ok"},
		},
		{name: "table output is not names", out: realTable, want: nil},
		{name: "empty", out: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ParseNames(tt.out); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseNames = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestIsNodeName(t *testing.T) {
	t.Parallel()
	long := make([]byte, 254)
	for i := range long {
		long[i] = 'a'
	}
	for name, want := range map[string]bool{
		"a": true, "cks-node-1": true, "n.example.org": true, "0": true,
		"": false, "-a": false, "a-": false, "a.": false, "A": false, "a_b": false, "a/b": false,
		string(long): false, string(long[:253]): true,
	} {
		if got := isNodeName(name); got != want {
			t.Errorf("isNodeName(%q) = %v, want %v", name, got, want)
		}
	}
}
