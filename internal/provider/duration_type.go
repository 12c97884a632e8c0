package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// durationType is timetypes.GoDurationType with one error for a value that
// is not a duration, naming the attribute. timetypes' own error puts a
// literal "\n\n" and the parser's "Error: time: invalid duration" into its
// detail, which reads as a second, unattributed error.
type durationType struct{ timetypes.GoDurationType }

var _ basetypes.StringTypable = durationType{}

func (t durationType) Equal(o attr.Type) bool {
	_, ok := o.(durationType)
	return ok
}

func (t durationType) String() string { return "durationType" }

func (t durationType) ValueType(context.Context) attr.Value { return durationValue{} }

func (t durationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return durationValue{GoDuration: timetypes.GoDuration{StringValue: in}}, nil
}

func (t durationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type of %T", v)
	}
	return durationValue{GoDuration: timetypes.GoDuration{StringValue: s}}, nil
}

// durationValue is a value of durationType.
type durationValue struct{ timetypes.GoDuration }

var _ xattr.ValidateableAttribute = durationValue{}

func (v durationValue) Type(context.Context) attr.Type { return durationType{} }

func (v durationValue) Equal(o attr.Value) bool {
	other, ok := o.(durationValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v durationValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if !known(v.StringValue) {
		return
	}
	if _, err := time.ParseDuration(v.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration", fmt.Sprintf("%s is %q, which is not a duration: use a "+
			"number with a unit, such as \"15m\", \"30s\" or \"1h30m\" (units: h, m, s, ms).", req.Path, v.ValueString()))
	}
}

func newDuration(s string) durationValue {
	return durationValue{GoDuration: timetypes.NewGoDurationValueFromStringMust(s)}
}

// StringSemanticEquals is GoDuration's: "60m" equals "1h".
func (v durationValue) StringSemanticEquals(ctx context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(durationValue)
	if !ok {
		return false, nil
	}
	return v.GoDuration.StringSemanticEquals(ctx, other.GoDuration)
}
