package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// What CloudStack derives: the node offerings it records on its own. They
// are planned as CloudStack will write them when the provider knows,
// unknown when it cannot, and never fail an apply (unmetPlan, in
// cluster_resource_requests.go, reports them apart from what the
// configuration asks for).

// roleOfferingAttr is one node type's offering attribute in a model.
type roleOfferingAttr struct {
	role, name string
	value      *types.String
}

func roleOfferingsOf(m *clusterResourceModel) []roleOfferingAttr {
	return []roleOfferingAttr{
		{"control", "control_offering_id", &m.ControlOfferingID},
		{"worker", "worker_offering_id", &m.WorkerOfferingID},
		{"etcd", "etcd_offering_id", &m.EtcdOfferingID},
	}
}

// planScaleOfferings plans the node offerings a size change leaves, for
// the node types whose offering the configuration does not set: the scale
// names the workers' current offering so that it changes none, and
// CloudStack records that offering as the cluster's worker offering
// (clusterops.ScaleCheck.OfferingWrites). Without the scale's pre-flight
// the value is unknown. A value already unknown (the service offering
// changes first) stays so.
func planScaleOfferings(scale *clusterops.ScaleCheck, plan, state, cfg *clusterResourceModel, diags *diag.Diagnostics) {
	configured, prior := roleOfferingsOf(cfg), roleOfferingsOf(state)
	for i, o := range roleOfferingsOf(plan) {
		if !configured[i].value.IsNull() || o.value.IsUnknown() {
			continue
		}
		if scale == nil {
			*o.value = types.StringUnknown()
			continue
		}
		written := scale.OfferingWrites[o.role]
		if written == "" || prior[i].value.Equal(types.StringValue(written)) {
			continue
		}
		*o.value = types.StringValue(written)
		diags.AddAttributeWarning(path.Root(o.name), "Offering Recorded by the Scale", fmt.Sprintf("%s: CloudStack records "+
			"the offering the scale keeps, %s, which the %s nodes run: the size change names it so that no node changes "+
			"offering, and CloudStack writes it as the cluster's %s offering.", o.name, written, o.role, o.role))
	}
}

// plannedOfferings are the planned node offerings of the node types whose
// offering the configuration leaves to CloudStack, when the plan knows
// them: a scale that would leave others stops before any change.
func plannedOfferings(plan, cfg *clusterResourceModel) clusterops.OfferingWrites {
	out := clusterops.OfferingWrites{}
	configured := roleOfferingsOf(cfg)
	for i, o := range roleOfferingsOf(plan) {
		if configured[i].value.IsNull() && known(*o.value) {
			out[o.role] = o.value.ValueString()
		}
	}
	return out
}
