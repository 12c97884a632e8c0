package kubectlout

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

const realTable = `NAME                              STATUS                     ROLES           AGE   VERSION
cks-cluster-control-18c5b1e1a2b   Ready                      control-plane   12d   v1.33.13
cks-cluster-node-18c5b1e1a3c      Ready,SchedulingDisabled   <none>          12d   v1.33.13
cks-cluster-node-18c5b1e1a4d      NotReady                   <none>          3m    v1.33.13
`

var realTableNodes = []nodes.Node{
	{Name: "cks-cluster-control-18c5b1e1a2b", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
	{Name: "cks-cluster-node-18c5b1e1a3c", Ready: true, Roles: "<none>", Version: "v1.33.13"},
	{Name: "cks-cluster-node-18c5b1e1a4d", Ready: false, Roles: "<none>", Version: "v1.33.13"},
}

const klogNoise = `E1129 10:01:02.123456   12345 memcache.go:265] couldn't get current server API group list: Get "http://localhost:8080/api?timeout=32s": dial tcp 127.0.0.1:8080: connect: connection refused`

func TestParseTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		out  string
		want []nodes.Node
	}{
		{name: "real table", out: realTable, want: realTableNodes},
		{name: "crlf line ends", out: strings.ReplaceAll(realTable, "\n", "\r\n"), want: realTableNodes},
		{
			name: "leading warnings, klog lines and blank lines",
			out: "\n" + klogNoise + "\nWarning: short names are deprecated\n\n" +
				strings.Replace(realTable, "\ncks-cluster-node-18c5b1e1a3c", "\n"+klogNoise+"\n\ncks-cluster-node-18c5b1e1a3c", 1),
			want: realTableNodes,
		},
		{
			name: "unrecognised chatter before the header",
			out:  "Last login: Mon Dec  1 10:00:00 2025 from 10.0.0.1\n" + realTable,
			want: realTableNodes,
		},
		{
			name: "wide output with spaces in later columns",
			out: `NAME   STATUS     ROLES           AGE   VERSION    INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION      CONTAINER-RUNTIME
cp-1   Ready      control-plane   5d    v1.33.1    10.1.1.2      <none>        Ubuntu 22.04.3 LTS   5.15.0-91-generic   containerd://1.7.2
w-1    NotReady   <none>          5d    v1.33.1    10.1.1.3      <none>        Ubuntu 22.04.3 LTS   5.15.0-91-generic   containerd://1.7.2
`,
			want: []nodes.Node{
				{Name: "cp-1", Ready: true, Roles: "control-plane", Version: "v1.33.1"},
				{Name: "w-1", Roles: "<none>", Version: "v1.33.1"},
			},
		},
		{
			name: "extra label column",
			out:  "NAME   STATUS   ROLES    AGE   VERSION   ZONE\nw-1    Ready    <none>   1h    v1.32.0   zone-a\n",
			want: []nodes.Node{{Name: "w-1", Ready: true, Roles: "<none>", Version: "v1.32.0"}},
		},
		{
			name: "status with a Ready suffix is not ready",
			out:  "NAME   STATUS        ROLES    AGE   VERSION\nw-1    Readyish      <none>   1h    v1.32.0\nw-2    Unknown,Ready <none>   1h    v1.32.0\n",
			want: []nodes.Node{{Name: "w-1", Roles: "<none>", Version: "v1.32.0"}, {Name: "w-2", Roles: "<none>", Version: "v1.32.0"}},
		},
		{
			name: "fqdn node names",
			out:  "NAME                 STATUS   ROLES    AGE   VERSION\nw-1.cks.example.org  Ready    <none>   1h    v1.32.0\n",
			want: []nodes.Node{{Name: "w-1.cks.example.org", Ready: true, Roles: "<none>", Version: "v1.32.0"}},
		},
		{
			name: "repeated header is skipped",
			out:  realTable + "NAME STATUS ROLES AGE VERSION\n",
			want: realTableNodes,
		},
		{name: "empty output", out: "", want: nil},
		{name: "only noise", out: "\r\nNo resources found\r\n" + klogNoise + "\n", want: nil},
		{name: "header only", out: "NAME   STATUS   ROLES   AGE   VERSION\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTable(tt.out)
			if err != nil {
				t.Fatalf("ParseTable: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseTable =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseTableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     string
		wantErr string
	}{
		{
			name:    "no header",
			out:     "cp-1   Ready   control-plane   5d   v1.33.1\n",
			wantErr: `no NAME/STATUS header; first line: "cp-1   Ready   control-plane   5d   v1.33.1"`,
		},
		{
			name:    "truncated row (connection dropped mid-output)",
			out:     "NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready    <none>   1h    v1.32.0\nw-2    Rea",
			wantErr: `line 3 "w-2    Rea": has 2 columns, want at least 5`,
		},
		{
			name:    "error text after the header",
			out:     "NAME   STATUS   ROLES    AGE   VERSION\nUnable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout\n",
			wantErr: `"Unable" is not a valid node name`,
		},
		{
			name:    "duplicate node",
			out:     "NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready    <none>   1h    v1.32.0\nw-1    Ready    <none>   1h    v1.32.0\n",
			wantErr: `line 3: node "w-1" listed twice`,
		},
		{
			name:    "long garbage is cut in the message",
			out:     strings.Repeat("x", 500),
			wantErr: `first line: "` + strings.Repeat("x", 80) + `"...`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTable(tt.out)
			if err == nil {
				t.Fatalf("ParseTable = %#v, want error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
			if got != nil {
				t.Fatalf("ParseTable returned nodes %#v alongside error", got)
			}
		})
	}
}
