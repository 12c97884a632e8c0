package sshlister

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// kubectlJSON is `kubectl get nodes -o json` from a 1.33 cluster: a cordoned
// but Ready worker, a worker whose kubelet stopped (Ready Unknown, older
// kubelet) and a worker registered under an FQDN whose CNI is not up (Ready False).
func kubectlJSON(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/kubectl-get-nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var kubectlJSONNodes = []nodes.Node{
	{Name: "cks-1-control-19a2b3c4d5e", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
	{Name: "cks-1-node-19a2b3c4d6f", Ready: true, Roles: "<none>", Version: "v1.33.13"},
	{Name: "cks-1-node-19a2b3c4e70", Ready: false, Roles: "worker", Version: "v1.33.12"},
	{Name: "cks-1-node-19a2b3c4f81.cks.example.org", Ready: false, Roles: "<none>", Version: "v1.33.13"},
}

func TestDecodeNodeList(t *testing.T) {
	t.Parallel()
	sample := kubectlJSON(t)
	tests := []struct {
		name string
		out  string
		want []nodes.Node
	}{
		{name: "kubectl output", out: sample, want: kubectlJSONNodes},
		{name: "crlf line ends", out: strings.ReplaceAll(sample, "\n", "\r\n"), want: kubectlJSONNodes},
		{
			name: "chatter from a login script before the JSON",
			out:  "Last login: Mon Dec  1 10:00:00 2025 from 10.0.0.1\r\nWelcome {user}\n\n  " + sample,
			want: kubectlJSONNodes,
		},
		{
			name: "compact NodeList as the API server returns it",
			out: `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
				`{"metadata":{"name":"w-1","labels":{"kubernetes.io/role":"worker"}},"status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}}]}`,
			want: []nodes.Node{{Name: "w-1", Ready: true, Roles: "worker", Version: "v1.32.0"}},
		},
		{
			name: "node without conditions yet",
			out:  `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"w-2"},"status":{}}]}`,
			want: []nodes.Node{{Name: "w-2", Roles: "<none>"}},
		},
		{name: "empty list", out: "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeNodeList([]byte(tt.out))
			if err != nil {
				t.Fatalf("decodeNodeList: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decodeNodeList =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestDecodeNodeListErrors(t *testing.T) {
	t.Parallel()
	sample := kubectlJSON(t)
	node := func(name string) string {
		return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `"}}`
	}
	list := func(items ...string) string {
		return `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name    string
		out     string
		wantErr string
	}{
		{name: "empty stdout", out: " \r\n", wantErr: "nothing on stdout"},
		{name: "no JSON at all", out: "bash: kubectl: command not found\n", wantErr: `no JSON object; stdout starts with "bash: kubectl: command not found"`},
		{name: "the human table", out: "NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready    <none>   1h    v1.32.0\n", wantErr: `no JSON object; stdout starts with "NAME`},
		{name: "truncated (connection dropped mid-output)", out: sample[:len(sample)/2], wantErr: "not a JSON node list (unexpected end of JSON input)"},
		{name: "trailing garbage", out: sample + "}\n", wantErr: "not a JSON node list"},
		{name: "empty object", out: "{}", wantErr: `JSON of kind "" (apiVersion ""), not a v1 List of nodes`},
		{name: "keys in the wrong case", out: `{"ApiVersion":"v1","Kind":"List","Items":[]}`, wantErr: `JSON of kind "" (apiVersion ""), not a v1 List of nodes`},
		{name: "a single node, not a list", out: node("w-1"), wantErr: `JSON of kind "Node" (apiVersion "v1"), not a v1 List of nodes`},
		{name: "an API error status", out: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","code":403}`, wantErr: `JSON of kind "Status"`},
		{name: "a pod in the list", out: list(node("w-1"), `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`), wantErr: `list item 1 has kind "Pod" (apiVersion "v1"), not Node`},
		{name: "a node without a name", out: list(`{"kind":"Node","metadata":{}}`), wantErr: "list item 0 is a node without metadata.name"},
		{name: "a node listed twice", out: list(node("w-1"), node("w-2"), node("w-1")), wantErr: `node "w-1" listed twice`},
		{name: "wrong type for a field", out: `{"apiVersion":"v1","kind":"List","items":{}}`, wantErr: "not a JSON node list"},
		{name: "long garbage is cut in the message", out: "{" + strings.Repeat("x", 500), wantErr: `stdout starts with "{` + strings.Repeat("x", 79) + `"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeNodeList([]byte(tt.out))
			if err == nil {
				t.Fatalf("decodeNodeList = %#v, want an error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
			if got != nil {
				t.Fatalf("decodeNodeList returned nodes %#v alongside an error", got)
			}
		})
	}
}

// FuzzDecodeNodeList checks that decodeNodeList never panics, returns no
// nodes with an error, returns named and unique nodes otherwise, and does not
// depend on CRLF line ends or on chatter lines before the JSON.
func FuzzDecodeNodeList(f *testing.F) {
	sample := kubectlJSON(f)
	for _, s := range []string{
		sample,
		strings.ReplaceAll(sample, "\n", "\r\n"),
		"Last login: today\n" + sample,
		sample[:len(sample)/3],
		`{"apiVersion":"v1","kind":"List","items":[]}`,
		`{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}`,
		`{"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"a","labels":{"node-role.kubernetes.io/x":""}},"status":{"conditions":[{"type":"Ready","status":"True"}]}}]}`,
		`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"}}]}`,
		`{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"\u0061\n"}}]}`,
		"{}",
		"NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready    <none>   1h    v1.32.0\n",
		"",
		"\r\n\r\n",
		"\xff\xfe{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		got, err := decodeNodeList([]byte(out))
		if err != nil && got != nil {
			t.Fatalf("nodes %#v returned with error %v", got, err)
		}
		seen := make(map[string]bool)
		for _, n := range got {
			if n.Name == "" || seen[n.Name] {
				t.Fatalf("empty or repeated node name %q in %#v", n.Name, got)
			}
			seen[n.Name] = true
		}

		crlf, crlfErr := decodeNodeList([]byte(strings.ReplaceAll(out, "\n", "\r\n")))
		if (err == nil) != (crlfErr == nil) || !reflect.DeepEqual(got, crlf) {
			t.Fatalf("CRLF changed the result: %#v, %v vs %#v, %v", got, err, crlf, crlfErr)
		}
		if strings.TrimSpace(out) == "" {
			return // chatter alone is "no JSON", not "nothing on stdout"
		}
		chatty, chattyErr := decodeNodeList([]byte("Warning: this is not JSON\n\n" + out))
		if (err == nil) != (chattyErr == nil) || !reflect.DeepEqual(got, chatty) {
			t.Fatalf("leading chatter changed the result: %#v, %v vs %#v, %v", got, err, chatty, chattyErr)
		}
	})
}
