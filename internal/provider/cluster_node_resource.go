package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

var (
	_ resource.ResourceWithConfigure   = (*clusterNodeResource)(nil)
	_ resource.ResourceWithImportState = (*clusterNodeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*clusterNodeResource)(nil)
)

// defaultNodeTimeout bounds a join or a removal: CloudStack's own limits
// are cloud.kubernetes.cluster.add.node.timeout and remove.node.timeout
// (3600 s by default).
const defaultNodeTimeout = 60 * time.Minute

// clusterNodeResource joins one existing VM to a CKS cluster as an external
// node (CloudStack 4.21+).
type clusterNodeResource struct {
	data *providerData
}

func newClusterNodeResource() resource.Resource { return &clusterNodeResource{} }

// clusterNodeModel is cks_cluster_node's state.
type clusterNodeModel struct {
	ID                types.String   `tfsdk:"id"`
	ClusterID         types.String   `tfsdk:"cluster_id"`
	VMID              types.String   `tfsdk:"vm_id"`
	ManualUpgrade     types.Bool     `tfsdk:"manual_upgrade"`
	MountCKSISOOnVR   types.Bool     `tfsdk:"mount_cks_iso_on_vr"`
	Name              types.String   `tfsdk:"name"`
	SSHPort           types.Int64    `tfsdk:"ssh_port"`
	KubernetesVersion types.String   `tfsdk:"kubernetes_version"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

const clusterNodeDescription = "Joins an existing VM to a CKS cluster as an external worker node " +
	"(`addNodesToKubernetesCluster`, CloudStack 4.21+), for workers of another template or offering than the cluster's, " +
	"such as GPU nodes; destroying it takes the VM out of the cluster (`removeNodesFromKubernetesCluster`), and the VM " +
	"keeps running.\n\n" +
	"The VM must run, have its default NIC in the cluster's network and come from a template marked for CKS (`for_cks`), " +
	"and the cluster must be Running on an isolated network or a VPC tier: CloudStack drops or skips any other VM without " +
	"an error, so the plan refuses it, naming the attribute. After the join the provider reads the cluster's VM map " +
	"(CloudStack's job succeeds also when it skipped the VM), deletes what a skipped VM left behind, tags the VM with how " +
	"it was joined (`cks-cluster-node`, `cks-manual-upgrade`: CloudStack's API shows neither, and the cluster's upgrades " +
	"and destroy need them), and widens the cluster's node SSH firewall range over the node's forward, keeping the " +
	"range's CIDRs.\n\n" +
	"The cluster's `size` does not count external nodes, and its scales keep them. Make the node depend on the cluster " +
	"(reference `cks_cluster.<name>.id`) so that a destroy removes it before the cluster."

func (r *clusterNodeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_node"
}

func (r *clusterNodeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.data = data
}

func (r *clusterNodeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replaced := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	uuid := []validator.String{stringvalidator.LengthAtLeast(1)}
	resp.Schema = schema.Schema{MarkdownDescription: clusterNodeDescription, Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<cluster_id>/<vm_id>`, the import id.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"cluster_id": schema.StringAttribute{Required: true, Validators: uuid, PlanModifiers: replaced,
			MarkdownDescription: "Id of the cluster to join. Changing it moves the VM to another cluster (removed, then joined)."},
		"vm_id": schema.StringAttribute{Required: true, Validators: uuid, PlanModifiers: replaced,
			MarkdownDescription: "Id of the VM to join. Changing it removes this VM and joins the other."},
		"manual_upgrade": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			PlanModifiers: []planmodifier.Bool{replaceIfJoinedOtherwise{}},
			MarkdownDescription: "Join the node for manual upgrades: the cluster's upgrades skip it and it stays on its " +
				"version until you upgrade it yourself (`manualupgrade`). CloudStack cannot change it after the join, so " +
				"changing it removes the node and joins it again; after an import, where CloudStack does not tell, the " +
				"configured value is recorded in the VM's tag without a change."},
		"mount_cks_iso_on_vr": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Serve the Kubernetes binaries ISO from the network's virtual router instead of attaching it " +
				"to the VM (`mountcksisoonvr`, for VMware). Used only by the join: changing it changes nothing in CloudStack."},
		"name": computedStable("Name of the VM."),
		"ssh_port": schema.Int64Attribute{Computed: true,
			MarkdownDescription: "Public SSH port of the node on the cluster's address (its forward to port 22); null without one."},
		"kubernetes_version": schema.StringAttribute{Computed: true,
			MarkdownDescription: "Kubernetes version CloudStack records for the node (`kubernetesnodeversion`): the cluster's " +
				"at the join, then each upgrade's that takes the node."},
		"timeouts": nodeTimeouts(ctx),
	}}
}

// nodeTimeouts are the join's and the removal's timeouts.
func nodeTimeouts(ctx context.Context) schema.Attribute {
	return checkedTimeouts(ctx, timeouts.Opts{Create: true, Delete: true}, fmt.Sprintf("How long to wait for the join "+
		"(create) and the removal (delete), as Go durations such as `90m`; each defaults to `%dm`, like CloudStack's own "+
		"add and remove node timeouts (3600 s).", int(defaultNodeTimeout.Minutes())))
}

// ImportState imports a node by "<cluster_id>/<vm_id>".
func (r *clusterNodeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	clusterID, vmID, ok := strings.Cut(req.ID, "/")
	if !ok || clusterID == "" || vmID == "" || strings.Contains(vmID, "/") {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import a cks_cluster_node as <cluster_id>/<vm_id>, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster_id"), clusterID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vm_id"), vmID)...)
}

// engine returns the operations engine.
func (r *clusterNodeResource) engine() *clusterops.Engine { return r.data.engine() }

// replaceIfJoinedOtherwise replaces the node when manual_upgrade changes
// from a value it was joined with: CloudStack cannot change it. A null
// prior value (after an import, where CloudStack does not tell) is only
// recorded.
type replaceIfJoinedOtherwise struct{}

func (replaceIfJoinedOtherwise) Description(context.Context) string {
	return "replaces the node when manual_upgrade changes from the value it was joined with"
}

func (m replaceIfJoinedOtherwise) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (replaceIfJoinedOtherwise) PlanModifyBool(_ context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if req.State.Raw.IsNull() || req.StateValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	if !req.PlanValue.Equal(req.StateValue) {
		resp.RequiresReplace = true
	}
}
