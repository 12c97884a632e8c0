package kubectlout

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

func addTableSeeds(f *testing.F) {
	f.Helper()
	for _, s := range []string{
		realTable,
		strings.ReplaceAll(realTable, "\n", "\r\n"),
		"Warning: x\n" + klogNoise + "\n" + realTable,
		"NAME STATUS\nw-1 Ready\n",
		"NAME   STATUS   ROLES    AGE   VERSION\nw-2    Rea",
		"NAME   STATUS   ROLES    AGE   VERSION\nw-1    Ready,SchedulingDisabled    <none>   1h    v1.32.0\n",
		"NAME NAME STATUS STATUS\na b c d\n",
		"STATUS NAME\nReady w-1\n",
		"node/w-1\nnode/w-2\n",
		"",
		"\r\n\r\n",
		"NAME\tSTATUS\tROLES\nw\tReady\t<none>\n",
		"NAME STATUS\n\xff\xfe Ready\n",
	} {
		f.Add(s)
	}
}

// FuzzParseTable checks that ParseTable never panics and that a successful
// parse returns valid, unique names taken from the input, independent of CRLF
// line ends and of prepended noise.
func FuzzParseTable(f *testing.F) {
	addTableSeeds(f)
	f.Fuzz(func(t *testing.T, out string) {
		got, err := ParseTable(out)
		if err != nil {
			if got != nil {
				t.Fatalf("nodes %#v returned with error %v", got, err)
			}
		} else {
			checkNodes(t, out, got)
		}

		crlf, crlfErr := ParseTable(strings.ReplaceAll(out, "\n", "\r\n"))
		if (err == nil) != (crlfErr == nil) || !reflect.DeepEqual(got, crlf) {
			t.Fatalf("CRLF changed the result: %#v, %v vs %#v, %v", got, err, crlf, crlfErr)
		}
		noisy, noisyErr := ParseTable("Warning: deprecated\n\n" + klogNoise + "\n" + out)
		if (err == nil) != (noisyErr == nil) || !reflect.DeepEqual(got, noisy) {
			t.Fatalf("leading noise changed the result: %#v, %v vs %#v, %v", got, err, noisy, noisyErr)
		}
	})
}

func checkNodes(t *testing.T, out string, got []nodes.Node) {
	t.Helper()
	seen := make(map[string]bool)
	for _, n := range got {
		if !isNodeName(n.Name) {
			t.Fatalf("invalid node name %q", n.Name)
		}
		if seen[n.Name] {
			t.Fatalf("node %q returned twice", n.Name)
		}
		seen[n.Name] = true
		if !strings.Contains(out, n.Name) {
			t.Fatalf("node %q is not in the input", n.Name)
		}
		if strings.ContainsFunc(n.Roles+n.Version, isSpace) {
			t.Fatalf("node %#v has whitespace in a column", n)
		}
	}
}

func isSpace(r rune) bool { return strings.TrimSpace(string(r)) == "" }

// FuzzParseTableRoundTrip formats one node the way kubectl pads its table,
// surrounded by other rows, and checks that parsing gives it back exactly.
func FuzzParseTableRoundTrip(f *testing.F) {
	f.Add("w-1", "Ready", "<none>", "v1.33.13", false)
	f.Add("cp.example.org", "Ready,SchedulingDisabled", "control-plane", "v1.32.0", true)
	f.Add("w-2", "NotReady", "control-plane,master", "v1.31.2+k3s1", true)
	f.Fuzz(func(t *testing.T, name, status, roles, version string, crlf bool) {
		for _, cell := range []string{status, roles, version} {
			if cell == "" || strings.ContainsFunc(cell, isSpace) || strings.ContainsRune(cell, 0) {
				return // kubectl cells never contain whitespace
			}
		}
		if !isNodeName(name) || name == "zz-last" || name == "aa-first" {
			return // kubectl only prints valid names, and the neighbours must stay distinct
		}
		rows := [][]string{
			{"NAME", "STATUS", "ROLES", "AGE", "VERSION"},
			{"aa-first", "NotReady", "<none>", "2d", "v1.30.0"},
			{name, status, roles, "45s", version},
			{"zz-last", "Ready", "<none>", "3h", "v1.30.0"},
		}
		out := formatTable(rows)
		if crlf {
			out = strings.ReplaceAll(out, "\n", "\r\n")
		}
		got, err := ParseTable(out)
		if err != nil {
			t.Fatalf("ParseTable(%q): %v", out, err)
		}
		statusWord, _, _ := strings.Cut(status, ",")
		want := []nodes.Node{
			{Name: "aa-first", Roles: "<none>", Version: "v1.30.0"},
			{Name: name, Ready: statusWord == "Ready", Roles: roles, Version: version},
			{Name: "zz-last", Ready: true, Roles: "<none>", Version: "v1.30.0"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseTable(%q) =\n%#v\nwant\n%#v", out, got, want)
		}
	})
}

// formatTable pads columns like kubectl: width of the widest cell plus three spaces.
func formatTable(rows [][]string) string {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				continue
			}
			fmt.Fprintf(&b, "%-*s", widths[i]+3, c)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FuzzParseNames checks that ParseNames never panics and only returns valid,
// unique names that appear as `node/<name>` lines in the input.
func FuzzParseNames(f *testing.F) {
	addTableSeeds(f)
	f.Add("node/a\r\nnode/b\nnode/a\nnode/\nnode/-x\n")
	f.Fuzz(func(t *testing.T, out string) {
		got := ParseNames(out)
		lines := make(map[string]bool)
		for _, l := range strings.Split(out, "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		seen := make(map[string]bool)
		for _, n := range got {
			if !isNodeName(n) || seen[n] || !lines["node/"+n] {
				t.Fatalf("bad name %q in %#v", n, got)
			}
			seen[n] = true
		}
		if crlf := ParseNames(strings.ReplaceAll(out, "\n", "\r\n")); !reflect.DeepEqual(got, crlf) {
			t.Fatalf("CRLF changed the result: %#v vs %#v", got, crlf)
		}
	})
}
