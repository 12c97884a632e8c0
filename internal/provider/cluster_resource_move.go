package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithMoveState = (*clusterResource)(nil)

// officialClusterType is the official CloudStack provider's cluster resource.
const officialClusterType = "cloudstack_kubernetes_cluster"

// officialProviderAddresses are the official provider's addresses in
// Terraform's and OpenTofu's registries, and its bare local name, which
// OpenTofu releases before 1.12.4 send instead of the address.
var officialProviderAddresses = []string{
	"registry.terraform.io/cloudstack/cloudstack",
	"registry.opentofu.org/cloudstack/cloudstack",
	"cloudstack",
}

// MoveState lets a moved block turn a cloudstack_kubernetes_cluster of the
// official provider into a cks_cluster, keeping the cluster.
func (r *clusterResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: moveOfficialCluster}}
}

// moveOfficialCluster answers moves from cloudstack_kubernetes_cluster and
// leaves any other source to the framework's "not supported" error.
func moveOfficialCluster(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	src, ok := readOfficialSource(req, resp, officialClusterType, "cks_cluster")
	if !ok {
		return
	}
	values, diags := mapOfficialCluster(src)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	setMovedValues(ctx, values, resp)
	// The refresh after the move reads what an import reads, node templates
	// given by name included. (TargetPrivate is nil only when the move is
	// called outside the framework, as the mapping's unit tests do.)
	if resp.TargetPrivate != nil {
		resp.Diagnostics.Append(resp.TargetPrivate.SetKey(ctx, privateImported, []byte(`true`))...)
	}
}

// readOfficialSource checks a move's source: the official provider's
// sourceType, with its state. ok is false when the move is not this one's
// (another type: the framework then says it is not supported) or failed.
func readOfficialSource(req resource.MoveStateRequest, resp *resource.MoveStateResponse, sourceType, target string) (officialState, bool) {
	if req.SourceTypeName != sourceType {
		return nil, false
	}
	if !slices.Contains(officialProviderAddresses, req.SourceProviderAddress) {
		resp.Diagnostics.AddError("Unsupported Source Provider",
			fmt.Sprintf("%s moves a %s only from the official CloudStack provider (%s), not from %q.", target,
				sourceType, strings.Join(officialProviderAddresses[:2], " or "), req.SourceProviderAddress))
		return nil, false
	}
	if req.SourceRawState == nil {
		resp.Diagnostics.AddError("Missing Source State", "The move of a "+sourceType+" came without its state.")
		return nil, false
	}
	src, err := decodeOfficialState(req.SourceRawState.JSON)
	if err != nil {
		resp.Diagnostics.AddError("Unreadable Source State", fmt.Sprintf("Moving a %s: %s.", sourceType, err))
		return nil, false
	}
	return src, true
}

// movedID is the id of an official state, or an error on resp when it
// names no object.
func movedID(src officialState, resp *resource.MoveStateResponse, target, what string) (types.String, bool) {
	id := src.value("id").stringValue()
	if id.IsNull() {
		resp.Diagnostics.AddError(titleCase(what)+" Cannot Move to "+target, "id is empty: the source state names no "+what+".")
	}
	return id, !id.IsNull()
}

// setMovedValues sets the moved attributes, in a stable order; the others
// stay null until the refresh after the move.
func setMovedValues(ctx context.Context, values map[string]attr.Value, resp *resource.MoveStateResponse) {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		resp.Diagnostics.Append(resp.TargetState.SetAttribute(ctx, path.Root(name), values[name])...)
	}
}

// mapOfficialCluster maps an official state onto cks_cluster attributes
// through officialClusterAttributes. It refuses a state without an id, and
// warns about the values it does not carry over.
func mapOfficialCluster(src officialState) (map[string]attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	values := map[string]attr.Value{}
	known := map[string]bool{}
	var dropped []string
	for _, a := range officialClusterAttributes {
		known[a.name] = true
		v := src.value(a.name)
		switch {
		case a.value != nil:
			values[a.target] = a.value(v, src)
		case a.target == "" && !v.empty():
			dropped = append(dropped, a.name)
		}
	}
	for name, v := range src {
		if !known[name] && !sourceValue(v).empty() {
			dropped = append(dropped, name)
		}
	}
	if id := values["id"]; id == nil || id.IsNull() {
		diags.AddError("Cluster Cannot Move to cks_cluster", "id is empty: the source state names no cluster.")
	}
	if len(dropped) > 0 {
		slices.Sort(dropped)
		diags.AddWarning("Attributes Not Carried Over",
			fmt.Sprintf("cks_cluster has no attribute for %s of %s, so the move drops them from the state. The "+
				"cluster keeps what it was created with, but a cluster that cks_cluster creates in its place later "+
				"is created without them.", strings.Join(dropped, ", "), officialClusterType))
	}
	return values, diags
}
