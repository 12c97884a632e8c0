package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSourceWithConfigure        = (*zoneDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*zoneDataSource)(nil)
)

// zoneDataSource finds a zone by name.
type zoneDataSource struct {
	configuredDataSource
}

type zoneModel struct {
	Name      types.String `tfsdk:"name"`
	NameRegex types.String `tfsdk:"name_regex"`
	ID        types.String `tfsdk:"id"`
}

func newZoneDataSource() datasource.DataSource { return &zoneDataSource{} }

func (d *zoneDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_zone"
}

func (d *zoneDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: lookupDescription("a zone visible to the caller", "`cks_cluster.zone_id` and the other "+
			"look-ups' `zone_id`"),
		Attributes: lookupAttributes("zone", "zone-1"),
	}
}

func (d *zoneDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return lookupValidators()
}

func (d *zoneDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model zoneModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	zone, err := d.data.engine().FindZone(ctx, nameMatchOf(model.Name, model.NameRegex))
	if err != nil {
		addLookupError(&resp.Diagnostics, err, "Zone", model.NameRegex)
		return
	}
	model.ID = types.StringValue(zone.ID)
	model.Name = types.StringValue(zone.Name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
