package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

var (
	_ datasource.DataSourceWithConfigure      = (*clusterDriftDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*clusterDriftDataSource)(nil)
)

type clusterDriftDataSource struct {
	configuredDataSource
}

type clusterDriftModel struct {
	ClusterID   types.String `tfsdk:"cluster_id"`
	ClusterName types.String `tfsdk:"cluster_name"`
	driftOptionsModel
	driftResultModel
}

func newClusterDriftDataSource() datasource.DataSource {
	return &clusterDriftDataSource{}
}

func (d *clusterDriftDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_drift"
}

func (d *clusterDriftDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := driftResultAttributes()
	for name, a := range driftOptionAttributes() {
		attrs[name] = a
	}
	attrs["cluster_id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the CKS cluster to check.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["cluster_name"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "Name of the cluster checked, as CloudStack lists it.",
	}
	attrs["ssh"] = driftSSHAttribute(true)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Checks one CKS cluster for drift between its VM map, its VMs, its Kubernetes nodes and its " +
			"SSH network rules, during `terraform plan`, from the client side: no management-server change, no wait for " +
			"a scanner cycle, no alert mailbox.\n\n" + driftViewsDescription + "\n\n" + driftGateDescription + "\n\n" +
			driftSecretsDescription,
		Attributes: attrs,
	}
}

func (d *clusterDriftDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var model clusterDriftModel
	if req.Config.Get(ctx, &model).HasError() {
		// A value its type refuses (grace_period) fails the decoding; the
		// framework reports it against its path.
		return
	}
	validateDriftOptions(ctx, model.driftOptionsModel, &resp.Diagnostics)
}

func (d *clusterDriftDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model clusterDriftModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	settings, diags := resolveDriftSettings(ctx, model.driftOptionsModel)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := model.ClusterID.ValueString()
	ctx = tflog.SetField(readShared(ctx), "cluster_id", id)
	res, stats, err := d.data.driftChecker().Check(ctx, driftcheck.Request{ClusterID: id, Options: settings.opts})
	logDriftStats(ctx, stats)
	if err != nil {
		addDriftCheckError(&resp.Diagnostics, id, err)
		return
	}

	model.setEffective(settings)
	model.ClusterName = stringOrNull(stats.ClusterName)
	resp.Diagnostics.Append(model.setResult(res)...)
	resp.Diagnostics.Append(model.setIgnoreStatus(settings, res.RuleUses)...)
	if resp.Diagnostics.HasError() {
		return
	}
	label := driftClusterLabel(stats.ClusterName, id)
	if driftHostKeyRefusal(&resp.Diagnostics, label, stats.Node, settings.opts, res) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
	addClusterDriftDiagnostics(&resp.Diagnostics, label, res, settings.gate)
	compared := 1
	if res.Skipped {
		compared = 0
	}
	addDriftIgnoreDiagnostics(&resp.Diagnostics, settings.opts.Ignore, res.RuleUses, compared, 1-compared)
}

// addDriftCheckError reports a check that could not run.
func addDriftCheckError(diags *diag.Diagnostics, id string, err error) {
	if cloudstack.IsNotFound(err) {
		diags.AddAttributeError(path.Root("cluster_id"), "Kubernetes Cluster Not Found",
			"No CKS cluster with id "+driftQuote(id)+" is visible to these credentials: "+err.Error())
		return
	}
	diags.AddError("Unable to Check Cluster Drift",
		"The drift check of cluster "+driftQuote(id)+" could not read CloudStack: "+err.Error())
}
