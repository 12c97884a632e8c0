package endpoints

import (
	"fmt"
	"strings"
)

// requirement is one term of a label or field selector.
type requirement struct {
	key    string
	value  string
	op     string // "exists", "!exists", "=" or "!="
	onName bool   // a field selector on metadata.name instead of a label
}

// selector is a conjunction of requirements.
type selector []requirement

// parseSelectors understands equality-based label selectors (k, !k, k=v,
// k==v, k!=v) and the metadata.name field selector, which covers what kubectl
// sends for "get nodes -l ..." and "--field-selector metadata.name=...".
func parseSelectors(labels, fields string) (selector, error) {
	var sel selector
	for _, term := range splitTerms(labels) {
		req, err := parseTerm(term, true)
		if err != nil {
			return nil, err
		}
		sel = append(sel, req)
	}
	for _, term := range splitTerms(fields) {
		req, err := parseTerm(term, false)
		if err != nil {
			return nil, err
		}
		if req.key != "metadata.name" {
			return nil, fmt.Errorf("field label not supported: %s", req.key)
		}
		req.onName = true
		sel = append(sel, req)
	}
	return sel, nil
}

func splitTerms(s string) []string {
	var terms []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	return terms
}

func parseTerm(term string, allowExists bool) (requirement, error) {
	if k, v, ok := strings.Cut(term, "!="); ok {
		return requirement{key: strings.TrimSpace(k), value: strings.TrimSpace(v), op: "!="}, nil
	}
	if k, v, ok := strings.Cut(term, "="); ok {
		return requirement{key: strings.TrimSpace(k), value: strings.TrimSpace(strings.TrimPrefix(v, "=")), op: "="}, nil
	}
	if strings.ContainsAny(term, " ()") || !allowExists {
		return requirement{}, fmt.Errorf("unable to parse requirement: %q: the simulated API server supports only equality selectors", term)
	}
	if k, ok := strings.CutPrefix(term, "!"); ok {
		return requirement{key: k, op: "!exists"}, nil
	}
	return requirement{key: term, op: "exists"}, nil
}

func (s selector) matches(m objectMeta) bool {
	for _, r := range s {
		value, has := m.Labels[r.key]
		if r.onName {
			value, has = m.Name, true
		}
		var ok bool
		switch r.op {
		case "exists":
			ok = has
		case "!exists":
			ok = !has
		case "=":
			ok = has && value == r.value
		case "!=":
			ok = !has || value != r.value
		}
		if !ok {
			return false
		}
	}
	return true
}
