package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// officialAttribute is one attribute of the official provider's
// cloudstack_kubernetes_cluster and what a move makes of it in cks_cluster.
type officialAttribute struct {
	name string
	// target is the cks_cluster attribute it corresponds to; "" when
	// cks_cluster has none, so the value is not carried over.
	target string
	// value is the target's value in the moved state; nil when another row
	// sets the target or there is nothing to carry.
	value func(v sourceValue, src officialState) attr.Value
}

// officialClusterAttributes is the whole mapping from
// cloudstack_kubernetes_cluster to cks_cluster, one row per official
// attribute; docs/guides/migrating-from-the-cloudstack-provider.md shows it.
//
// The move cannot reach CloudStack (the framework does not configure a
// resource for MoveResourceState), and it needs not: the refresh that
// Terraform and OpenTofu run on a moved resource before planning reads every
// attribute the API returns, by id. The official provider stores zone,
// kubernetes_version, service_offering, node_offerings and project as the user wrote
// them, a name or an id; an id is carried over, a name is left null for
// that refresh to fill in. What the API does not return (hypervisor,
// node_root_disk_size, the autoscaling settings when off) is carried over,
// so that the translated configuration plans nothing.
//
// To carry over an attribute cks_cluster gains, set target and value in its
// row; a write-only target (docker_registry_password) keeps no value.
var officialClusterAttributes = []officialAttribute{
	{name: "id", target: "id", value: moveString},
	{name: "name", target: "name", value: moveString},
	{name: "description", target: "description", value: moveString},
	{name: "zone", target: "zone_id", value: moveID},
	{name: "kubernetes_version", target: "kubernetes_version_id", value: moveID},
	{name: "service_offering", target: "service_offering_id", value: moveID},
	{name: "node_offerings", target: "control_offering_id", value: moveRoleOffering("control")},
	{name: "node_offerings", target: "worker_offering_id", value: moveRoleOffering("worker")},
	{name: "node_offerings", target: "etcd_offering_id", value: moveRoleOffering("etcd")},
	{name: "size", target: "size", value: moveInt},
	{name: "control_nodes_size", target: "control_nodes", value: moveInt},
	{name: "etcd_nodes_size", target: "etcd_nodes", value: moveInt},
	{name: "noderootdisksize", target: "node_root_disk_size", value: moveRootDiskSize},
	{name: "hypervisor", target: "hypervisor", value: moveString},
	{name: "keypair", target: "keypair", value: moveString},
	{name: "network_id", target: "network_id", value: moveString},
	{name: "ip_address", target: "ip_address", value: moveString},
	{name: "account", target: "account", value: moveString},
	{name: "domain_id", target: "domain_id", value: moveString},
	{name: "project", target: "project_id", value: moveID},
	{name: "state", target: "state", value: moveDesiredState},
	{name: "autoscaling_enabled", target: "autoscaling", value: moveAutoscaling},
	{name: "min_size", target: "autoscaling"},
	{name: "max_size", target: "autoscaling"},
	// Create-only inputs; CloudStack returns only cni_configuration_id, so
	// the others come from the official state or stay null.
	{name: "as_number", target: "as_number", value: func(v sourceValue, _ officialState) attr.Value {
		return positiveOrNull(v.int64Value())
	}},
	{name: "cni_config_details", target: "cni_config_details", value: moveStringMap},
	{name: "cni_configuration_id", target: "cni_configuration_id", value: moveID},
	{name: "docker_registry_url", target: "docker_registry_url", value: moveString},
	{name: "docker_registry_username", target: "docker_registry_username", value: moveString},
	// Write-only in cks_cluster: the cluster keeps it, the state never does.
	{name: "docker_registry_password", target: "docker_registry_password"},
	{name: "node_templates", target: "node_templates", value: moveTemplateIDs},
}

func moveString(v sourceValue, _ officialState) attr.Value { return v.stringValue() }

// moveID carries an id over; a name is left for the refresh to resolve.
func moveID(v sourceValue, _ officialState) attr.Value {
	s := v.stringValue()
	if s.IsNull() || !isUUID(s.ValueString()) {
		return types.StringNull()
	}
	return s
}

func moveInt(v sourceValue, _ officialState) attr.Value { return v.int64Value() }

// moveRoleOffering carries the offering id of one role in node_offerings.
func moveRoleOffering(role string) func(sourceValue, officialState) attr.Value {
	return func(v sourceValue, _ officialState) attr.Value {
		id := v.stringMap()[role]
		if !isUUID(id) {
			return types.StringNull()
		}
		return types.StringValue(id)
	}
}

// officialDefaultRootDiskSize is noderootdisksize's default in the official
// provider, which stores it whether or not the configuration sets it.
const officialDefaultRootDiskSize = 8

// moveRootDiskSize leaves the official default null: a configuration
// without node_root_disk_size then plans nothing, and null is what an
// import records, which a later value only records, never replaces. Any
// other size was configured and is carried over.
func moveRootDiskSize(v sourceValue, _ officialState) attr.Value {
	n := v.int64Value()
	if n.IsNull() || n.ValueInt64() == officialDefaultRootDiskSize {
		return types.Int64Null()
	}
	return n
}

// moveDesiredState: the official state is CloudStack's; cks_cluster's is
// the desired one, Running or Stopped (the refresh fills in any other).
func moveDesiredState(v sourceValue, _ officialState) attr.Value {
	s := v.stringValue()
	if s.ValueString() == clusterstate.Running || s.ValueString() == clusterstate.Stopped {
		return s
	}
	return types.StringNull()
}

// moveAutoscaling builds the autoscaling object from autoscaling_enabled,
// min_size and max_size; an autoscaler that is off is no object, as in a
// configuration without it.
func moveAutoscaling(v sourceValue, src officialState) attr.Value {
	if !v.boolValue() {
		return types.ObjectNull(autoscalingAttrTypes)
	}
	return autoscalingObject(autoscalingModel{
		Enabled: types.BoolValue(true),
		MinSize: positiveOrNull(src.value("min_size").int64Value()),
		MaxSize: positiveOrNull(src.value("max_size").int64Value()),
	})
}

// positiveOrNull: the official provider stores 0 for a size never set.
func positiveOrNull(n types.Int64) types.Int64 {
	if n.ValueInt64() <= 0 {
		return types.Int64Null()
	}
	return n
}

// moveStringMap carries a map of strings; an empty map is no map, as in a
// configuration without it.
func moveStringMap(v sourceValue, _ officialState) attr.Value { return stringMapOrNull(v.stringMap()) }

// moveTemplateIDs carries node_templates when every template is given by
// id. The official provider also takes names, which the move cannot resolve:
// the map then stays null, and the refresh after the move reads it from the
// VM map, as after an import (adoptImported).
func moveTemplateIDs(v sourceValue, src officialState) attr.Value {
	for _, id := range v.stringMap() {
		if !isUUID(id) {
			return types.MapNull(types.StringType)
		}
	}
	return moveStringMap(v, src)
}
