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
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

var (
	_ datasource.DataSourceWithConfigure      = (*clusterDriftDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*clusterDriftDataSource)(nil)
)

type clusterDriftDataSource struct {
	data *providerData
}

type clusterDriftModel struct {
	ClusterID         types.String `tfsdk:"cluster_id"`
	NodeSource        types.String `tfsdk:"node_source"`
	SSH               types.Object `tfsdk:"ssh"`
	GracePeriod       types.String `tfsdk:"grace_period"`
	CheckNetworkRules types.Bool   `tfsdk:"check_network_rules"`
	FailOnDrift       types.Bool   `tfsdk:"fail_on_drift"`

	InSync         types.Bool   `tfsdk:"in_sync"`
	ClusterState   types.String `tfsdk:"cluster_state"`
	Skipped        types.Bool   `tfsdk:"skipped"`
	SkipReason     types.String `tfsdk:"skip_reason"`
	NodesChecked   types.Bool   `tfsdk:"nodes_checked"`
	NodeCheckError types.String `tfsdk:"node_check_error"`
	Findings       types.List   `tfsdk:"findings"`
	Counts         types.Map    `tfsdk:"counts"`
	Summary        types.String `tfsdk:"summary"`
}

func (m clusterDriftModel) options() driftOptionsModel {
	return driftOptionsModel{NodeSource: m.NodeSource, SSH: m.SSH, GracePeriod: m.GracePeriod,
		CheckNetworkRules: m.CheckNetworkRules, FailOnDrift: m.FailOnDrift}
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
	resp.Schema = schema.Schema{
		MarkdownDescription: "Checks one CKS cluster for drift between its VM map, its VMs, its Kubernetes nodes and its " +
			"SSH network rules, during `terraform plan`, from the client side: no management-server change, no wait for " +
			"a scanner cycle, no alert mailbox.\n\n" + driftViewsDescription + "\n\n" + driftGateDescription,
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"ssh": driftSSHBlock(true)},
	}
}

func (d *clusterDriftDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.data = data
}

func (d *clusterDriftDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var model clusterDriftModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateDriftOptions(model.options(), &resp.Diagnostics)
}

func (d *clusterDriftDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model clusterDriftModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	settings, diags := resolveDriftSettings(model.options())
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := model.ClusterID.ValueString()
	ctx = tflog.SetField(ctx, "cluster_id", id)
	checker := &driftcheck.Checker{API: d.data.client, EtcdSSHStartPort: d.data.etcdSSHStartPort}
	res, stats, err := checker.Check(ctx, driftcheck.Request{ClusterID: id, Options: settings.opts})
	logDriftStats(ctx, stats)
	if err != nil {
		addDriftCheckError(&resp.Diagnostics, id, err)
		return
	}

	model.NodeSource = types.StringValue(settings.nodeSource)
	model.GracePeriod = types.StringValue(settings.gracePeriod)
	model.CheckNetworkRules = types.BoolValue(settings.checkRules)
	model.FailOnDrift = types.BoolValue(settings.failOnDrift)
	resp.Diagnostics.Append(model.setResult(res)...)
	if resp.Diagnostics.HasError() {
		return
	}
	label := driftClusterLabel(stats.ClusterName, id)
	if driftHostKeyRefusal(&resp.Diagnostics, label, stats.Node, settings.opts, res) {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
	addClusterDriftDiagnostics(&resp.Diagnostics, label, res, settings.failOnDrift)
}

// setResult copies a check's outcome into the model.
func (m *clusterDriftModel) setResult(res drift.Result) diag.Diagnostics {
	var diags diag.Diagnostics
	m.InSync = types.BoolValue(res.InSync)
	m.ClusterState = types.StringValue(res.ClusterState)
	m.Skipped = types.BoolValue(res.Skipped)
	m.SkipReason = driftStringOrNull(res.SkipReason)
	m.NodesChecked = types.BoolValue(res.NodesChecked)
	m.NodeCheckError = driftStringOrNull(res.NodeCheckError)
	m.Summary = types.StringValue(res.Summary)
	var d diag.Diagnostics
	m.Findings, d = driftFindingsValue(res.Findings)
	diags.Append(d...)
	m.Counts, d = driftCountsValue(res.Counts)
	diags.Append(d...)
	return diags
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

func logDriftStats(ctx context.Context, st driftcheck.Stats) {
	fields := map[string]any{
		"cloudstack_requests": st.CloudStackRequests(),
		"ssh_sessions":        st.SSHSessions,
		"kube_api_listings":   st.KubeAPIListings,
		"elapsed_ms":          st.Elapsed.Milliseconds(),
	}
	if st.Node.Address != "" {
		fields["node_address"] = st.Node.Address
	}
	tflog.Debug(ctx, "drift check done", fields)
}
