package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestPositiveTimeouts(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType}
	obj := func(create, update, del attr.Value) types.Object {
		v, diags := types.ObjectValue(attrTypes, map[string]attr.Value{"create": create, "update": update, "delete": del})
		if diags.HasError() {
			t.Fatal(diags)
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		value types.Object
		want  []string // paths with an error, in order
	}{
		{"zero and negative", obj(types.StringValue("0s"), types.StringValue("-5m"), types.StringValue("90m")),
			[]string{"timeouts.create", "timeouts.update"}},
		{"all positive", obj(types.StringValue("1s"), types.StringNull(), types.StringValue("2h")), nil},
		{"unparsable", obj(types.StringValue("soon"), types.StringNull(), types.StringNull()), []string{"timeouts.create"}},
		{"unknown", obj(types.StringUnknown(), types.StringNull(), types.StringValue("0m")), []string{"timeouts.delete"}},
		{"null object", types.ObjectNull(attrTypes), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var resp validator.ObjectResponse
			positiveTimeouts().ValidateObject(context.Background(),
				validator.ObjectRequest{Path: path.Root("timeouts"), ConfigValue: tc.value}, &resp)
			var got []string
			for _, d := range resp.Diagnostics.Errors() {
				if d.Summary() != "Invalid Timeout" {
					t.Errorf("summary %q", d.Summary())
				}
				if p, ok := d.(interface{ Path() path.Path }); ok {
					got = append(got, p.Path().String())
				}
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) || (len(got) > 1 && got[1] != tc.want[1]) {
				t.Fatalf("errors at %v, want %v: %v", got, tc.want, resp.Diagnostics)
			}
		})
	}
}
