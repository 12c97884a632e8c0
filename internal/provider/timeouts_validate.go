package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// positiveTimeouts refuses, at plan time, a timeouts value that is not a
// Go duration, or is zero or below ("0s" and "-5m" parse, but a wait
// bounded by them ends before it starts, after the create, update or
// delete request was sent). Each problem is reported against
// timeouts.<operation> and names it; the timeouts package's own validator,
// whose message names no timeout, is left out of the schema.
//
// The cks_cluster resource's schema adds it to the timeouts attribute.
// Hand-written: the timeouts package takes no validators for its nested
// attributes, and its values are plain strings, not timetypes.GoDuration.
func positiveTimeouts() validator.Object { return positiveTimeoutsValidator{} }

type positiveTimeoutsValidator struct{}

var _ validator.Object = positiveTimeoutsValidator{}

func (positiveTimeoutsValidator) Description(context.Context) string {
	return "every timeout must be a duration longer than zero, such as 90m"
}

func (v positiveTimeoutsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (positiveTimeoutsValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	for _, name := range []string{"create", "read", "update", "delete"} {
		value, ok := attrs[name].(types.String)
		if !ok || !known(value) {
			continue
		}
		d, err := time.ParseDuration(strings.TrimSpace(value.ValueString()))
		if err != nil {
			resp.Diagnostics.AddAttributeError(req.Path.AtName(name), "Invalid Timeout",
				fmt.Sprintf("timeouts.%s is %q, which is not a duration: use a number with a unit, such as \"90m\" or "+
					"\"1h30m\" (units: h, m, s). Or remove it to use the default.", name, value.ValueString()))
			continue
		}
		if problem := durationSignProblem(d, false); problem != "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtName(name), "Invalid Timeout",
				fmt.Sprintf("timeouts.%s is %q: %s. Use a duration longer than zero, such as \"90m\": "+
					"a wait bounded by it would give up before the operation could finish. Or remove it to use the default.",
					name, value.ValueString(), problem))
		}
	}
}

// operationTimeouts is the timeouts attribute of a resource with create,
// update and delete timeouts, checked by positiveTimeouts.
func operationTimeouts(ctx context.Context, description string) schema.Attribute {
	attr := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true})
	nested, ok := attr.(schema.SingleNestedAttribute)
	if !ok {
		return attr
	}
	nested.Validators = append(nested.Validators, positiveTimeouts())
	for name, a := range nested.Attributes {
		if s, ok := a.(schema.StringAttribute); ok {
			s.Validators = nil // positiveTimeouts checks the syntax too, naming the timeout
			nested.Attributes[name] = s
		}
	}
	nested.MarkdownDescription = description
	return nested
}
