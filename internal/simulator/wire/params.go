package wire

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Params are a request's parameters with lowercased names, as the API layer
// hands them to commands.
type Params struct {
	command string
	v       map[string]string
	// raw keeps the request's own names: the API layer lowercases parameter
	// names but keeps the case of a map parameter's sub-keys
	// (name[i].subKey), which details maps rely on.
	raw url.Values
}

func NewParams(command string, form url.Values) Params {
	p := Params{command: command, v: make(map[string]string, len(form)), raw: form}
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

func (p Params) Str(name string) string { return p.v[name] }

func (p Params) Has(name string) bool {
	_, ok := p.v[name]
	return ok && p.v[name] != ""
}

// Require returns the value of a required parameter or the 431 the API layer
// answers when it is missing.
func (p Params) Require(name string) (string, *APIError) {
	if !p.Has(name) {
		return "", MissingParam(p.command, name)
	}
	return p.v[name], nil
}

// Long parses an optional integer parameter.
func (p Params) Long(name string) (value int64, present bool, err *APIError) {
	if !p.Has(name) {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(p.v[name]), 10, 64)
	if perr != nil {
		return 0, true, BadValue(p.command, name, p.v[name])
	}
	return n, true, nil
}

// Bool parses an optional Bool like Java's Boolean.valueOf.
func (p Params) Bool(name string) (value, present bool) {
	if !p.Has(name) {
		return false, false
	}
	return strings.EqualFold(strings.TrimSpace(p.v[name]), "true"), true
}

// List splits a comma-separated List parameter.
func (p Params) List(name string) []string {
	if !p.Has(name) {
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

// MapEntries returns a map parameter (name[i].key=value) as one map per
// index, in index order.
func (p Params) MapEntries(name string) []map[string]string {
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

// DetailsMap is BaseCmd.convertDetailsToMap: every name[i].<key>=<value>
// of every index in one map, sub-key case kept.
func (p Params) DetailsMap(name string) map[string]string {
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

func IsUUID(s string) bool { return uuidRE.MatchString(s) }

// LowerCommand is the command name as it appears in response keys.
func LowerCommand(command string) string { return strings.ToLower(command) }

// ResolveParam resolves an optional UUID parameter the way the API layer
// does: a value that is not a UUID, or names no entity, is a 431.
func ResolveParam[T any](p Params, name string, find func(string) *T) (*T, *APIError) {
	id := p.Str(name)
	if id == "" {
		return nil, nil
	}
	if !IsUUID(id) {
		return nil, EntityNotFound(name, id)
	}
	if e := find(id); e != nil {
		return e, nil
	}
	return nil, EntityNotFound(name, id)
}
