package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// replacingAttributes evaluates the plan modifiers of some attribute
// kinds only: a modifier on another kind, or on a nested attribute, would
// let a replacement of a protected cluster through the plan.
func TestDeletionProtectionSeesEveryPlanModifier(t *testing.T) {
	t.Parallel()
	var resp resource.SchemaResponse
	(&clusterResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	evaluated := 0
	for name, a := range resp.Schema.Attributes {
		kind, modifiers := attributeModifiers(a)
		if modifiers > 0 && !slices.Contains(modifiedKinds, kind) {
			t.Errorf("attribute %s (%s) has plan modifiers that refuseDeletion does not evaluate", name, kind)
		}
		if modifiers > 0 {
			evaluated++
		}
		if nested, ok := a.(schema.SingleNestedAttribute); ok {
			for sub, na := range nested.Attributes {
				if _, n := attributeModifiers(na); n > 0 {
					t.Errorf("nested attribute %s.%s has plan modifiers that refuseDeletion does not evaluate", name, sub)
				}
			}
		}
	}
	if evaluated < 10 {
		t.Fatalf("only %d attributes with plan modifiers: the walk saw nothing", evaluated)
	}
}

func attributeModifiers(a schema.Attribute) (kind string, n int) {
	switch a := a.(type) {
	case schema.StringAttribute:
		return "String", len(a.PlanModifiers)
	case schema.Int64Attribute:
		return "Int64", len(a.PlanModifiers)
	case schema.BoolAttribute:
		return "Bool", len(a.PlanModifiers)
	case schema.MapAttribute:
		return "Map", len(a.PlanModifiers)
	case schema.ListAttribute:
		return "List", len(a.PlanModifiers)
	case schema.ListNestedAttribute:
		return "ListNested", len(a.PlanModifiers)
	case schema.SetAttribute:
		return "Set", len(a.PlanModifiers)
	case schema.SingleNestedAttribute:
		return "SingleNested", len(a.PlanModifiers)
	case schema.ObjectAttribute:
		return "Object", len(a.PlanModifiers)
	case schema.Float64Attribute:
		return "Float64", len(a.PlanModifiers)
	case schema.NumberAttribute:
		return "Number", len(a.PlanModifiers)
	}
	return "unknown", 1
}

// A delete no plan refused (terraform apply -replace) is refused at apply.
func TestProtectedClusterIsNotDeleted(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	m := clusterResourceModel{DeletionProtection: types.BoolValue(true)}
	m.ID = types.StringValue("c-1")
	if !refuseProtectedDelete(&m, &diags) || !diags.HasError() ||
		!strings.Contains(diags[0].Detail(), "Cluster c-1 has deletion_protection = true, so it was not deleted") {
		t.Fatalf("protected: %v", diags)
	}
	diags = nil
	m.DeletionProtection = types.BoolValue(false)
	if refuseProtectedDelete(&m, &diags) || diags.HasError() {
		t.Fatalf("unprotected: %v", diags)
	}
}
