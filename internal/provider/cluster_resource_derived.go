package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// What the configuration asks of a cluster and what CloudStack derives.
// An apply verifies the first: a value the configuration sets that
// CloudStack does not report afterwards is an error. The second is planned
// as CloudStack will write it when the provider knows, unknown when it
// cannot, and never fails an apply.

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

// plannedValue is an attribute the apply verifies against the plan.
type plannedValue struct {
	name         string
	planned, got attr.Value
	// intent: the configuration sets it (or it is the provider's own
	// target, such as the state or the rule layout).
	intent bool
	// keep sets the value in the recorded model back to the planned one.
	keep func()
}

// unmetPlan sorts the planned values CloudStack does not report after an
// update that seemed to succeed: those the configuration asks for
// (unmet), and those CloudStack derives (derived). A derived value the
// plan knew is kept as planned in got, since Terraform takes a planned
// value as a promise; the refresh before the next plan records
// CloudStack's.
func unmetPlan(planned clusterResourceModel, got *clusterResourceModel, cfg clusterResourceModel) (unmet, derived []plannedValue) {
	values := []plannedValue{
		{name: "state", planned: planned.State, got: got.State, intent: true},
		{name: "size", planned: planned.Size, got: got.Size, intent: true},
		{name: "kubernetes_version_id", planned: planned.KubernetesVersionID, got: got.KubernetesVersionID, intent: true},
		{name: "autoscaling", planned: planned.Autoscaling, got: got.Autoscaling, intent: true},
		// Rules in sync when the plan expected a user's rule in the way
		// (it was changed meanwhile) are good news, not a failure.
		{name: "ssh_rules_in_sync", planned: planned.SSHRulesInSync, got: got.SSHRulesInSync, intent: planned.SSHRulesInSync.ValueBool(),
			keep: func() { got.SSHRulesInSync = planned.SSHRulesInSync }},
		{name: "service_offering_id", planned: planned.ServiceOfferingID, got: got.ServiceOfferingID,
			intent: !cfg.ServiceOfferingID.IsNull(), keep: func() { got.ServiceOfferingID = planned.ServiceOfferingID }},
	}
	configured, reported := roleOfferingsOf(&cfg), roleOfferingsOf(got)
	for i, o := range roleOfferingsOf(&planned) {
		field, want := reported[i].value, *o.value
		values = append(values, plannedValue{name: o.name, planned: want, got: *field,
			intent: !configured[i].value.IsNull(), keep: func() { *field = want }})
	}
	for _, v := range values {
		if v.planned.IsUnknown() || v.planned.Equal(v.got) {
			continue
		}
		if v.intent {
			unmet = append(unmet, v)
			continue
		}
		v.keep()
		derived = append(derived, v)
	}
	return unmet, derived
}

// describeValues words planned values as "name got (planned p)".
func describeValues(values []plannedValue) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, fmt.Sprintf("%s %s (planned %s)", v.name, v.got, v.planned))
	}
	return strings.Join(parts, ", ")
}
