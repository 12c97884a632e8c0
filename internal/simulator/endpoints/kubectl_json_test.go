package endpoints

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// wantJSONNodes is sampleNodes as the SSH node lister reads them from
// `kubectl get nodes -o json`: the same names, readiness and versions as
// wantNodeTable, in the same (name) order.
var wantJSONNodes = []nodes.Node{
	{Name: "test1-control-18fe761907b", Ready: true, Roles: "control-plane", Version: "v1.33.13"},
	{Name: "test1-node-18fe7619a3c", Ready: true, Roles: "<none>", Version: "v1.33.13"},
	{Name: "test1-node-18fe761a001", Ready: false, Roles: "<none>", Version: "v1.33.13"},
}

func decodeNodeList(t *testing.T, stdout string) corev1.NodeList {
	t.Helper()
	var list corev1.NodeList
	if err := kjson.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("stdout is not a JSON node list: %v\n%s", err, stdout)
	}
	if list.Kind != "List" || list.APIVersion != "v1" {
		t.Fatalf("kind %q apiVersion %q, want kubectl's v1 List", list.Kind, list.APIVersion)
	}
	return list
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func TestSSHKubectlGetNodesJSON(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)

	res := run(t, client, "sudo /opt/bin/kubectl get nodes -o json")
	if res.err != nil || res.status != 0 || res.stderr != "" {
		t.Fatalf("status %d, err %v, stderr %q", res.status, res.err, res.stderr)
	}
	// kubectl's JSON printer: sorted keys, four-space indents, a final newline.
	if want := "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Node\",\n"; !strings.HasPrefix(res.stdout, want) {
		t.Fatalf("stdout does not start like kubectl's -o json:\n%s", res.stdout[:min(len(res.stdout), 300)])
	}
	if want := "    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"; !strings.HasSuffix(res.stdout, want) {
		t.Fatalf("stdout does not end like kubectl's List:\n%s", res.stdout[max(0, len(res.stdout)-300):])
	}

	list := decodeNodeList(t, res.stdout)
	type want struct {
		name, ready, internalIP string
		control                 bool
		created                 time.Time
	}
	wants := []want{
		{"test1-control-18fe761907b", "True", "10.1.1.10", true, testNow.Add(-48 * time.Hour)},
		{"test1-node-18fe7619a3c", "True", "10.1.1.11", false, testNow.Add(-3 * time.Hour)},
		{"test1-node-18fe761a001", "Unknown", "10.1.1.12", false, testNow.Add(-45 * time.Second)},
	}
	if len(list.Items) != len(wants) {
		t.Fatalf("%d items, want %d", len(list.Items), len(wants))
	}
	for i, w := range wants {
		n := &list.Items[i]
		_, control := n.Labels["node-role.kubernetes.io/control-plane"]
		switch {
		case n.Kind != "Node" || n.APIVersion != "v1":
			t.Errorf("item %d: kind %q apiVersion %q", i, n.Kind, n.APIVersion)
		case n.Name != w.name || n.Labels["kubernetes.io/hostname"] != w.name:
			t.Errorf("item %d: name %q (hostname label %q), want %q", i, n.Name, n.Labels["kubernetes.io/hostname"], w.name)
		case string(readyStatus(n)) != w.ready:
			t.Errorf("%s: Ready condition %q, want %q", w.name, readyStatus(n), w.ready)
		case control != w.control:
			t.Errorf("%s: control-plane role label %v, want %v", w.name, control, w.control)
		case n.Status.NodeInfo.KubeletVersion != "v1.33.13":
			t.Errorf("%s: kubelet version %q", w.name, n.Status.NodeInfo.KubeletVersion)
		case !n.CreationTimestamp.Time.Equal(w.created):
			t.Errorf("%s: created %v, want %v", w.name, n.CreationTimestamp.Time, w.created)
		case len(n.Status.Addresses) == 0 || n.Status.Addresses[0].Address != w.internalIP:
			t.Errorf("%s: addresses %v, want InternalIP %s", w.name, n.Status.Addresses, w.internalIP)
		}
	}

	// What the SSH lister makes of it matches the table kubectl prints.
	got := make([]nodes.Node, 0, len(list.Items))
	for i := range list.Items {
		got = append(got, nodes.FromAPI(&list.Items[i]))
	}
	if !reflect.DeepEqual(got, wantJSONNodes) {
		t.Fatalf("nodes = %#v, want %#v", got, wantJSONNodes)
	}
	table := run(t, client, "sudo /opt/bin/kubectl get nodes --no-headers").stdout
	statusInTable := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			statusInTable[f[0]] = f[1]
		}
	}
	for _, n := range got {
		want := "NotReady"
		if n.Ready {
			want = "Ready"
		}
		if statusInTable[n.Name] != want {
			t.Errorf("%s: the table's STATUS is %q, the JSON says %q", n.Name, statusInTable[n.Name], want)
		}
	}
}

func TestSSHKubectlGetNodesJSONByName(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	client := c.client(t, controlPort)

	// One name: kubectl prints that object alone.
	res := run(t, client, "sudo /opt/bin/kubectl get node test1-node-18fe761a001 -ojson")
	if res.status != 0 || res.stderr != "" {
		t.Fatalf("one name: status %d, stderr %q", res.status, res.stderr)
	}
	var node corev1.Node
	if err := kjson.Unmarshal([]byte(res.stdout), &node); err != nil {
		t.Fatalf("one name: %v\n%s", err, res.stdout)
	}
	if node.Kind != "Node" || node.Name != "test1-node-18fe761a001" || readyStatus(&node) != corev1.ConditionUnknown {
		t.Fatalf("one name: kind %q name %q Ready %q", node.Kind, node.Name, readyStatus(&node))
	}

	// Several names, one unknown: a List of the others and an error.
	res = run(t, client, "sudo /opt/bin/kubectl get nodes test1-node-18fe7619a3c nope --output=json")
	if res.status != 1 || res.stderr != "Error from server (NotFound): nodes \"nope\" not found\n" {
		t.Fatalf("two names: status %d, stderr %q", res.status, res.stderr)
	}
	if list := decodeNodeList(t, res.stdout); len(list.Items) != 1 || list.Items[0].Name != "test1-node-18fe7619a3c" {
		t.Fatalf("two names: items %+v", list.Items)
	}

	// One unknown name: only the error.
	res = run(t, client, "sudo /opt/bin/kubectl get node nope -o json")
	if res.status != 1 || res.stdout != "" || res.stderr != "Error from server (NotFound): nodes \"nope\" not found\n" {
		t.Fatalf("unknown name: status %d, stdout %q, stderr %q", res.status, res.stdout, res.stderr)
	}
}

func TestSSHKubectlGetNodesJSONEmptyCluster(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t)
	c.src.setNodes(c.id)

	res := c.exec(t, controlPort, "sudo /opt/bin/kubectl get nodes -o json")
	want := "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	// -o json prints an empty List and no "No resources found".
	if res.status != 0 || res.stdout != want || res.stderr != "" {
		t.Fatalf("status %d, stdout %q, stderr %q", res.status, res.stdout, res.stderr)
	}
}
