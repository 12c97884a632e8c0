package endpoints

import (
	"fmt"
	"strings"
)

// refusedLocalhost is what kubectl prints on a node without an admin
// kubeconfig: it falls back to localhost:8080, where nothing listens.
const refusedLocalhost = "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n"

// kubectlGet is a parsed "kubectl get" invocation.
type kubectlGet struct {
	resource  string
	names     []string
	output    string // "", "wide", "name" or "json"
	noHeaders bool
}

// kubectl emulates /opt/bin/kubectl with the node's admin kubeconfig: only
// control nodes have one.
func (m *Manager) kubectl(t Target, args []string) result {
	if !t.Control {
		return result{stderr: refusedLocalhost, status: exitFailure}
	}
	get, errText := parseKubectl(args)
	if errText != "" {
		return result{stderr: errText, status: exitFailure}
	}
	switch get.resource {
	case "nodes", "node", "no":
	default:
		return result{stderr: fmt.Sprintf("error: the server doesn't have a resource type %q\n", get.resource), status: exitFailure}
	}

	nodes, ok := m.src.KubeNodes(t.ClusterID)
	if !ok {
		addr, known := m.apiAddress(t.ClusterID)
		if !known {
			return result{stderr: refusedLocalhost, status: exitFailure}
		}
		return result{stderr: "The connection to the server " + addr + " was refused - did you specify the right host or port?\n", status: exitFailure}
	}
	nodes = sortedNodes(nodes)

	var stderr strings.Builder
	status := exitOK
	if len(get.names) > 0 {
		var picked []Node
		for _, name := range get.names {
			n, found := findNode(nodes, name)
			if !found {
				fmt.Fprintf(&stderr, "Error from server (NotFound): nodes %q not found\n", name)
				status = exitFailure
				continue
			}
			picked = append(picked, n)
		}
		nodes = picked
	} else if len(nodes) == 0 && get.output != "json" {
		stderr.WriteString("No resources found\n")
	}

	var stdout strings.Builder
	switch get.output {
	case "name":
		for _, n := range nodes {
			stdout.WriteString("node/" + n.Name + "\n")
		}
	case "json":
		if err := writeNodeJSON(&stdout, t.ClusterID, nodes, m.clock(), len(get.names) == 1); err != nil {
			return result{stderr: "error: " + err.Error() + "\n", status: exitFailure}
		}
	default:
		if len(nodes) > 0 {
			m.writeNodeTable(&stdout, nodes, get.output == "wide", get.noHeaders)
		}
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), status: status}
}

func (m *Manager) writeNodeTable(sb *strings.Builder, nodes []Node, wide, noHeaders bool) {
	columns := defaultNodeColumns
	if wide {
		columns = len(nodeColumns)
	}
	now := m.clock()
	rows := make([][]string, 0, len(nodes))
	for _, n := range nodes {
		rows = append(rows, nodeCells(n, now)[:columns])
	}
	var header []string
	if !noHeaders {
		header = nodeColumns[:columns]
	}
	_ = writeTable(sb, header, rows)
}

func findNode(nodes []Node, name string) (Node, bool) {
	for _, n := range nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// parseKubectl understands "get <resource> [names...]" with -o/--output
// (name, wide or json), --no-headers and the harmless connection flags. Anything
// else yields kubectl-style error text.
func parseKubectl(args []string) (kubectlGet, string) {
	var (
		get        kubectlGet
		positional []string
	)
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-o" || a == "--output":
			if i+1 >= len(args) {
				return get, fmt.Sprintf("error: flag needs an argument: %s\n", a)
			}
			i++
			get.output = args[i]
		case flag == "-o" || flag == "--output":
			get.output = value
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			get.output = a[2:]
		case flag == "--no-headers":
			get.noHeaders = !hasValue || value == "true"
		case flag == "--kubeconfig" || flag == "--request-timeout":
			if !hasValue {
				i++
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return get, fmt.Sprintf("error: unknown flag: %s\nSee 'kubectl get --help' for usage.\n", flag)
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) == 0 {
		return get, "error: the simulated kubectl needs a command, e.g. \"kubectl get nodes\"\n"
	}
	if verb := positional[0]; verb != "get" {
		return get, fmt.Sprintf("error: the simulated node does not support \"kubectl %s\"; only \"kubectl get nodes\" is available\n", verb)
	}
	if len(positional) < 2 {
		return get, "error: You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n"
	}
	get.resource = positional[1]
	get.names = positional[2:]
	// "kubectl get node/<name>" names the resource and the object at once.
	if kind, name, ok := strings.Cut(get.resource, "/"); ok {
		get.resource = kind
		get.names = append([]string{name}, get.names...)
	}
	switch get.output {
	case "", "wide", "name", "json":
	default:
		return get, fmt.Sprintf("error: the simulated kubectl cannot print output format %q; use name, wide or json\n", get.output)
	}
	return get, ""
}
