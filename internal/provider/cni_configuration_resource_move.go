package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// officialCNIType is the official CloudStack provider's CNI configuration
// resource.
const officialCNIType = "cloudstack_cni_configuration"

// MoveState lets a moved block turn a cloudstack_cni_configuration of the
// official provider into a cks_cni_configuration, keeping it.
func (r *cniConfigurationResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: moveOfficialCNI}}
}

// moveOfficialCNI maps the official state, whose attributes have the same
// names: name, cni_config (as CloudStack returned it), params (a set),
// account, domain_id and project_id (stored only when configured; the
// refresh after the move reads the owner).
func moveOfficialCNI(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	src, ok := readOfficialSource(req, resp, officialCNIType, "cks_cni_configuration")
	if !ok {
		return
	}
	id, ok := movedID(src, resp, "cks_cni_configuration", "CNI configuration")
	if !ok {
		return
	}
	params := types.SetNull(types.StringType)
	var names []string
	if json.Unmarshal(src["params"], &names) == nil && len(names) > 0 {
		var diags diag.Diagnostics
		params, diags = types.SetValueFrom(ctx, types.StringType, names)
		resp.Diagnostics.Append(diags...)
	}
	setMovedValues(ctx, map[string]attr.Value{
		"id":         id,
		"name":       src.value("name").stringValue(),
		"cni_config": src.value("cni_config").stringValue(),
		"params":     params,
		"account":    src.value("account").stringValue(),
		"domain_id":  src.value("domain_id").stringValue(),
		"project_id": src.value("project_id").stringValue(),
	}, resp)
}
