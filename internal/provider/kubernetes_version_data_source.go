package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
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
	Prefix              types.String `tfsdk:"semantic_version_prefix"`
	Latest              types.Bool   `tfsdk:"latest"`
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
		MarkdownDescription: "Looks up a CKS Kubernetes version of a zone, and gives its id for " +
			"`cks_cluster.kubernetes_version_id`: by exact `semantic_version` or `name`, or as the newest (`latest = true`) " +
			"or only version whose semantic version starts with `semantic_version_prefix`, such as the newest 1.33. The " +
			"version must be Enabled and its ISO Ready in the zone; otherwise the error lists the versions that are usable " +
			"there. `cks_kubernetes_versions` lists them.",
		Attributes: map[string]schema.Attribute{
			"zone_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the zone the version must be usable in.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"semantic_version": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Kubernetes release to look up, for example `1.33.13`. Exactly one of `semantic_version`, " +
					"`name` and the pair `semantic_version_prefix`/`latest` must be set.",
				Validators: []validator.String{semanticVersionValidator()},
			},
			"name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Name of the version as registered by the operator, for example `v1.33.13-calico`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"semantic_version_prefix": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Leading components of the semantic version, for example `1.33` (matching 1.33.0 and " +
					"1.33.13, not 1.330.0). Alone it must match exactly one usable version; with `latest = true` the newest " +
					"of them is taken.",
				Validators: []validator.String{versionPrefixValidator()},
			},
			"latest": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Take the newest usable version, among those matching `semantic_version_prefix` when it " +
					"is set. Versions with the same newest semantic version under different names are an error that names them.",
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
	sv, name, prefix, latest := path.MatchRoot("semantic_version"), path.MatchRoot("name"),
		path.MatchRoot("semantic_version_prefix"), path.MatchRoot("latest")
	return []datasource.ConfigValidator{
		datasourcevalidator.AtLeastOneOf(sv, name, prefix, latest),
		datasourcevalidator.Conflicting(sv, name),
		datasourcevalidator.Conflicting(sv, prefix),
		datasourcevalidator.Conflicting(sv, latest),
		datasourcevalidator.Conflicting(name, prefix),
		datasourcevalidator.Conflicting(name, latest),
	}
}

func (d *kubernetesVersionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model kubernetesVersionModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	found, err := d.data.engine().FindVersion(ctx, model.ZoneID.ValueString(), clusterops.VersionQuery{
		SemanticVersion: model.SemanticVersion.ValueString(),
		Name:            model.Name.ValueString(),
		Prefix:          model.Prefix.ValueString(),
		Latest:          model.Latest.ValueBool(),
	})
	if err != nil {
		addVersionLookupError(&resp.Diagnostics, err, &model)
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

// addVersionLookupError reports a failed look-up against the attribute
// that selected the version.
func addVersionLookupError(diags *diag.Diagnostics, err error, model *kubernetesVersionModel) {
	var listErr *clusterops.ListError
	if errors.As(err, &listErr) {
		diags.AddError("Unable to List Kubernetes Versions", err.Error())
		return
	}
	var attr string
	switch {
	case !model.Name.IsNull():
		attr = "name"
	case !model.SemanticVersion.IsNull():
		attr = "semantic_version"
	case !model.Prefix.IsNull():
		attr = "semantic_version_prefix"
	default:
		attr = "latest"
	}
	detail := sentence(err.Error())
	var choice *clusterops.VersionChoiceError
	if errors.As(err, &choice) {
		switch {
		case choice.Exact:
			detail += " Use the id of the one you mean (kubernetes_version_id of cks_cluster takes it), or have an " +
				"administrator rename or disable the other."
		case choice.Newest:
			detail += " Give the version by name."
		default:
			detail += " Set latest = true to take the newest, or give a longer semantic_version_prefix."
		}
		diags.AddAttributeError(path.Root(attr), "Several Kubernetes Versions Match", detail)
		return
	}
	diags.AddAttributeError(path.Root(attr), "Kubernetes Version Not Usable", detail)
}
