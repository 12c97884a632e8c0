package cloudstack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// flexInt decodes a JSON number, a numeric string ("2222", as CloudStack
// sends port-forwarding ports), an empty string or null (0).
type flexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*f = 0
		return nil
	}
	s := string(b)
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*f = 0
			return nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Some servers send integral floats ("2.0") for counts.
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int64(fl)) {
			return fmt.Errorf("not an integer: %s", string(b))
		}
		n = int64(fl)
	}
	*f = flexInt(n)
	return nil
}

// flexBool decodes a JSON boolean, "true"/"false" strings or null (false).
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch strings.ToLower(strings.Trim(string(b), `"`)) {
	case "true":
		*f = true
	case "false", "null", "":
		*f = false
	default:
		return fmt.Errorf("not a boolean: %s", string(b))
	}
	return nil
}

// atoiOrZero parses the string ports cloudstack-go keeps as strings.
func atoiOrZero(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return n
}

// splitCIDRs splits CloudStack's comma-separated cidrlist.
func splitCIDRs(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// decodeFields decodes the JSON object b into the struct *v by the json
// tags of its fields, as encoding/json would, except that an int64 field
// takes any number flexInt reads and a bool field any flag flexBool reads:
// CloudStack sends some of them as strings. It returns the object's
// members, for what the tags cannot say.
func decodeFields(b []byte, v any) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		raw, ok := members[name]
		if !ok || name == "" || name == "-" {
			continue
		}
		if err := decodeField(raw, rv.Field(i)); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return members, nil
}

// decodeField decodes one member into a field.
func decodeField(raw json.RawMessage, field reflect.Value) error {
	switch field.Kind() {
	case reflect.Int64:
		var n flexInt
		if err := n.UnmarshalJSON(raw); err != nil {
			return err
		}
		field.SetInt(int64(n))
	case reflect.Bool:
		var b flexBool
		if err := b.UnmarshalJSON(raw); err != nil {
			return err
		}
		field.SetBool(bool(b))
	default:
		return json.Unmarshal(raw, field.Addr().Interface())
	}
	return nil
}
