package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// The official provider's cloudstack_kubernetes_version and
// cloudstack_cni_configuration, as its SDKv2 resources create and store
// them (resource_cloudstack_kubernetes_version.go,
// resource_cloudstack_cni_configuration.go in
// apache/cloudstack-terraform-provider).

type officialVersionStandIn struct{ p *officialStandIn }

// officialVersionModel is cloudstack_kubernetes_version's schema.
type officialVersionModel struct {
	ID              types.String `tfsdk:"id"`
	SemanticVersion types.String `tfsdk:"semantic_version"`
	URL             types.String `tfsdk:"url"`
	MinCPU          types.Int64  `tfsdk:"min_cpu"`
	MinMemory       types.Int64  `tfsdk:"min_memory"`
	Name            types.String `tfsdk:"name"`
	Zone            types.String `tfsdk:"zone"`
	Checksum        types.String `tfsdk:"checksum"`
	State           types.String `tfsdk:"state"`
}

func (r *officialVersionStandIn) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = officialVersionType
}

func (r *officialVersionStandIn) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	forceNew := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":               schema.StringAttribute{Computed: true},
		"semantic_version": schema.StringAttribute{Required: true, PlanModifiers: forceNew},
		"url":              schema.StringAttribute{Required: true, PlanModifiers: forceNew},
		"min_cpu":          schema.Int64Attribute{Required: true},
		"min_memory":       schema.Int64Attribute{Required: true},
		"name":             schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: forceNew},
		"zone":             schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: forceNew},
		"checksum":         schema.StringAttribute{Optional: true},
		"state":            schema.StringAttribute{Optional: true, Computed: true},
	}}
}

// Create adds the version as the official provider does, which sends the
// checksum as the version's name, and stores what its read stores: the
// server's name, minimums and state, and zone as configured (a name or an
// id; setValueOrID).
func (r *officialVersionStandIn) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialVersionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := cloudstack.AddVersionParams{SemanticVersion: m.SemanticVersion.ValueString(), URL: m.URL.ValueString(),
		MinCPUNumber: int(m.MinCPU.ValueInt64()), MinMemory: int(m.MinMemory.ValueInt64()), Name: m.Name.ValueString(),
		ZoneID: r.p.id(m.Zone)}
	if !m.Checksum.IsNull() {
		p.Name = m.Checksum.ValueString()
	}
	v, err := r.p.env.API.AddKubernetesSupportedVersion(ctx, p)
	for err == nil && v.ISOState != "Ready" {
		// The official provider does not wait; the test's cluster needs a
		// Ready ISO.
		time.Sleep(50 * time.Millisecond)
		v, err = r.p.env.API.GetKubernetesSupportedVersion(ctx, v.ID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Create Failed", err.Error())
		return
	}
	m.ID, m.Name, m.State = types.StringValue(v.ID), types.StringValue(v.Name), types.StringValue(v.State)
	m.MinCPU, m.MinMemory = types.Int64Value(int64(v.MinCPUNumber)), types.Int64Value(int64(v.MinMemory))
	if m.Zone.IsUnknown() {
		m.Zone = types.StringValue(v.ZoneID)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *officialVersionStandIn) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
}

func (r *officialVersionStandIn) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Stand-in Update", "the stand-in does not update versions")
}

func (r *officialVersionStandIn) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialVersionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	ref, err := r.p.env.API.DeleteKubernetesSupportedVersion(ctx, m.ID.ValueString())
	if err == nil {
		err = r.p.env.WaitJob(ref.JobID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Delete Failed", err.Error())
	}
}

type officialCNIStandIn struct{ p *officialStandIn }

// officialCNIModel is cloudstack_cni_configuration's schema.
type officialCNIModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	CNIConfig types.String `tfsdk:"cni_config"`
	Account   types.String `tfsdk:"account"`
	DomainID  types.String `tfsdk:"domain_id"`
	ProjectID types.String `tfsdk:"project_id"`
	Params    types.Set    `tfsdk:"params"`
}

func (r *officialCNIStandIn) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = officialCNIType
}

func (r *officialCNIStandIn) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	forceNew := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":         schema.StringAttribute{Computed: true},
		"name":       schema.StringAttribute{Required: true, PlanModifiers: forceNew},
		"cni_config": schema.StringAttribute{Required: true, PlanModifiers: forceNew},
		"account":    schema.StringAttribute{Optional: true, PlanModifiers: forceNew},
		"domain_id":  schema.StringAttribute{Optional: true, PlanModifiers: forceNew},
		"project_id": schema.StringAttribute{Optional: true, PlanModifiers: forceNew},
		"params": schema.SetAttribute{Optional: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()}},
	}}
}

// Create registers the configuration (params joined with commas), finds
// its id by name, and stores what the official read stores: the server's
// user data, and the owner only as configured.
func (r *officialCNIStandIn) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialCNIModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var params []string
	resp.Diagnostics.Append(m.Params.ElementsAs(ctx, &params, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	slices.Sort(params)
	owner := cloudstack.Ownership{Account: m.Account.ValueString(), DomainID: m.DomainID.ValueString(), ProjectID: m.ProjectID.ValueString()}
	cfg, err := r.p.env.API.RegisterCniConfiguration(ctx, cloudstack.RegisterCNIParams{Ownership: owner, Name: m.Name.ValueString(),
		Config: m.CNIConfig.ValueString(), Params: params})
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Create Failed", err.Error())
		return
	}
	m.ID, m.CNIConfig = types.StringValue(cfg.ID), types.StringValue(cfg.UserData)
	if len(cfg.Params) > 0 {
		stored, diags := types.SetValueFrom(ctx, types.StringType, cfg.Params)
		resp.Diagnostics.Append(diags...)
		m.Params = stored
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *officialCNIStandIn) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *officialCNIStandIn) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Stand-in Update", "the stand-in does not update CNI configurations")
}

func (r *officialCNIStandIn) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialCNIModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if err := r.p.env.API.DeleteCniConfiguration(ctx, m.ID.ValueString(), cloudstack.Ownership{}); err != nil {
		resp.Diagnostics.AddError("Stand-in Delete Failed", err.Error())
	}
}
