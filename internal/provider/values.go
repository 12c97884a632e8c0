// Small conversions between Terraform values and Go values, shared by every
// resource and data source. They know no schema.

package provider

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// expandHome expands a leading ~ to the home directory homeDir returns.
func expandHome(p string, homeDir func() (string, error)) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := homeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// known reports whether a value is neither null nor unknown.
func known(v interface {
	IsNull() bool
	IsUnknown() bool
}) bool {
	return !v.IsNull() && !v.IsUnknown()
}

// dedupe drops repeated strings, keeping the first of each in order.
func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// knownString is the value of a known string, else "".
func knownString(v interface {
	IsNull() bool
	IsUnknown() bool
	ValueString() string
},
) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

// stringOrNull is a string value, null when blank.
func stringOrNull(s string) types.String {
	if strings.TrimSpace(s) == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// knownStringMap is a known map of strings as a Go map, else nil.
func knownStringMap(m types.Map) map[string]string {
	if !known(m) {
		return nil
	}
	out := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && known(s) {
			out[k] = s.ValueString()
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// stringMapOrNull is a map of strings, null when empty.
func stringMapOrNull(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	values := make(map[string]attr.Value, len(m))
	for k, v := range m {
		values[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, values)
}

// stringList is a known list of strings as a Go slice, else nil.
func stringList(ctx context.Context, l types.List) ([]string, diag.Diagnostics) {
	if l.IsNull() || l.IsUnknown() {
		return nil, nil
	}
	var out []string
	diags := l.ElementsAs(ctx, &out, false)
	return out, diags
}

// sentence ends s with a period, so that more sentences can follow.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// upperKeys sends node types in upper case, as the server stores them.
func upperKeys(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToUpper(k)] = v
	}
	return out
}

// objectAsOptions converts objects strictly: unknown and null fields are
// decoded into the model's framework types, never dropped.
var objectAsOptions = basetypes.ObjectAsOptions{}

// changedString reports a known planned value that differs from the state.
func changedString(planned, prior types.String) bool {
	return known(planned) && !planned.Equal(prior)
}

func driftQuote(s string) string { return "\"" + s + "\"" }
