package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// officialVersionType is the official CloudStack provider's version resource.
const officialVersionType = "cloudstack_kubernetes_version"

// MoveState lets a moved block turn a cloudstack_kubernetes_version of the
// official provider into a cks_kubernetes_version, keeping the version.
func (r *kubernetesVersionResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: moveOfficialVersion}}
}

// moveOfficialVersion maps the official state (semantic_version, url,
// min_cpu, min_memory, name, zone, checksum, state). The official provider
// stores zone as configured, a name or an id: an id is kept, a name left
// for the refresh after the move, which reads zone_id, direct_download,
// arch and the ISO from CloudStack.
func moveOfficialVersion(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	src, ok := readOfficialSource(req, resp, officialVersionType, "cks_kubernetes_version")
	if !ok {
		return
	}
	id, ok := movedID(src, resp, "cks_kubernetes_version", "Kubernetes version")
	if !ok {
		return
	}
	zone := src.value("zone").stringValue()
	if !isUUID(zone.ValueString()) {
		zone = types.StringNull()
	}
	state := src.value("state").stringValue()
	if state.IsNull() {
		state = types.StringValue(versionEnabled)
	}
	setMovedValues(ctx, map[string]attr.Value{
		"id":               id,
		"semantic_version": src.value("semantic_version").stringValue(),
		"url":              src.value("url").stringValue(),
		"min_cpu_number":   src.value("min_cpu").int64Value(),
		"min_memory":       src.value("min_memory").int64Value(),
		"name":             src.value("name").stringValue(),
		"zone_id":          zone,
		"checksum":         src.value("checksum").stringValue(),
		"state":            state,
	}, resp)
}
