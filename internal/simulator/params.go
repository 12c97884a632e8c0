package simulator

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// params are a request's parameters with lowercased names, as the API layer
// hands them to commands.
type params struct {
	command string
	v       map[string]string
	// raw keeps the request's own names: the API layer lowercases parameter
	// names but keeps the case of a map parameter's sub-keys
	// (name[i].subKey), which details maps rely on.
	raw url.Values
}

func newParams(command string, form url.Values) params {
	p := params{command: command, v: make(map[string]string, len(form)), raw: form}
	for name, vs := range form {
		if len(vs) == 0 {
			continue
		}
		key := strings.ToLower(name)
		if _, dup := p.v[key]; !dup {
			p.v[key] = vs[0]
		}
	}
	return p
}

func (p params) str(name string) string { return p.v[name] }

func (p params) has(name string) bool {
	_, ok := p.v[name]
	return ok && p.v[name] != ""
}

// require returns the value of a required parameter or the 431 the API layer
// answers when it is missing.
func (p params) require(name string) (string, *apiError) {
	if !p.has(name) {
		return "", missingParam(p.command, name)
	}
	return p.v[name], nil
}

// long parses an optional integer parameter.
func (p params) long(name string) (value int64, present bool, err *apiError) {
	if !p.has(name) {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(p.v[name]), 10, 64)
	if perr != nil {
		return 0, true, badValue(p.command, name, p.v[name])
	}
	return n, true, nil
}

// boolean parses an optional boolean like Java's Boolean.valueOf.
func (p params) boolean(name string) (value, present bool) {
	if !p.has(name) {
		return false, false
	}
	return strings.EqualFold(strings.TrimSpace(p.v[name]), "true"), true
}

// list splits a comma-separated list parameter.
func (p params) list(name string) []string {
	if !p.has(name) {
		return nil
	}
	var out []string
	for _, item := range strings.Split(p.v[name], ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

var mapParamRE = regexp.MustCompile(`^([a-z0-9]+)\[(\d+)\]\.([a-z0-9_]+)$`)

// mapEntries returns a map parameter (name[i].key=value) as one map per
// index, in index order.
func (p params) mapEntries(name string) []map[string]string {
	groups := map[int]map[string]string{}
	for key, value := range p.v {
		m := mapParamRE.FindStringSubmatch(key)
		if m == nil || m[1] != name {
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		if groups[idx] == nil {
			groups[idx] = map[string]string{}
		}
		groups[idx][m[3]] = value
	}
	idxs := make([]int, 0, len(groups))
	for idx := range groups {
		idxs = append(idxs, idx)
	}
	slices.Sort(idxs)
	out := make([]map[string]string, 0, len(idxs))
	for _, idx := range idxs {
		out = append(out, groups[idx])
	}
	return out
}

// detailsMap is BaseCmd.convertDetailsToMap: every name[i].<key>=<value>
// of every index in one map, sub-key case kept.
func (p params) detailsMap(name string) map[string]string {
	out := map[string]string{}
	for key, vs := range p.raw {
		open := strings.IndexByte(key, '[')
		if open <= 0 || !strings.EqualFold(key[:open], name) || len(vs) == 0 {
			continue
		}
		rest := key[open:]
		closing := strings.Index(rest, "].")
		if closing < 0 {
			continue
		}
		if sub := rest[closing+2:]; sub != "" {
			out[sub] = vs[0]
		}
	}
	return out
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

// lowerCommand is the command name as it appears in response keys.
func lowerCommand(command string) string { return strings.ToLower(command) }

// resolveParam resolves an optional UUID parameter the way the API layer
// does: a value that is not a UUID, or names no entity, is a 431.
func resolveParam[T any](p params, name string, find func(string) *T) (*T, *apiError) {
	id := p.str(name)
	if id == "" {
		return nil, nil
	}
	if !isUUID(id) {
		return nil, entityNotFound(name, id)
	}
	if e := find(id); e != nil {
		return e, nil
	}
	return nil, entityNotFound(name, id)
}
