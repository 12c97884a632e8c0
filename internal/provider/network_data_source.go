package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSourceWithConfigure        = (*networkDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*networkDataSource)(nil)
)

// networkDataSource finds a guest network by name.
type networkDataSource struct {
	configuredDataSource
}

type networkModel struct {
	Name      types.String `tfsdk:"name"`
	NameRegex types.String `tfsdk:"name_regex"`
	ZoneID    types.String `tfsdk:"zone_id"`
	ProjectID types.String `tfsdk:"project_id"`
	ID        types.String `tfsdk:"id"`
	Type      types.String `tfsdk:"type"`
	State     types.String `tfsdk:"state"`
	VPCID     types.String `tfsdk:"vpc_id"`
}

func newNetworkDataSource() datasource.DataSource { return &networkDataSource{} }

func (d *networkDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_network"
}

func (d *networkDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := lookupAttributes("network", "k8s-net")
	attrs["zone_id"] = schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "Id of the zone the network must be in; the network's zone when not set.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["project_id"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Id of the project that owns the network. CloudStack lists a project's networks only when " +
			"asked for the project, so a cluster with `project_id` finds its network with the same `project_id`; without " +
			"it, only networks outside projects are considered.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["type"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Guest type of the network: `Isolated`, `Shared` or `L2`."}
	attrs["state"] = schema.StringAttribute{Computed: true, MarkdownDescription: "State of the network, such as `Allocated` or `Implemented`."}
	attrs["vpc_id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the VPC of a VPC tier; null otherwise."}
	resp.Schema = schema.Schema{
		MarkdownDescription: lookupDescription("a guest network visible to the caller (every account's for an "+
			"administrator)", "`cks_cluster.network_id`"),
		Attributes: attrs,
	}
}

func (d *networkDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return lookupValidators()
}

func (d *networkDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model networkModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	n, err := d.data.engine().FindNetwork(ctx, nameMatchOf(model.Name, model.NameRegex), model.ZoneID.ValueString(),
		model.ProjectID.ValueString())
	if err != nil {
		addLookupError(&resp.Diagnostics, err, "Network", model.NameRegex)
		return
	}
	model.ID = types.StringValue(n.ID)
	model.Name = types.StringValue(n.Name)
	model.ZoneID = types.StringValue(n.ZoneID)
	model.Type = types.StringValue(n.Type)
	model.State = types.StringValue(n.State)
	model.VPCID = stringOrNull(n.VPCID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
