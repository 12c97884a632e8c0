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
	_ datasource.DataSourceWithConfigure        = (*serviceOfferingDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*serviceOfferingDataSource)(nil)
)

// serviceOfferingDataSource finds a compute offering by name.
type serviceOfferingDataSource struct {
	configuredDataSource
}

type serviceOfferingModel struct {
	Name      types.String `tfsdk:"name"`
	NameRegex types.String `tfsdk:"name_regex"`
	ZoneID    types.String `tfsdk:"zone_id"`
	ID        types.String `tfsdk:"id"`
	CPUNumber types.Int64  `tfsdk:"cpu_number"`
	Memory    types.Int64  `tfsdk:"memory"`
}

func newServiceOfferingDataSource() datasource.DataSource { return &serviceOfferingDataSource{} }

func (d *serviceOfferingDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service_offering"
}

func (d *serviceOfferingDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := lookupAttributes("service offering", "medium")
	attrs["zone_id"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Id of a zone: only the offerings usable there (restricted to it or to no zone) are considered.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["cpu_number"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of vCPUs of the offering; 0 for a custom offering."}
	attrs["memory"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory of the offering in MiB; 0 for a custom offering."}
	resp.Schema = schema.Schema{
		MarkdownDescription: lookupDescription("a compute offering", "`cks_cluster.service_offering_id` and the role "+
			"offerings (`control_offering_id`, `worker_offering_id`, `etcd_offering_id`)"),
		Attributes: attrs,
	}
}

func (d *serviceOfferingDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return lookupValidators()
}

func (d *serviceOfferingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model serviceOfferingModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	off, err := d.data.engine().FindServiceOffering(ctx, nameMatchOf(model.Name, model.NameRegex), model.ZoneID.ValueString())
	if err != nil {
		addLookupError(&resp.Diagnostics, err, "Service Offering", model.NameRegex)
		return
	}
	model.ID = types.StringValue(off.ID)
	model.Name = types.StringValue(off.Name)
	model.CPUNumber = types.Int64Value(int64(off.CPUNumber))
	model.Memory = types.Int64Value(int64(off.Memory))
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
