package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

var (
	_ datasource.DataSourceWithConfigure      = (*clustersDriftDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*clustersDriftDataSource)(nil)
)

type clustersDriftDataSource struct {
	configuredDataSource
}

type clustersDriftModel struct {
	Account     types.String `tfsdk:"account"`
	ProjectID   types.String `tfsdk:"project_id"`
	NameRegex   types.String `tfsdk:"name_regex"`
	ZoneID      types.String `tfsdk:"zone_id"`
	Concurrency types.Int64  `tfsdk:"concurrency"`
	driftOptionsModel

	Clusters types.List   `tfsdk:"clusters"`
	InSync   types.Bool   `tfsdk:"in_sync"`
	Counts   types.Map    `tfsdk:"counts"`
	Summary  types.String `tfsdk:"summary"`
}

// fleetClusterModel is one element of clusters: who the cluster is, and its
// check's outcome.
type fleetClusterModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Account   types.String `tfsdk:"account"`
	ProjectID types.String `tfsdk:"project_id"`
	Error     types.String `tfsdk:"error"`
	driftResultModel
}

func newClustersDriftDataSource() datasource.DataSource {
	return &clustersDriftDataSource{}
}

func (d *clustersDriftDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_clusters_drift"
}

// fleetClusterAttributes are the per-cluster outputs: one cluster's check
// plus who it is and whether it could be checked at all.
func fleetClusterAttributes() map[string]schema.Attribute {
	attrs := driftResultAttributes()
	attrs["id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the cluster."}
	attrs["name"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the cluster."}
	attrs["account"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Owning account; null for a project's cluster."}
	attrs["project_id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Owning project; null for an account's cluster."}
	attrs["error"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "Why the cluster could not be checked (a CloudStack call failed); null otherwise. Its other " +
			"results are then empty and `in_sync` is false; with `fail_on_drift`, such a cluster fails the gate unless " +
			"`allow_incomplete`.",
	}
	return attrs
}

func (d *clustersDriftDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := driftOptionAttributes()
	attrs["account"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Only the clusters of this account (by name, case-insensitive). Project clusters are left out.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["project_id"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Only the clusters of this project.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1),
			stringvalidator.ConflictsWith(path.MatchRoot("account"))},
	}
	attrs["name_regex"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Only the clusters whose name matches this regular expression (Go RE2 syntax), e.g. `^prod-`.",
		Validators:          []validator.String{regexpSyntaxValidator()},
	}
	attrs["zone_id"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Only the clusters of this zone (its id). With `name_regex`, `account` and `project_id`, it shards a large fleet across CI jobs.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["concurrency"] = schema.Int64Attribute{
		Optional: true,
		MarkdownDescription: fmt.Sprintf("How many clusters are checked at once (SSH sessions and CloudStack calls in flight). "+
			"Defaults to %d; at most %d.", driftcheck.DefaultConcurrency, driftcheck.MaxConcurrency),
		Validators: []validator.Int64{int64validator.Between(1, driftcheck.MaxConcurrency)},
	}
	attrs["clusters"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "One result per cluster, ordered by name then id.",
		NestedObject:        schema.NestedAttributeObject{Attributes: fleetClusterAttributes()},
	}
	attrs["in_sync"] = schema.BoolAttribute{
		Computed: true,
		MarkdownDescription: "True when every selected cluster was checked completely and is in sync: a skipped or failed " +
			"cluster, or one with `incomplete_views`, makes it false.",
	}
	attrs["counts"] = schema.MapAttribute{
		Computed:            true,
		ElementType:         types.Int64Type,
		MarkdownDescription: "Number of findings per kind over all clusters; every kind is present, zero included.",
	}
	attrs["summary"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "Human-readable summary, e.g. `4 clusters: 1 in sync, 1 drifted (1 finding: 1 vm_map_inconsistent), " +
			"1 incomplete (views not checked: 1 nodes), 1 skipped`.",
	}
	attrs["ssh"] = driftSSHAttribute(false)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Checks every CKS cluster visible to the credentials for drift, optionally filtered by account, " +
			"project, zone or name, with bounded concurrency, and reports per cluster and overall. The cluster list and each " +
			"owner's VM list are read once for the whole fleet.\n\n" + driftViewsDescription + "\n\n" + driftGateDescription +
			" With a fleet, the contract holds cluster by cluster: a cluster that could not be read (a CloudStack error), " +
			"that was skipped, or whose nodes or rules could not be compared fails the gate unless `allow_incomplete`; " +
			"use `known_hosts` listing every control node, since each cluster has its own host key, and a cluster whose " +
			"host key is refused or missing from it fails the run.\n\n" + driftSecretsDescription,
		Attributes: attrs,
	}
}

func (d *clustersDriftDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var model clustersDriftModel
	if req.Config.Get(ctx, &model).HasError() {
		// A value its type refuses (grace_period) fails the decoding; the
		// framework reports it against its path.
		return
	}
	validateDriftOptions(ctx, model.driftOptionsModel, &resp.Diagnostics)
}

func (d *clustersDriftDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model clustersDriftModel
	if !decodeConfigured(ctx, req.Config, &model, d.data, &resp.Diagnostics) {
		return
	}
	settings, diags := resolveDriftSettings(ctx, model.driftOptionsModel)
	resp.Diagnostics.Append(diags...)
	filter := driftcheck.Filter{Account: model.Account.ValueString(), ProjectID: model.ProjectID.ValueString(),
		ZoneID: model.ZoneID.ValueString()}
	if v := model.NameRegex.ValueString(); v != "" {
		re, err := regexp.Compile(v)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("name_regex"), "Invalid Regular Expression", err.Error())
		}
		filter.NameRegex = re
	}
	if resp.Diagnostics.HasError() {
		return
	}

	fleet, stats, err := d.data.driftChecker().CheckMany(ctx, filter, settings.opts, int(model.Concurrency.ValueInt64()))
	logDriftStats(ctx, stats)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Check Cluster Drift", "The clusters could not be listed: "+err.Error())
		return
	}

	model.setEffective(settings)
	resp.Diagnostics.Append(model.setIgnoreStatus(settings, fleet.RuleUses)...)
	model.InSync = types.BoolValue(fleet.InSync)
	model.Summary = types.StringValue(fleet.Summary)
	var d2 diag.Diagnostics
	model.Counts, d2 = driftCountsValue(fleet.Counts)
	resp.Diagnostics.Append(d2...)
	model.Clusters, d2 = fleetClustersValue(ctx, fleet)
	resp.Diagnostics.Append(d2...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
	addFleetDiagnostics(&resp.Diagnostics, fleet, settings.opts, settings.gate)
	addDriftIgnoreDiagnostics(&resp.Diagnostics, settings.opts.Ignore, fleet.RuleUses, fleet.Checked, fleet.Skipped+fleet.Failed)
}

