package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

var _ list.ListResourceWithConfigure = (*clusterListResource)(nil)

// clusterListResource answers terraform query (Terraform 1.14+) for
// cks_cluster: the clusters CloudStack has, each with its identity, and with
// include_resource the state an import of it records, from which
// -generate-config-out writes a configuration that plans no change once
// imported.
type clusterListResource struct {
	data *providerData
}

func newClusterListResource() list.ListResource {
	return &clusterListResource{}
}

// clusterListModel is the list block's config.
type clusterListModel struct {
	ZoneID    types.String `tfsdk:"zone_id"`
	ProjectID types.String `tfsdk:"project_id"`
	Account   types.String `tfsdk:"account"`
	DomainID  types.String `tfsdk:"domain_id"`
	NameRegex types.String `tfsdk:"name_regex"`
	State     types.String `tfsdk:"state"`
}

func (l *clusterListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (l *clusterListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.data = data
}

// clusterStates are the states a cluster can be in, for the state filter.
var clusterStates = []string{clusterstate.Created, clusterstate.Starting, clusterstate.Running, clusterstate.Stopping,
	clusterstate.Stopped, clusterstate.Scaling, clusterstate.ScalingStoppedCluster, clusterstate.Upgrading,
	clusterstate.Importing, clusterstate.RemovingNodes, clusterstate.Alert, clusterstate.Recovering,
	clusterstate.Destroying, clusterstate.Error}

func (l *clusterListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the CKS clusters CloudStack has, for `terraform query`: every account's the credentials " +
			"may list and every project's, narrowed by the filters. Each result has the cluster's identity (its id); with " +
			"`include_resource = true` it also has what an import records, so that `terraform query -generate-config-out` " +
			"writes resource and import blocks that plan no change once applied. Clusters no Terraform state knows are the " +
			"results whose id no state has (see the guide on adopting clusters).",
		Attributes: map[string]listschema.Attribute{
			"zone_id": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the clusters of this zone.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"project_id": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the clusters of this project. " +
				"Conflicts with `account` and `domain_id`.", Validators: ownerValidators["project_id"]},
			"account": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the clusters of this account; " +
				"needs `domain_id`.", Validators: ownerValidators["account"]},
			"domain_id": listschema.StringAttribute{Optional: true, MarkdownDescription: "The domain of `account`.",
				Validators: ownerValidators["domain_id"]},
			"name_regex": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the clusters whose name " +
				"matches this regular expression (Go RE2 syntax, unanchored: use `^` and `$` for a whole name).",
				Validators: []validator.String{regexpSyntaxValidator()}},
			"state": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the clusters in this state, such " +
				"as `Running` or `Alert` (case-insensitive).",
				Validators: []validator.String{stringvalidator.OneOfCaseInsensitive(clusterStates...)}},
		},
	}
}

// List streams the clusters the filters select, by name.
func (l *clusterListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg clusterListModel
	diags := req.Config.Get(ctx, &cfg)
	if l.data == nil {
		notConfigured(&diags)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	filter := clusterops.ClusterFilter{ZoneID: knownString(cfg.ZoneID), State: knownString(cfg.State),
		Owner: cloudstack.Ownership{Account: knownString(cfg.Account), DomainID: knownString(cfg.DomainID),
			ProjectID: knownString(cfg.ProjectID)}}
	if pattern := knownString(cfg.NameRegex); pattern != "" {
		filter.Name = regexp.MustCompile(pattern) // validated by the schema
	}
	clusters, err := l.data.engine().List(ctx, filter)
	if err != nil {
		diags.AddError("Unable to List Clusters", err.Error())
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i := range clusters {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			if !push(l.result(ctx, req, &clusters[i])) {
				return
			}
		}
	}
}

// result is one cluster's result: its identity, a display name and, when
// asked for, its state as an import records it.
func (l *clusterListResource) result(ctx context.Context, req list.ListRequest, c *cloudstack.Cluster) list.ListResult {
	result := req.NewListResult(ctx)
	result.DisplayName = fmt.Sprintf("%s (%s, %s)", c.Name, c.ZoneName, c.State)
	result.Diagnostics.Append(result.Identity.SetAttribute(ctx, path.Root("id"), c.ID)...)
	if req.IncludeResource {
		result.Diagnostics.Append(l.importedState(ctx, c, result.Resource)...)
	}
	return result
}

// importedState fills res with what the read after an import of the
// cluster records (cluster_resource_read.go): the refresh of every
// attribute CloudStack reports, and the node templates and external load
// balancer address an import reads.
func (l *clusterListResource) importedState(ctx context.Context, c *cloudstack.Cluster, res *tfsdk.Resource) diag.Diagnostics {
	diags := res.SetAttribute(ctx, path.Root("id"), c.ID)
	var m clusterResourceModel
	diags.Append(res.Get(ctx, &m)...)
	private := memoryPrivate{privateImported: []byte(`true`)}
	op, d := opOf(ctx, &m, &m, nil, readPrivate(ctx, private), diags)
	if diags = d; diags.HasError() {
		return diags
	}
	obs := l.data.engine().ObserveCluster(ctx, c, op.intent)
	diags.Append(refreshModel(ctx, &m, obs, private)...)
	diags.Append(adoptImported(ctx, &m, obs, private)...)
	if diags.HasError() {
		return diags
	}
	return append(diags, res.Set(ctx, &m)...)
}

// memoryPrivate is private state kept in memory, for a read outside an
// operation.
type memoryPrivate map[string][]byte

func (p memoryPrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return p[key], nil
}

func (p memoryPrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(p, key)
	} else {
		p[key] = value
	}
	return nil
}
