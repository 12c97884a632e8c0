package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// driftIgnoreModel is one element of ignore.
type driftIgnoreModel struct {
	Kind        types.String `tfsdk:"kind"`
	VMName      types.String `tfsdk:"vm_name"`
	NodeName    types.String `tfsdk:"node_name"`
	ClusterName types.String `tfsdk:"cluster_name"`
	Reason      types.String `tfsdk:"reason"`
	Expires     types.String `tfsdk:"expires"`
}

func (m driftIgnoreModel) known() bool {
	for _, v := range []types.String{m.Kind, m.VMName, m.NodeName, m.ClusterName, m.Reason, m.Expires} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func (m driftIgnoreModel) spec() drift.IgnoreSpec {
	return drift.IgnoreSpec{Kind: m.Kind.ValueString(), VMName: m.VMName.ValueString(), NodeName: m.NodeName.ValueString(),
		ClusterName: m.ClusterName.ValueString(), Reason: m.Reason.ValueString(), Expires: m.Expires.ValueString(),
		ExpiresSet: !m.Expires.IsNull()}
}

// driftIgnoreFieldPaths names the attribute of each field of a rule.
var driftIgnoreFieldPaths = map[string]string{
	drift.IgnoreFieldKind: "kind", drift.IgnoreFieldVMName: "vm_name", drift.IgnoreFieldNodeName: "node_name",
	drift.IgnoreFieldClusterName: "cluster_name", drift.IgnoreFieldReason: "reason", drift.IgnoreFieldExpires: "expires",
}

// compileDriftIgnore turns the ignore rules into the check's, each problem
// reported against its attribute. With partial, rules with a value not
// known yet are left out (plan-time validation); otherwise every rule must
// be known.
func compileDriftIgnore(ctx context.Context, list types.List, partial bool) ([]drift.IgnoreRule, diag.Diagnostics) {
	var diags diag.Diagnostics
	if list.IsNull() || list.IsUnknown() {
		return nil, diags
	}
	var models []driftIgnoreModel
	if diags.Append(list.ElementsAs(ctx, &models, false)...); diags.HasError() {
		return nil, diags
	}
	rules := make([]drift.IgnoreRule, 0, len(models))
	for i, m := range models {
		at := path.Root("ignore").AtListIndex(i)
		if !m.known() {
			if !partial {
				diags.AddAttributeError(at, "Unknown Ignore Rule", "ignore["+fmt.Sprint(i)+"] is not known when the check runs.")
			}
			continue
		}
		rule, problems := drift.CompileIgnore(m.spec())
		for _, p := range problems {
			where := at
			if name := driftIgnoreFieldPaths[p.Field]; name != "" {
				where = at.AtName(name)
			}
			diags.AddAttributeError(where, "Invalid Ignore Rule", where.String()+": "+p.Err.Error())
		}
		rules = append(rules, rule)
	}
	return rules, diags
}

// driftIgnoredValue renders the ignored findings.
func driftIgnoredValue(ignored []drift.IgnoredFinding) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	values := make([]attr.Value, 0, len(ignored))
	for _, f := range ignored {
		attrs := driftFindingAttrValues(f.Finding)
		attrs["reason"] = types.StringValue(f.Reason)
		attrs["expires"] = stringOrNull(f.Expires)
		attrs["ignore_index"] = types.Int64Value(int64(f.Rule))
		obj, d := types.ObjectValue(driftIgnoredFindingAttrTypes, attrs)
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: driftIgnoredFindingAttrTypes}, values)
	diags.Append(d...)
	return list, diags
}

// driftIgnoreStatusValue reports what each rule did.
func driftIgnoreStatusValue(rules []drift.IgnoreRule, uses []drift.RuleUse) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	values := make([]attr.Value, 0, len(rules))
	for i, r := range rules {
		var u drift.RuleUse
		if i < len(uses) {
			u = uses[i]
		}
		obj, d := types.ObjectValue(driftIgnoreStatusAttrTypes, map[string]attr.Value{
			"status":          types.StringValue(ignoreStatus(u)),
			"matched":         types.Int64Value(int64(u.Matched)),
			"expired_matches": types.Int64Value(int64(u.ExpiredMatches)),
			"reason":          types.StringValue(r.Reason),
		})
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: driftIgnoreStatusAttrTypes}, values)
	diags.Append(d...)
	return list, diags
}

func ignoreStatus(u drift.RuleUse) string {
	switch {
	case u.Expired:
		return ignoreStatusExpired
	case u.Matched == 0 && u.Shadowed > 0:
		return ignoreStatusShadowed
	case u.Matched == 0:
		return ignoreStatusStale
	}
	return ignoreStatusActive
}