// fleetClustersValue renders the per-cluster results.
func fleetClustersValue(ctx context.Context, fleet driftcheck.Fleet) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	attrTypes := map[string]attr.Type{}
	for name, a := range fleetClusterAttributes() {
		attrTypes[name] = a.GetType()
	}
	clusters := make([]fleetClusterModel, 0, len(fleet.Clusters))
	for _, c := range fleet.Clusters {
		one := fleetClusterModel{
			ID:        types.StringValue(c.ID),
			Name:      types.StringValue(c.Name),
			Account:   stringOrNull(c.Account),
			ProjectID: stringOrNull(c.ProjectID),
			Error:     types.StringNull(),
		}
		diags.Append(one.setResult(c.Result)...)
		if c.Err != nil {
			one.Error = stringOrNull(c.Err.Error())
			one.Findings, _ = driftFindingsValue(nil)
			one.Counts, _ = driftCountsValue(nil)
			one.IncompleteViews, _ = driftIncompleteValue(nil)
			one.IgnoredFindings, _ = driftIgnoredValue(nil)
			one.IgnoredCounts, _ = driftCountsValue(nil)
			one.Summary = types.StringValue("not checked: " + c.Err.Error())
			one.ClusterState = types.StringNull()
			one.KubernetesVersion = types.StringNull()
		}
		clusters = append(clusters, one)
	}
	list, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: attrTypes}, clusters)
	diags.Append(d...)
	return list, diags
}

