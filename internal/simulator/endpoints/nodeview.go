package endpoints

import (
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// Node details a CKS node template reports; kubectl shows them with -o wide.
const (
	nodeOSImage          = "Ubuntu 22.04.5 LTS"
	nodeKernelVersion    = "5.15.0-131-generic"
	nodeContainerRuntime = "containerd://1.7.24"
	nodeOS               = "linux"
	nodeArch             = "amd64"
	noneValue            = "<none>"
	controlPlaneRole     = "control-plane"
)

// nodeColumns are kubectl's columns for nodes; the first five are the
// default view, the rest appear with -o wide (priority 1 on the server).
var nodeColumns = []string{
	"NAME", "STATUS", "ROLES", "AGE", "VERSION",
	"INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME",
}

const defaultNodeColumns = 5

// sortedNodes returns a copy of nodes in name order, the order in which the
// API server lists them.
func sortedNodes(nodes []Node) []Node {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func nodeStatus(n Node) string {
	if n.Ready {
		return "Ready"
	}
	return "NotReady"
}

func nodeRoles(n Node) string {
	if n.Control {
		return controlPlaneRole
	}
	return noneValue
}

func orNone(s string) string {
	if s == "" {
		return noneValue
	}
	return s
}

// nodeAge formats the AGE column exactly as kubectl does.
func nodeAge(n Node, now time.Time) string {
	if n.Created.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(n.Created))
}

// nodeCells returns every column of nodeColumns for n.
func nodeCells(n Node, now time.Time) []string {
	return []string{
		n.Name, nodeStatus(n), nodeRoles(n), nodeAge(n, now), n.Version,
		orNone(n.InternalIP), noneValue, nodeOSImage, nodeKernelVersion, nodeContainerRuntime,
	}
}

// writeTable prints rows the way kubectl does: a tabwriter with minimum
// width 6 and padding 3, so every column but the last is as wide as its
// longest cell plus three spaces.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	writeRow := func(cells []string) {
		_, _ = io.WriteString(tw, strings.Join(cells, "\t")+"\n")
	}
	if header != nil {
		writeRow(header)
	}
	for _, r := range rows {
		writeRow(r)
	}
	return tw.Flush()
}
