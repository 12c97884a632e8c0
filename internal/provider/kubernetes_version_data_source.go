package provider

import (
	"context"
	"errors"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSourceWithConfigure        = (*kubernetesVersionDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*kubernetesVersionDataSource)(nil)
)

type kubernetesVersionDataSource struct {
	configuredDataSource
}

type kubernetesVersionModel struct {
	ZoneID              types.String `tfsdk:"zone_id"`
	SemanticVersion     types.String `tfsdk:"semantic_version"`
	Name                types.String `tfsdk:"name"`
	ID                  types.String `tfsdk:"id"`
	State               types.String `tfsdk:"state"`
	ISOState            types.String `tfsdk:"iso_state"`
	MinCPUNumber        types.Int64  `tfsdk:"min_cpu_number"`
	MinMemory           types.Int64  `tfsdk:"min_memory"`
	SupportsHA          types.Bool   `tfsdk:"supports_ha"`
	SupportsAutoscaling types.Bool   `tfsdk:"supports_autoscaling"`
}

func newKubernetesVersionDataSource() datasource.DataSource {
	return &kubernetesVersionDataSource{}
}

func (d *kubernetesVersionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_version"
}

func (d *kubernetesVersionDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Looks up a CKS Kubernetes version by semantic version or name in a zone, and gives its id for " +
			"`cks_cluster.kubernetes_version_id`. The version must be Enabled and its ISO Ready in the zone; otherwise the " +
			"error lists the versions that are usable there.",
		Attributes: map[string]schema.Attribute{
			"zone_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the zone the version must be usable in.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"semantic_version": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Kubernetes release to look up, for example `1.33.13`. Exactly one of `semantic_version` and `name` must be set.",
				Validators:          []validator.String{semanticVersionValidator()},
			},
			"name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the version as registered by the operator, for example `v1.33.13-calico`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"id":                   schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the Kubernetes version."},
			"state":                schema.StringAttribute{Computed: true, MarkdownDescription: "State of the version, always `Enabled` for a result."},
			"iso_state":            schema.StringAttribute{Computed: true, MarkdownDescription: "State of the version's ISO in the zone, always `Ready` for a result."},
			"min_cpu_number":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum vCPUs a node offering must have for this version."},
			"min_memory":           schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum memory in MiB a node offering must have for this version."},
			"supports_ha":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether clusters of this version may have more than one control node."},
			"supports_autoscaling": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether clusters of this version support the cluster autoscaler."},
		},
	}
}

func (d *kubernetesVersionDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("semantic_version"), path.MatchRoot("name")),
	}
}

func (d *kubernetesVersionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model kubernetesVersionModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	found, err := d.data.engine().FindVersion(ctx, model.ZoneID.ValueString(), model.SemanticVersion.ValueString(), model.Name.ValueString())
	var listErr *clusterops.ListError
	switch {
	case errors.As(err, &listErr):
		resp.Diagnostics.AddError("Unable to List Kubernetes Versions", err.Error())
		return
	case err != nil:
		attr := "semantic_version"
		if !model.Name.IsNull() {
			attr = "name"
		}
		resp.Diagnostics.AddAttributeError(path.Root(attr), "Kubernetes Version Not Usable", err.Error())
		return
	}
	model.ID = types.StringValue(found.ID)
	model.Name = types.StringValue(found.Name)
	model.SemanticVersion = types.StringValue(found.SemanticVersion)
	model.State = types.StringValue(found.State)
	model.ISOState = types.StringValue(found.ISOState)
	model.MinCPUNumber = types.Int64Value(int64(found.MinCPUNumber))
	model.MinMemory = types.Int64Value(int64(found.MinMemory))
	model.SupportsHA = types.BoolValue(found.SupportsHA)
	model.SupportsAutoscaling = types.BoolValue(found.SupportsAutoscaling)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
