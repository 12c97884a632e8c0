package sshlister

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	kjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// decodeNodeList decodes what `kubectl get nodes -o json` prints: a v1 List
// (kubectl's wrapper) or NodeList of Node objects, with object keys matched
// case-sensitively as client-go does. Lines before the JSON (a chatty login
// script) are skipped. Anything that is not such a list, an item that is not a
// named Node, or a node listed twice is an error: reading it as "no nodes"
// would misreport drift. The error says what was wrong with the output.
func decodeNodeList(stdout []byte) ([]nodes.Node, error) {
	data := skipToJSON(stdout)
	switch {
	case len(bytes.TrimSpace(stdout)) == 0:
		return nil, errors.New("nothing on stdout")
	case data == nil:
		return nil, fmt.Errorf("no JSON object; stdout starts with %s", quoteStart(stdout))
	}
	var list corev1.NodeList
	if err := kjson.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("not a JSON node list (%w); stdout starts with %s", err, quoteStart(data))
	}
	if list.APIVersion != "v1" || (list.Kind != "List" && list.Kind != "NodeList") {
		return nil, fmt.Errorf("JSON of kind %q (apiVersion %q), not a v1 List of nodes", list.Kind, list.APIVersion)
	}
	var result []nodes.Node
	seen := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		item := &list.Items[i]
		switch {
		case item.Kind != "Node" && item.Kind != "":
			return nil, fmt.Errorf("list item %d has kind %q (apiVersion %q), not Node", i, item.Kind, item.APIVersion)
		case item.Name == "":
			return nil, fmt.Errorf("list item %d is a node without metadata.name", i)
		case seen[item.Name]:
			return nil, fmt.Errorf("node %q listed twice", item.Name)
		}
		seen[item.Name] = true
		result = append(result, nodes.FromAPI(item))
	}
	return result, nil
}

// skipToJSON returns out from its first line whose first non-blank byte is
// '{' (kubectl starts its JSON on a line of its own), or nil when no line does.
func skipToJSON(out []byte) []byte {
	for rest := out; len(rest) > 0; {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && t[0] == '{' {
			return rest
		}
		rest = next
	}
	return nil
}

// quoteStart quotes the first bytes of out for an error message, so that a
// huge output cannot flood diagnostics.
func quoteStart(out []byte) string {
	const limit = 80
	out = bytes.TrimSpace(out)
	if len(out) > limit {
		return strconv.Quote(string(bytes.ToValidUTF8(out[:limit], []byte("?")))) + "..."
	}
	return strconv.Quote(string(out))
}
