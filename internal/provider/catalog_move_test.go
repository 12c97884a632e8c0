package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// moveInto runs a mover into a resource's schema.
func moveInto(t *testing.T, r resource.Resource, mover resource.StateMover, address, typeName, js string) resource.MoveStateResponse {
	t.Helper()
	ctx := context.Background()
	var sch resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sch)
	resp := resource.MoveStateResponse{TargetState: tfsdk.State{Schema: sch.Schema,
		Raw: tftypes.NewValue(sch.Schema.Type().TerraformType(ctx), nil)}}
	mover.StateMover(ctx, resource.MoveStateRequest{SourceProviderAddress: address, SourceTypeName: typeName,
		SourceRawState: &tfprotov6.RawState{JSON: []byte(js)}}, &resp)
	return resp
}

// Every attribute of the official cloudstack_kubernetes_version lands in
// cks_kubernetes_version; a zone given by name is left to the refresh.
func TestMoveOfficialVersion(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	r := &kubernetesVersionResource{}
	mover := r.MoveState(context.Background())[0]
	resp := moveInto(t, r, mover, officialProviderAddresses[0], officialVersionType, `{"id":"`+versionUUID+`",
		"semantic_version":"1.34.9","url":"https://example.org/a.iso","min_cpu":2,"min_memory":2048,
		"name":"v1.34.9-zone-1","zone":"zone-1","checksum":"{SHA-256}ab","state":"Disabled"}`)
	var m kubernetesVersionResourceModel
	resp.Diagnostics.Append(resp.TargetState.Get(context.Background(), &m)...)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if m.ID.ValueString() != versionUUID || m.SemanticVersion.ValueString() != "1.34.9" || m.URL.ValueString() != "https://example.org/a.iso" ||
		m.MinCPUNumber.ValueInt64() != 2 || m.MinMemory.ValueInt64() != 2048 || m.Name.ValueString() != "v1.34.9-zone-1" ||
		!m.ZoneID.IsNull() || m.Checksum.ValueString() != "{SHA-256}ab" || m.State.ValueString() != "Disabled" {
		t.Fatalf("moved: %+v", m)
	}
	resp = moveInto(t, r, mover, officialProviderAddresses[0], officialVersionType, `{"id":"","semantic_version":"1.34.9"}`)
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), "names no Kubernetes version") {
		t.Fatalf("a state without id: %v", resp.Diagnostics)
	}
}

// Every attribute of the official cloudstack_cni_configuration lands in
// cks_cni_configuration, params as a set.
func TestMoveOfficialCNI(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	r := &cniConfigurationResource{}
	mover := r.MoveState(context.Background())[0]
	resp := moveInto(t, r, mover, officialProviderAddresses[2], officialCNIType, `{"id":"`+clusterUUID+`","name":"calico",
		"cni_config":"YWI=","account":"","domain_id":"","project_id":"`+zoneUUID+`","params":["MTU","POD_CIDR"]}`)
	var m cniConfigurationResourceModel
	resp.Diagnostics.Append(resp.TargetState.Get(context.Background(), &m)...)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if m.ID.ValueString() != clusterUUID || m.Name.ValueString() != "calico" || m.CNIConfig.ValueString() != "YWI=" ||
		!m.Account.IsNull() || m.ProjectID.ValueString() != zoneUUID || len(m.Params.Elements()) != 2 {
		t.Fatalf("moved: %+v", m)
	}
	if resp := moveInto(t, r, mover, "registry.terraform.io/hashicorp/cloudstack", officialCNIType, `{"id":"x"}`); !resp.Diagnostics.HasError() {
		t.Fatal("another provider's state was moved")
	}
}

// The migration guide's tables name every attribute of the two official
// resources.
func TestMoveGuideMapsVersionAndCNIAttributes(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "migrating-from-the-cloudstack-provider.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"semantic_version", "url", "min_cpu", "min_cpu_number", "min_memory", "zone", "zone_id",
		"checksum", "state", "cni_config", "params", "account", "domain_id", "project_id"} {
		if !strings.Contains(string(guide), "`"+name+"`") {
			t.Errorf("the migration guide does not mention `%s`", name)
		}
	}
}
