package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The sign rules of timetypes.GoDuration attributes. The type itself rejects
// what is not a Go duration; neither it nor the validators module bounds the
// value, so these small validators do.

// durationNotNegative accepts zero: a grace period of none.
func durationNotNegative() validator.String { return durationSignValidator{allowZero: true} }

// durationLongerThanZero refuses zero too: a zero bound ends a wait before
// it starts.
func durationLongerThanZero() validator.String { return durationSignValidator{} }

type durationSignValidator struct{ allowZero bool }

var _ validator.String = durationSignValidator{}

func (v durationSignValidator) Description(context.Context) string {
	if v.allowZero {
		return "value must be a duration of zero or more, such as 15m"
	}
	return "value must be a duration longer than zero, such as 30s"
}

func (v durationSignValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v durationSignValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	value := req.ConfigValue.ValueString()
	d, err := time.ParseDuration(value)
	if err != nil {
		return // the GoDuration type explains the syntax
	}
	rule := durationSignProblem(d, v.allowZero)
	if rule == "" {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
		fmt.Sprintf("%s is %q: %s; %s.", req.Path, value, rule, v.Description(context.Background())))
}

// durationSignProblem says what is wrong with the sign of d, or "".
func durationSignProblem(d time.Duration, allowZero bool) string {
	switch {
	case d < 0:
		return "it is negative"
	case d == 0 && !allowZero:
		return "it must be longer than zero"
	}
	return ""
}

// checkedDuration is the duration of a known value, with the diagnostics
// of the type's validation and of rule when it is bad.
func checkedDuration(ctx context.Context, v durationValue, at path.Path, rule validator.String) (time.Duration, diag.Diagnostics) {
	var typeCheck xattr.ValidateAttributeResponse
	v.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: at}, &typeCheck)
	var ruleCheck validator.StringResponse
	rule.ValidateString(ctx, validator.StringRequest{Path: at, ConfigValue: v.StringValue}, &ruleCheck)
	diags := append(typeCheck.Diagnostics, ruleCheck.Diagnostics...)
	if diags.HasError() {
		return 0, diags
	}
	d, more := v.ValueGoDuration()
	return d, append(diags, more...)
}
