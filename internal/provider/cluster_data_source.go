package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

var (
	_ datasource.DataSourceWithConfigure        = (*clusterDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*clusterDataSource)(nil)
)

// clusterDataSource reads a CKS cluster by id or name.
type clusterDataSource struct {
	configuredDataSource
}

func newClusterDataSource() datasource.DataSource {
	return &clusterDataSource{}
}

func (d *clusterDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (d *clusterDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := observedDataSourceAttributes()
	attrs["id"] = schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "Id of the cluster. Exactly one of `id` and `name` must be set.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["name"] = schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "Exact name of the cluster; it must match exactly one cluster visible to the caller.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["autoscaling"] = schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The cluster autoscaler; `min_size` and `max_size` are null while it is off.",
		Attributes: map[string]schema.Attribute{
			"enabled":  schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the autoscaler runs."},
			"min_size": schema.Int64Attribute{Computed: true, MarkdownDescription: "Fewest workers the autoscaler keeps."},
			"max_size": schema.Int64Attribute{Computed: true, MarkdownDescription: "Most workers the autoscaler creates."},
		},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads an existing CKS cluster by id or by name, with the same attributes as the `cks_cluster` " +
			"resource reports, including its nodes with their roles and SSH ports.",
		Attributes: attrs,
	}
}

func (d *clusterDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *clusterDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model clusterDataSourceModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	ctx = readShared(ctx)
	c, attr, err := d.find(ctx, model)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(attr), "Cluster Not Found", err.Error())
		return
	}
	obs := d.data.engine().ObserveCluster(ctx, c, clusterops.Intent{})
	if obs.NetworkGuessed {
		resp.Diagnostics.AddError("Unable to Read Cluster Network", obs.RulesErr.Error())
		return
	}
	if obs.RulesErr != nil {
		tflog.Warn(ctx, "could not read the cluster's port forwards; ssh_port is the port CKS gives each node",
			map[string]any{"cluster_id": c.ID, "error": obs.RulesErr.Error()})
	}
	resp.Diagnostics.Append(model.refresh(ctx, c, obs.Network, obs.Nodes())...)
	model.Autoscaling = observedAutoscaling(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// find looks the cluster up by id or by exact name; it also returns the
// attribute to blame when nothing (or too much) matches.
func (d *clusterDataSource) find(ctx context.Context, m clusterDataSourceModel) (*cloudstack.Cluster, string, error) {
	if known(m.ID) {
		c, err := d.data.engine().Get(ctx, m.ID.ValueString())
		return c, "id", err
	}
	c, err := d.data.engine().FindByName(ctx, m.Name.ValueString())
	return c, "name", err
}
