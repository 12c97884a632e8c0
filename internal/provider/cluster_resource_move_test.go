package provider

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

const (
	zoneUUID     = "0b7e1c52-6d3f-4a57-9d2a-3f1c7a2e9b10"
	versionUUID  = "5e2f8a1d-1c4b-4e7a-8b3c-9d0e1f2a3b4c"
	offeringUUID = "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d"
	workerUUID   = "11111111-2222-4333-8444-555555555555"
	clusterUUID  = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
)

// officialAttributeNames is cloudstack_kubernetes_cluster's schema in the
// official provider (cloudstack/resource_cloudstack_kubernetes_cluster.go),
// plus the id every SDKv2 resource has.
var officialAttributeNames = []string{
	"id", "name", "zone", "kubernetes_version", "service_offering", "size", "autoscaling_enabled", "min_size",
	"max_size", "control_nodes_size", "description", "keypair", "network_id", "ip_address", "state", "account",
	"domain_id", "project", "noderootdisksize", "docker_registry_url", "docker_registry_username",
	"docker_registry_password", "as_number", "cni_config_details", "cni_configuration_id", "etcd_nodes_size",
	"hypervisor", "node_offerings", "node_templates",
}

func mapJSON(t *testing.T, js string) (map[string]attr.Value, diag.Diagnostics) {
	t.Helper()
	src, err := decodeOfficialState([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return mapOfficialCluster(src)
}

func TestMoveMapsEveryOfficialAttributeOntoCksClusterAttributes(t *testing.T) {
	t.Parallel()
	var resp resource.SchemaResponse
	(&clusterResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	var names []string
	for _, a := range officialClusterAttributes {
		names = append(names, a.name)
		if _, ok := resp.Schema.Attributes[a.target]; a.target != "" && !ok {
			t.Errorf("%s maps to %s, which cks_cluster does not have", a.name, a.target)
		}
		if a.value != nil && a.target == "" {
			t.Errorf("%s has a value but no target", a.name)
		}
	}
	for _, n := range officialAttributeNames {
		if !slices.Contains(names, n) {
			t.Errorf("official attribute %s has no row in officialClusterAttributes", n)
		}
	}
}

func TestMoveCarriesIDsAndLeavesNamesToTheRefresh(t *testing.T) {
	t.Parallel()
	byID, diags := mapJSON(t, `{"id":"`+clusterUUID+`","name":"c","zone":"`+zoneUUID+`","kubernetes_version":"`+versionUUID+`",
		"service_offering":"`+offeringUUID+`","node_offerings":{"worker":"`+workerUUID+`","control":"big"}}`)
	if diags.HasError() {
		t.Fatal(diags)
	}
	for target, want := range map[string]attr.Value{
		"id": types.StringValue(clusterUUID), "zone_id": types.StringValue(zoneUUID),
		"kubernetes_version_id": types.StringValue(versionUUID), "service_offering_id": types.StringValue(offeringUUID),
		"worker_offering_id": types.StringValue(workerUUID), "control_offering_id": types.StringNull(),
		"etcd_offering_id": types.StringNull(),
	} {
		if !byID[target].Equal(want) {
			t.Errorf("%s = %v, want %v", target, byID[target], want)
		}
	}
	byName, _ := mapJSON(t, `{"id":"`+clusterUUID+`","zone":"zone-1","kubernetes_version":"v1.33.13","service_offering":"Medium"}`)
	for _, target := range []string{"zone_id", "kubernetes_version_id", "service_offering_id"} {
		if !byName[target].IsNull() {
			t.Errorf("%s = %v from a name, want null for the refresh to fill in", target, byName[target])
		}
	}
}

func TestMoveBuildsAutoscalingOnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	on, _ := mapJSON(t, `{"id":"`+clusterUUID+`","autoscaling_enabled":true,"min_size":1,"max_size":4,"size":2}`)
	want := autoscalingObject(autoscalingModel{Enabled: types.BoolValue(true), MinSize: types.Int64Value(1), MaxSize: types.Int64Value(4)})
	if !on["autoscaling"].Equal(want) {
		t.Errorf("autoscaling = %v, want %v", on["autoscaling"], want)
	}
	off, _ := mapJSON(t, `{"id":"`+clusterUUID+`","autoscaling_enabled":false,"min_size":0,"max_size":0,"size":2}`)
	if !off["autoscaling"].IsNull() || !off["size"].Equal(types.Int64Value(2)) {
		t.Errorf("autoscaling off: autoscaling = %v, size = %v; want null and 2", off["autoscaling"], off["size"])
	}
}

func TestMoveLeavesMissingOptionalAttributesNull(t *testing.T) {
	t.Parallel()
	got, diags := mapJSON(t, `{"id":"`+clusterUUID+`","name":"c","keypair":"","network_id":null,"noderootdisksize":8,
		"state":"Alert","etcd_nodes_size":0}`)
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	for _, target := range []string{"keypair", "network_id", "hypervisor", "node_root_disk_size", "state", "description", "account"} {
		if !got[target].IsNull() {
			t.Errorf("%s = %v, want null", target, got[target])
		}
	}
	if !got["etcd_nodes"].Equal(types.Int64Value(0)) {
		t.Errorf("etcd_nodes = %v, want 0", got["etcd_nodes"])
	}
	set, _ := mapJSON(t, `{"id":"`+clusterUUID+`","noderootdisksize":20,"hypervisor":"KVM","state":"Stopped"}`)
	for target, want := range map[string]attr.Value{
		"node_root_disk_size": types.Int64Value(20), "hypervisor": types.StringValue("KVM"), "state": types.StringValue("Stopped"),
	} {
		if !set[target].Equal(want) {
			t.Errorf("%s = %v, want %v", target, set[target], want)
		}
	}
}

func TestMoveWarnsAboutAttributesItDrops(t *testing.T) {
	t.Parallel()
	values, diags := mapJSON(t, `{"id":"`+clusterUUID+`","docker_registry_url":"https://r","docker_registry_password":"s3cret",
		"cni_config_details":{"a":"b"},"node_templates":{},"as_number":0,"future_attribute":"x"}`)
	if diags.HasError() || diags.WarningsCount() != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	detail := diags[0].Detail()
	if !strings.Contains(detail, "future_attribute") {
		t.Errorf("the warning does not name future_attribute: %s", detail)
	}
	for _, absent := range []string{"cni_config_details", "docker_registry", "node_templates", "as_number", "s3cret"} {
		if strings.Contains(detail, absent) {
			t.Errorf("the warning names %s, which is carried over, empty or secret: %s", absent, detail)
		}
	}
	for target, want := range map[string]attr.Value{
		"docker_registry_url": types.StringValue("https://r"),
		"cni_config_details":  types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")}),
		"node_templates":      types.MapNull(types.StringType),
		"as_number":           types.Int64Null(),
	} {
		if !values[target].Equal(want) {
			t.Errorf("%s = %v, want %v", target, values[target], want)
		}
	}
	if v, ok := values["docker_registry_password"]; ok {
		t.Errorf("the write-only password was carried into the state: %v", v)
	}
}

// Node templates move when given by id; a name cannot be resolved without
// CloudStack, so the map stays null for the configuration to record.
func TestMoveCarriesNodeTemplatesOnlyByID(t *testing.T) {
	t.Parallel()
	byID, _ := mapJSON(t, `{"id":"`+clusterUUID+`","node_templates":{"worker":"`+zoneUUID+`"},"as_number":64512}`)
	if want := types.MapValueMust(types.StringType, map[string]attr.Value{"worker": types.StringValue(zoneUUID)}); !byID["node_templates"].Equal(want) {
		t.Errorf("node_templates by id = %v", byID["node_templates"])
	}
	if !byID["as_number"].Equal(types.Int64Value(64512)) {
		t.Errorf("as_number = %v", byID["as_number"])
	}
	byName, _ := mapJSON(t, `{"id":"`+clusterUUID+`","node_templates":{"worker":"`+zoneUUID+`","etcd":"ubuntu-cks"}}`)
	if !byName["node_templates"].IsNull() {
		t.Errorf("node_templates with a name = %v, want null", byName["node_templates"])
	}
}

// A project named by id is carried over; a project named by name is left
// for the refresh, which finds the cluster by id in any visible project.
func TestMoveCarriesProjectIDsAndRefusesStatesWithoutID(t *testing.T) {
	t.Parallel()
	values, diags := mapJSON(t, `{"id":"`+clusterUUID+`","project":"team-a"}`)
	if diags.HasError() || !values["project_id"].IsNull() {
		t.Errorf("a project name: project_id = %v, diags %v", values["project_id"], diags)
	}
	values, diags = mapJSON(t, `{"id":"`+clusterUUID+`","project":"`+clusterUUID+`"}`)
	if diags.HasError() || values["project_id"].String() != `"`+clusterUUID+`"` {
		t.Errorf("a project id: project_id = %v, diags %v", values["project_id"], diags)
	}
	_, diags = mapJSON(t, `{"name":"c"}`)
	if !diags.HasError() || !strings.Contains(diags[0].Detail(), "id is empty") {
		t.Errorf("want an error naming id, got %v", diags)
	}
}

// moveRequest runs moveOfficialCluster on a raw state.
func moveRequest(t *testing.T, address, typeName, js string) resource.MoveStateResponse {
	t.Helper()
	ctx := context.Background()
	var sch resource.SchemaResponse
	(&clusterResource{}).Schema(ctx, resource.SchemaRequest{}, &sch)
	resp := resource.MoveStateResponse{TargetState: tfsdk.State{Schema: sch.Schema,
		Raw: tftypes.NewValue(sch.Schema.Type().TerraformType(ctx), nil)}}
	moveOfficialCluster(ctx, resource.MoveStateRequest{SourceProviderAddress: address, SourceTypeName: typeName,
		SourceRawState: &tfprotov6.RawState{JSON: []byte(js)}}, &resp)
	return resp
}

func TestMoveAcceptsOnlyTheOfficialProvider(t *testing.T) {
	t.Parallel()
	state := `{"id":"` + clusterUUID + `","name":"c","size":1}`
	for _, address := range officialProviderAddresses {
		resp := moveRequest(t, address, officialClusterType, state)
		var id types.String
		resp.Diagnostics.Append(resp.TargetState.GetAttribute(context.Background(), path.Root("id"), &id)...)
		if resp.Diagnostics.HasError() || id.ValueString() != clusterUUID {
			t.Errorf("from %s: id %v, diagnostics %v", address, id, resp.Diagnostics)
		}
	}
	resp := moveRequest(t, "registry.terraform.io/hashicorp/cloudstack", officialClusterType, state)
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), "hashicorp/cloudstack") {
		t.Errorf("another provider: want an error naming it, got %v", resp.Diagnostics)
	}
	resp = moveRequest(t, officialProviderAddresses[0], "cloudstack_instance", state)
	if len(resp.Diagnostics) > 0 || !resp.TargetState.Raw.IsNull() {
		t.Errorf("another resource type: want no state and no diagnostics, got %v", resp.Diagnostics)
	}
}

// The guide's mapping table names every official attribute and its target.
func TestMoveGuideMapsEveryOfficialAttribute(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "migrating-from-the-cloudstack-provider.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range officialClusterAttributes {
		for _, name := range []string{a.name, a.target} {
			if name != "" && !strings.Contains(string(guide), "`"+name+"`") {
				t.Errorf("the migration guide does not mention `%s`", name)
			}
		}
	}
}
