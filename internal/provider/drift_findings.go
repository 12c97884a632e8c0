package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The findings list both drift data sources record.

// driftFindingAttrTypes is the object type of one finding.
var driftFindingAttrTypes = map[string]attr.Type{
	"kind":      types.StringType,
	"vm_id":     types.StringType,
	"vm_name":   types.StringType,
	"vm_state":  types.StringType,
	"node_name": types.StringType,
	"rule_id":   types.StringType,
	"message":   types.StringType,
}

// driftFindingAttributes are the attributes of one finding.
func driftFindingAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kind":      schema.StringAttribute{Computed: true, MarkdownDescription: "Finding kind, one of:" + driftKindsMarkdown},
		"vm_id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the VM concerned."},
		"vm_name":   schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the VM concerned."},
		"vm_state":  schema.StringAttribute{Computed: true, MarkdownDescription: "State of the VM concerned."},
		"node_name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the Kubernetes node concerned."},
		"rule_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the firewall rule or port forward concerned."},
		"message":   schema.StringAttribute{Computed: true, MarkdownDescription: "What is wrong, in words."},
	}
}

// driftFindingsValue renders findings as a list of objects; empty fields are null.
func driftFindingsValue(fs []drift.Finding) (types.List, diag.Diagnostics) {
	objType := types.ObjectType{AttrTypes: driftFindingAttrTypes}
	values := make([]attr.Value, 0, len(fs))
	var diags diag.Diagnostics
	for _, f := range fs {
		obj, d := types.ObjectValue(driftFindingAttrTypes, driftFindingAttrValues(f))
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(objType, values)
	diags.Append(d...)
	return list, diags
}

// driftFindingAttrValues are the attributes of one finding.
func driftFindingAttrValues(f drift.Finding) map[string]attr.Value {
	return map[string]attr.Value{
		"kind":      types.StringValue(f.Kind),
		"vm_id":     stringOrNull(f.VMID),
		"vm_name":   stringOrNull(f.VMName),
		"vm_state":  stringOrNull(f.VMState),
		"node_name": stringOrNull(f.NodeName),
		"rule_id":   stringOrNull(f.RuleID),
		"message":   types.StringValue(f.Message),
	}
}

// maxListedDriftFindings keeps a diagnostic readable on a badly drifted cluster;
// the findings output always has them all.
const maxListedDriftFindings = 50

// driftKindsMarkdown lists the finding kinds as package drift defines them.
var driftKindsMarkdown = drift.KindsMarkdown()
