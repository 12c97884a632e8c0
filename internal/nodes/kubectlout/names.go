package kubectlout

import "strings"

// ParseNames extracts node names from `kubectl get nodes -o name` output
// (`node/<name>` per line). Lines that are not a valid `node/<name>` entry,
// such as warnings, are skipped; repeated names are reported once, in first-seen order.
func ParseNames(out string) []string {
	var names []string
	seen := make(map[string]bool)
	for _, line := range splitLines(out) {
		name, ok := strings.CutPrefix(line, "node/")
		if !ok || !isNodeName(name) || seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	return names
}
