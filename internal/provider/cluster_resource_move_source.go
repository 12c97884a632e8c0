package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// officialState is the state of a cloudstack_kubernetes_cluster as the
// official provider (SDKv2) stores it: flat JSON, read attribute by
// attribute so that releases with fewer or more attributes decode alike.
type officialState map[string]json.RawMessage

// decodeOfficialState reads the raw JSON state.
func decodeOfficialState(raw []byte) (officialState, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("the source state has no JSON (a state written before Terraform 0.12 must be refreshed by the cloudstack provider first)")
	}
	var src officialState
	if err := json.Unmarshal(raw, &src); err != nil {
		return nil, fmt.Errorf("the source state is not a JSON object: %w", err)
	}
	return src, nil
}

// value returns one attribute's value, null when absent.
func (s officialState) value(name string) sourceValue { return sourceValue(s[name]) }

// sourceValue is one attribute's JSON value. The official provider stores
// "" for a string and 0 for a number that CloudStack did not return; both
// read as null here.
type sourceValue json.RawMessage

func (v sourceValue) stringValue() types.String {
	var s *string
	if json.Unmarshal(v, &s) != nil || s == nil || *s == "" {
		return types.StringNull()
	}
	return types.StringValue(*s)
}

func (v sourceValue) int64Value() types.Int64 {
	var n *float64
	if json.Unmarshal(v, &n) != nil || n == nil || *n != math.Trunc(*n) {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*n))
}

func (v sourceValue) boolValue() bool {
	var b bool
	return json.Unmarshal(v, &b) == nil && b
}

func (v sourceValue) stringMap() map[string]string {
	var m map[string]string
	_ = json.Unmarshal(v, &m)
	return m
}

// empty tells whether the value carries nothing: absent, null, "", 0,
// false, or an empty map or list.
func (v sourceValue) empty() bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return len(bytes.TrimSpace(v)) == 0
	}
	switch x := x.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case float64:
		return x == 0
	case bool:
		return !x
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// uuidPattern matches CloudStack's ids. The official provider stores an id
// where the configuration gave one and a name otherwise, and tells them
// apart the same way.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidPattern.MatchString(s) }
