package kubectlout

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// columns holds the field index of each column we read; -1 when absent.
type columns struct {
	name, status, roles, version int
	// width is the number of fields a row needs to reach every present column.
	width int
}

// parseHeader recognises kubectl's header row. NAME and STATUS are required;
// ROLES and VERSION are read when present. Extra columns (-o wide, -L) are fine
// because the columns we read never contain spaces and precede those that may.
func parseHeader(fields []string) (columns, bool) {
	c := columns{name: -1, status: -1, roles: -1, version: -1}
	for i, f := range fields {
		var slot *int
		switch f {
		case "NAME":
			slot = &c.name
		case "STATUS":
			slot = &c.status
		case "ROLES":
			slot = &c.roles
		case "VERSION":
			slot = &c.version
		default:
			continue
		}
		if *slot == -1 {
			*slot = i
			c.width = max(c.width, i+1)
		}
	}
	return c, c.name == 0 && c.status != -1
}

// ParseTable parses the default `kubectl get nodes` table
// (NAME STATUS ROLES AGE VERSION, optionally with more columns).
// Noise lines (blank, `Warning:`, klog) are skipped anywhere; other lines
// before the header are skipped too. Empty output, or output made only of
// noise, yields no nodes and no error, as kubectl prints nothing on stdout for
// an empty list. A node is Ready only when the first comma-separated STATUS
// field is exactly "Ready". A row that is truncated, names an invalid node or
// repeats a node is an error, since silently dropping it would misreport drift.
func ParseTable(out string) ([]nodes.Node, error) {
	var (
		cols       columns
		haveHeader bool
		firstOther string
		result     []nodes.Node
		seen       = make(map[string]bool)
	)
	for i, line := range splitLines(out) {
		if isNoise(line) {
			continue
		}
		fields := strings.Fields(line)
		if !haveHeader {
			if cols, haveHeader = parseHeader(fields); !haveHeader && firstOther == "" {
				firstOther = line
			}
			continue
		}
		if _, again := parseHeader(fields); again {
			continue
		}
		n, err := parseRow(cols, fields)
		if err != nil {
			return nil, fmt.Errorf("kubectl output line %d %s: %w", i+1, quoteShort(line), err)
		}
		if seen[n.Name] {
			return nil, fmt.Errorf("kubectl output line %d: node %q listed twice", i+1, n.Name)
		}
		seen[n.Name] = true
		result = append(result, n)
	}
	if !haveHeader && firstOther != "" {
		return nil, fmt.Errorf("kubectl output has no NAME/STATUS header; first line: %s", quoteShort(firstOther))
	}
	return result, nil
}

func parseRow(cols columns, fields []string) (nodes.Node, error) {
	if len(fields) < cols.width {
		return nodes.Node{}, fmt.Errorf("has %d columns, want at least %d", len(fields), cols.width)
	}
	name := fields[cols.name]
	if !isNodeName(name) {
		return nodes.Node{}, fmt.Errorf("%s is not a valid node name", quoteShort(name))
	}
	status, _, _ := strings.Cut(fields[cols.status], ",")
	n := nodes.Node{Name: name, Ready: status == "Ready"}
	if cols.roles != -1 {
		n.Roles = fields[cols.roles]
	}
	if cols.version != -1 {
		n.Version = fields[cols.version]
	}
	return n, nil
}
