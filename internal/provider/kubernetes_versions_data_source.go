package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

var _ datasource.DataSourceWithConfigure = (*kubernetesVersionsDataSource)(nil)

// kubernetesVersionsDataSource lists the usable Kubernetes versions of a
// zone, with filters.
type kubernetesVersionsDataSource struct {
	configuredDataSource
}

type kubernetesVersionsModel struct {
	ZoneID         types.String `tfsdk:"zone_id"`
	Prefix         types.String `tfsdk:"semantic_version_prefix"`
	Minimum        types.String `tfsdk:"min_semantic_version"`
	UpgradableFrom types.String `tfsdk:"upgradable_from"`
	Versions       types.List   `tfsdk:"versions"`
	IDs            types.List   `tfsdk:"ids"`
}

// versionObjectType is one element of versions.
var versionObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id":                   types.StringType,
	"name":                 types.StringType,
	"semantic_version":     types.StringType,
	"min_cpu_number":       types.Int64Type,
	"min_memory":           types.Int64Type,
	"supports_ha":          types.BoolType,
	"supports_autoscaling": types.BoolType,
}}

func newKubernetesVersionsDataSource() datasource.DataSource { return &kubernetesVersionsDataSource{} }

func (d *kubernetesVersionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_versions"
}

func (d *kubernetesVersionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	versionFilter := func(description string, check validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: description, Validators: []validator.String{check}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the Kubernetes versions a zone can create or upgrade clusters with (Enabled, with their " +
			"ISO Ready), newest first, narrowed by the filters: for upgrade pipelines, the versions a cluster may be " +
			"upgraded to next. An empty list is not an error.",
		Attributes: map[string]schema.Attribute{
			"zone_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the zone the versions must be usable in.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"semantic_version_prefix": versionFilter("Keep the versions whose semantic version starts with these "+
				"components, for example `1.33`.", versionPrefixValidator()),
			"min_semantic_version": versionFilter("Keep the versions of this semantic version or newer, for example `1.33` "+
				"(1.33.0) or `1.33.2`.", semanticVersionValidator()),
			"upgradable_from": versionFilter("Keep the versions CloudStack would upgrade a cluster of this semantic "+
				"version to, such as `cks_cluster.this.kubernetes_version`: newer, of the same major version and at most one "+
				"minor version ahead (`KubernetesVersionManagerImpl.canUpgradeKubernetesVersion`).", semanticVersionValidator()),
			"versions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The versions, newest first; versions of the same semantic version by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                   schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the version, for `cks_cluster.kubernetes_version_id`."},
					"name":                 schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the version as registered by the operator."},
					"semantic_version":     schema.StringAttribute{Computed: true, MarkdownDescription: "Kubernetes release, such as `1.33.13`."},
					"min_cpu_number":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum vCPUs a node offering must have."},
					"min_memory":           schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum memory in MiB a node offering must have."},
					"supports_ha":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether clusters may have more than one control node."},
					"supports_autoscaling": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether clusters support the cluster autoscaler."},
				}},
			},
			"ids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Ids of `versions`, in the same order.",
			},
		},
	}
}

func (d *kubernetesVersionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model kubernetesVersionsModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	versions, err := d.data.engine().ListVersions(ctx, model.ZoneID.ValueString(), clusterops.VersionFilter{
		Prefix:         model.Prefix.ValueString(),
		Minimum:        model.Minimum.ValueString(),
		UpgradableFrom: model.UpgradableFrom.ValueString(),
	})
	if err != nil {
		var listErr *clusterops.ListError
		if errors.As(err, &listErr) {
			resp.Diagnostics.AddError("Unable to List Kubernetes Versions", sentence(err.Error()))
		} else {
			// The validators let no bad filter through; this is a bug.
			resp.Diagnostics.AddError("Invalid Version Filter", sentence(err.Error()))
		}
		return
	}
	objects := make([]attr.Value, 0, len(versions))
	ids := make([]attr.Value, 0, len(versions))
	for _, v := range versions {
		objects = append(objects, versionObject(v))
		ids = append(ids, types.StringValue(v.ID))
	}
	model.Versions = types.ListValueMust(versionObjectType, objects)
	model.IDs = types.ListValueMust(types.StringType, ids)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

func versionObject(v cloudstack.KubernetesVersion) attr.Value {
	return types.ObjectValueMust(versionObjectType.AttrTypes, map[string]attr.Value{
		"id":                   types.StringValue(v.ID),
		"name":                 types.StringValue(v.Name),
		"semantic_version":     types.StringValue(v.SemanticVersion),
		"min_cpu_number":       types.Int64Value(int64(v.MinCPUNumber)),
		"min_memory":           types.Int64Value(int64(v.MinMemory)),
		"supports_ha":          types.BoolValue(v.SupportsHA),
		"supports_autoscaling": types.BoolValue(v.SupportsAutoscaling),
	})
}
