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
	"attribute": types.StringType,
	"live":      types.ListType{ElemType: types.StringType},
	"expected":  types.ListType{ElemType: types.StringType},
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
		"attribute": schema.StringAttribute{Computed: true, MarkdownDescription: "The `cks_cluster` attribute whose value " +
			"CloudStack does not have, for the findings about one: `ssh_cidrs` (`ssh_cidrs_mismatch`), `api_cidrs` " +
			"(`api_rule_mismatch`), `control_offering_id`, `worker_offering_id` or `etcd_offering_id` " +
			"(`vm_offering_mismatch`), `kubernetes_version` (`node_version_skew`); null for the others. With `live` and " +
			"`expected`, a policy that reads the plan tells a change the plan makes from drift: a finding whose cluster the " +
			"plan changes from `live` to `expected` is that change, not drift (the CKS policy library calls it pending)."},
		"live": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "What CloudStack " +
			"has for `attribute`: the rule's source CIDRs, the VM's offering id, or the versions the node reports, sorted; " +
			"null without `attribute`."},
		"expected": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "What the check " +
			"expected for `attribute`: its own `ssh_cidrs` or `api_cidrs` (`0.0.0.0/0` when not set), the offering " +
			"CloudStack records for the VM's role, or the cluster's Kubernetes version, sorted; null without `attribute`."},
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
		"attribute": stringOrNull(f.Attribute),
		"live":      stringsOrNull(f.Live),
		"expected":  stringsOrNull(f.Expected),
	}
}

// stringsOrNull is a list of strings, null when there are none.
func stringsOrNull(values []string) types.List {
	if len(values) == 0 {
		return types.ListNull(types.StringType)
	}
	elems := make([]attr.Value, 0, len(values))
	for _, v := range values {
		elems = append(elems, types.StringValue(v))
	}
	return types.ListValueMust(types.StringType, elems)
}

// maxListedDriftFindings keeps a diagnostic readable on a badly drifted cluster;
// the findings output always has them all.
const maxListedDriftFindings = 50

// driftKindsMarkdown lists the finding kinds as package drift defines them.
var driftKindsMarkdown = drift.KindsMarkdown()
