package endpoints

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSplitPipeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want [][]string
	}{
		{"", [][]string{nil}},
		{"sudo /opt/bin/kubectl get nodes", [][]string{{"sudo", "/opt/bin/kubectl", "get", "nodes"}}},
		{"  a\t'b c'  \"d \\\"e\\\"\" f\\ g ''", [][]string{{"a", "b c", `d "e"`, "f g", ""}}},
		{"kubectl get nodes | grep -w 'Ready' | wc -l", [][]string{{"kubectl", "get", "nodes"}, {"grep", "-w", "Ready"}, {"wc", "-l"}}},
		{"echo 'a|b'|cat", [][]string{{"echo", "a|b"}, {"cat"}}},
	}
	for _, tt := range tests {
		got, err := splitPipeline(tt.line)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitPipeline(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	for _, bad := range []string{"'open", `"open`, `trailing\`, "| wc -l", "kubectl get nodes |"} {
		if _, err := splitPipeline(bad); err == nil {
			t.Errorf("splitPipeline(%q) succeeded", bad)
		}
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	input := "NAME STATUS\na Ready\nb NotReady\nc Ready,SchedulingDisabled\n"
	tests := []struct {
		args       []string
		wantOut    string
		wantStatus int
	}{
		{[]string{"-w", "Ready"}, "a Ready\nc Ready,SchedulingDisabled\n", 0},
		{[]string{"Ready"}, "a Ready\nb NotReady\nc Ready,SchedulingDisabled\n", 0},
		{[]string{"-v", "Ready"}, "NAME STATUS\n", 0},
		{[]string{"-wc", "Ready"}, "2\n", 0},
		{[]string{"-i", "-w", "ready"}, "a Ready\nc Ready,SchedulingDisabled\n", 0},
		{[]string{"-w", "Read"}, "", 1},
		{[]string{"-q", "Ready"}, "", 0},
	}
	for _, tt := range tests {
		res := grep(tt.args, input)
		if res.stdout != tt.wantOut || res.status != tt.wantStatus {
			t.Errorf("grep %v = %q (status %d), want %q (status %d)", tt.args, res.stdout, res.status, tt.wantOut, tt.wantStatus)
		}
	}
	if res := grep([]string{"-Z", "x"}, input); res.status != 2 {
		t.Errorf("grep -Z: status %d, want 2", res.status)
	}
	if res := grep(nil, input); res.status != 2 {
		t.Errorf("grep without pattern: status %d, want 2", res.status)
	}
}

func TestWc(t *testing.T) {
	t.Parallel()
	if res := wc([]string{"-l"}, "a\nb\n"); res.stdout != "2\n" || res.status != 0 {
		t.Errorf("wc -l = %+v", res)
	}
	if res := wc([]string{"-l"}, ""); res.stdout != "0\n" {
		t.Errorf("wc -l on nothing = %+v", res)
	}
	if res := wc([]string{"-c"}, "a\n"); res.status == 0 {
		t.Errorf("wc -c succeeded: %+v", res)
	}
}

func TestParseKubectl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want kubectlGet
	}{
		{strings.Fields("get nodes"), kubectlGet{resource: "nodes", names: []string{}}},
		{strings.Fields("get no -owide"), kubectlGet{resource: "no", names: []string{}, output: "wide"}},
		{strings.Fields("--kubeconfig /root/.kube/config get node a b --output=name"), kubectlGet{resource: "node", names: []string{"a", "b"}, output: "name"}},
		{strings.Fields("get node/a --no-headers"), kubectlGet{resource: "node", names: []string{"a"}, noHeaders: true}},
		{strings.Fields("get nodes -o json"), kubectlGet{resource: "nodes", names: []string{}, output: "json"}},
	}
	for _, tt := range tests {
		got, errText := parseKubectl(tt.args)
		if errText != "" || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseKubectl(%q) = %+v, %q; want %+v", tt.args, got, errText, tt.want)
		}
	}
	for _, bad := range []string{"", "drain a", "get", "get nodes -o yaml", "get nodes -o", "get nodes --watch"} {
		if _, errText := parseKubectl(strings.Fields(bad)); !strings.HasPrefix(errText, "error: ") {
			t.Errorf("parseKubectl(%q) error = %q", bad, errText)
		}
	}
}

func TestNodeAgeMatchesKubectl(t *testing.T) {
	t.Parallel()
	now := testNow
	tests := map[time.Duration]string{
		45 * time.Second:              "45s",
		119 * time.Second:             "119s",
		5 * time.Minute:               "5m",
		5*time.Minute + 7*time.Second: "5m7s",
		42 * time.Minute:              "42m",
		3 * time.Hour:                 "3h",
		3*time.Hour + 5*time.Minute:   "3h5m",
		20 * time.Hour:                "20h",
		2 * 24 * time.Hour:            "2d",
		50 * time.Hour:                "2d2h",
		30 * 24 * time.Hour:           "30d",
	}
	for age, want := range tests {
		if got := nodeAge(Node{Created: now.Add(-age)}, now); got != want {
			t.Errorf("age %v = %q, want %q", age, got, want)
		}
	}
}

func TestWriteTablePadsLikeKubectl(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	if err := writeTable(&sb, []string{"A", "LONGER", "LAST"}, [][]string{{"x", "y", "zzzzzzzzzz"}, {"wwwwwww", "", "z"}}); err != nil {
		t.Fatal(err)
	}
	// Widths: max(6, longest cell + 3); the last column is not padded.
	want := "" +
		"A         LONGER   LAST\n" +
		"x         y        zzzzzzzzzz\n" +
		"wwwwwww            z\n"
	if sb.String() != want {
		t.Fatalf("table:\n%q\nwant:\n%q", sb.String(), want)
	}

	// kubectl's tabwriter never makes a column narrower than 6.
	sb.Reset()
	if err := writeTable(&sb, []string{"X", "Y"}, [][]string{{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	if want := "X     Y\n1     2\n"; sb.String() != want {
		t.Fatalf("narrow table %q, want %q", sb.String(), want)
	}
}