// addFleetDiagnostics reports the drifted clusters in one diagnostic, and
// the clusters that were not compared completely (failed, skipped, or with
// incomplete views) in one each: errors with fail_on_drift unless
// allow_incomplete, warnings otherwise. A refused host key is an error in
// any case, as for one cluster.
func addFleetDiagnostics(diags *diag.Diagnostics, fleet driftcheck.Fleet, opts driftcheck.Options, gate driftGate) {
	var drifted, skipped, failed, incomplete, refused, ignored []string
	for _, c := range fleet.Clusters {
		label := driftClusterLabel(c.Name, c.ID)
		var hostKeyErr *sshlister.HostKeyError
		switch {
		case c.Err != nil:
			failed = append(failed, fmt.Sprintf("\n  - %s: %s", label, c.Err))
		case c.Result.Skipped:
			skipped = append(skipped, fmt.Sprintf("\n  - %s: %s", label, c.Result.SkipReason))
		default:
			if errors.As(c.Node.Err, &hostKeyErr) {
				refused = append(refused, fmt.Sprintf("\n  - %s at %s: %s", label, c.Node.Address, hostKeyErr))
			} else if len(c.Result.Incomplete) > 0 {
				incomplete = append(incomplete, "\n  "+label+":"+strings.ReplaceAll(driftIncompleteText(c.Result.Incomplete), "\n", "\n  "))
			}
			if len(c.Result.Findings) > 0 {
				drifted = append(drifted, fmt.Sprintf("\n%s: %s%s", label, c.Result.Summary, driftFindingsText(c.Result)))
			}
			if len(c.Result.Ignored) > 0 {
				ignored = append(ignored, "\n"+label+":"+driftIgnoredText(c.Result.Ignored))
			}
		}
	}
	if len(refused) > 0 {
		diags.AddAttributeError(path.Root("ssh").AtName(driftHostKeyAttr(opts)), "SSH Host Key Refused",
			"Control node 1 of these clusters answered with a host key that ssh."+driftHostKeyAttr(opts)+" does not accept:"+
				strings.Join(refused, "")+"\n\nA node may have been rebuilt, a cluster may be missing from known_hosts, or "+
				"something else answers at that address. Check the key on the node (ssh-keyscan -p <port> <host>) before you "+
				"trust it, or leave the cluster out with name_regex, account or project_id. A refused host key fails the run "+
				"whatever fail_on_drift and allow_incomplete say. "+fleet.Summary)
	}
	notChecked := func(summary, intro string, lines []string) {
		if len(lines) == 0 {
			return
		}
		detail := intro + strings.Join(lines, "")
		if gate.failsIncomplete() {
			diags.AddError(summary, detail+"\n\n"+driftFailsClosedNote)
			return
		}
		diags.AddWarning(summary, detail)
	}
	notChecked("Clusters Not Checked", "These clusters could not be checked, so the fleet is not known to be in sync:", failed)
	notChecked("Cluster Drift Check Skipped", "These clusters are busy or not managed by CKS and were not compared:", skipped)
	notChecked("Cluster Drift Check Incomplete", "These clusters were compared without every view asked for, so they are "+
		"not known to be in sync:", incomplete)
	if len(ignored) > 0 {
		diags.AddWarning("Cluster Drift Ignored", "These findings are accepted by ignore rules and do not fail the gate:"+
			strings.Join(ignored, "\n"))
	}
	if len(drifted) == 0 {
		return
	}
	detail := fleet.Summary + "\n" + strings.Join(drifted, "\n")
	if gate.failOnDrift {
		diags.AddError("Cluster Drift Detected", detail+"\n\nfail_on_drift is true, so this fails the run.")
		return
	}
	diags.AddWarning("Cluster Drift Detected", detail)
}
