package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSourceWithConfigure        = (*projectDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*projectDataSource)(nil)
)

// projectDataSource finds a project by name.
type projectDataSource struct {
	configuredDataSource
}

type projectModel struct {
	Name        types.String `tfsdk:"name"`
	NameRegex   types.String `tfsdk:"name_regex"`
	ID          types.String `tfsdk:"id"`
	DisplayText types.String `tfsdk:"display_text"`
	State       types.String `tfsdk:"state"`
}

func newProjectDataSource() datasource.DataSource { return &projectDataSource{} }

func (d *projectDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_project"
}

func (d *projectDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := lookupAttributes("project", "team-a")
	attrs["display_text"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Display text of the project."}
	attrs["state"] = schema.StringAttribute{Computed: true, MarkdownDescription: "State of the project, such as `Active`."}
	resp.Schema = schema.Schema{
		MarkdownDescription: lookupDescription("a project: any project for an administrator, the projects a user belongs "+
			"to otherwise,", "`cks_cluster.project_id` and `cks_network.project_id`"),
		Attributes: attrs,
	}
}

func (d *projectDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return lookupValidators()
}

func (d *projectDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model projectModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	prj, err := d.data.engine().FindProject(ctx, nameMatchOf(model.Name, model.NameRegex))
	if err != nil {
		addLookupError(&resp.Diagnostics, err, "Project", model.NameRegex)
		return
	}
	model.ID = types.StringValue(prj.ID)
	model.Name = types.StringValue(prj.Name)
	model.DisplayText = types.StringValue(prj.DisplayText)
	model.State = types.StringValue(prj.State)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
