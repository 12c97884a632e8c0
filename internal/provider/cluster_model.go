package provider

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// clusterObservedModel holds the attributes that the cks_cluster resource and
// data source both fill from listKubernetesClusters. It is embedded by value
// in both models so that one function refreshes them.
type clusterObservedModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	Description         types.String `tfsdk:"description"`
	ZoneID              types.String `tfsdk:"zone_id"`
	KubernetesVersionID types.String `tfsdk:"kubernetes_version_id"`
	KubernetesVersion   types.String `tfsdk:"kubernetes_version"`
	ServiceOfferingID   types.String `tfsdk:"service_offering_id"`
	ControlOfferingID   types.String `tfsdk:"control_offering_id"`
	WorkerOfferingID    types.String `tfsdk:"worker_offering_id"`
	EtcdOfferingID      types.String `tfsdk:"etcd_offering_id"`
	ControlNodes        types.Int64  `tfsdk:"control_nodes"`
	EtcdNodes           types.Int64  `tfsdk:"etcd_nodes"`
	Size                types.Int64  `tfsdk:"size"`
	Keypair             types.String `tfsdk:"keypair"`
	NetworkID           types.String `tfsdk:"network_id"`
	Account             types.String `tfsdk:"account"`
	DomainID            types.String `tfsdk:"domain_id"`
	ProjectID           types.String `tfsdk:"project_id"`
	State               types.String `tfsdk:"state"`
	Endpoint            types.String `tfsdk:"endpoint"`
	IPAddress           types.String `tfsdk:"ip_address"`
	IPAddressID         types.String `tfsdk:"ip_address_id"`
	Created             types.String `tfsdk:"created"`
	Cores               types.Int64  `tfsdk:"cores"`
	Memory              types.Int64  `tfsdk:"memory"`
	Nodes               types.List   `tfsdk:"nodes"`
}

// observedDataSourceAttributes is the schema of clusterObservedModel in
// the cks_cluster data source, which reports it as it is: every field but
// id and name, the data source's lookup keys (cluster_data_source.go). It
// stands beside the model so that a field and its attribute come together.
func observedDataSourceAttributes() map[string]dsschema.Attribute {
	computed := func(description string) dsschema.StringAttribute {
		return dsschema.StringAttribute{Computed: true, MarkdownDescription: description}
	}
	computedInt := func(description string) dsschema.Int64Attribute {
		return dsschema.Int64Attribute{Computed: true, MarkdownDescription: description}
	}
	return map[string]dsschema.Attribute{
		"description":           computed("Description of the cluster."),
		"zone_id":               computed("Id of the zone."),
		"kubernetes_version_id": computed("Id of the cluster's Kubernetes version."),
		"kubernetes_version":    computed(kubernetesVersionDescription),
		"service_offering_id":   computed("Id of the default compute offering."),
		"control_offering_id":   computed("Id of the control nodes' offering: their own, else the cluster's service offering."),
		"worker_offering_id":    computed("Id of the worker nodes' offering: their own, else the cluster's service offering."),
		"etcd_offering_id":      computed("Id of the etcd nodes' offering: their own, else the cluster's service offering; null without etcd nodes unless CloudStack recorded one."),
		"control_nodes":         computedInt("Number of control nodes."),
		"etcd_nodes":            computedInt("Number of separate etcd nodes."),
		"size": computedInt("Number of worker nodes CKS makes and scales: CloudStack's node count less the external " +
			"nodes, which it counts too."),
		"keypair":       computed("SSH key pair authorised on the nodes."),
		"network_id":    computed("Id of the guest network."),
		"account":       computed("Account that owns the cluster."),
		"domain_id":     computed("Id of the owner's domain."),
		"project_id":    computed("Id of the owning project."),
		"state":         computed("State of the cluster, such as `Running`, `Stopped` or `Alert`."),
		"endpoint":      computed("Kubernetes API endpoint."),
		"ip_address":    computed("Public address of the cluster."),
		"ip_address_id": computed("Id of the public IP address on an isolated network."),
		"created":       computed("Creation time as CloudStack reports it."),
		"cores":         computedInt("CPU cores of the cluster as CloudStack accounts them (`cpunumber`): for each node type, its count times its offering's cores, external nodes included."),
		"memory":        computedInt("Memory of the cluster in MiB as CloudStack accounts it (`memory`), summed like `cores`."),
		"nodes": dsschema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The cluster's node VMs: etcd nodes, control nodes, workers, then external nodes, each role by name.",
			NestedObject: dsschema.NestedAttributeObject{Attributes: map[string]dsschema.Attribute{
				"id":    computed("Id of the VM."),
				"name":  computed("Name of the VM."),
				"role":  computed("`control`, `worker`, `etcd` or `external` (a VM joined to the cluster)."),
				"state": computed("State of the VM."),
				"ssh_port": computedInt("Public SSH port of the node on `ip_address` (`2222+i`, or `etcd_ssh_start_port+j` " +
					"for etcd nodes); null on directly accessed networks."),
			}},
		},
	}
}

// clusterResourceModel is the cks_cluster resource.
type clusterResourceModel struct {
	clusterObservedModel

	// NodeRootDiskSize and Hypervisor are create-only inputs that
	// listKubernetesClusters does not return: they are kept from the
	// configuration and are null after an import.
	NodeRootDiskSize types.Int64  `tfsdk:"node_root_disk_size"`
	Hypervisor       types.String `tfsdk:"hypervisor"`

	clusterCreateOnlyModel

	Autoscaling             types.Object `tfsdk:"autoscaling"`
	SSHCIDRs                types.List   `tfsdk:"ssh_cidrs"`
	APICIDRs                types.List   `tfsdk:"api_cidrs"`
	RecreateUserHazardRules types.Bool   `tfsdk:"recreate_user_hazard_rules"`
	AllowRestartForRecovery types.Bool   `tfsdk:"allow_restart_for_recovery"`
	DeletionProtection      types.Bool   `tfsdk:"deletion_protection"`
	// CloudStackState is the state CloudStack reports; State is the desired
	// one, refreshed only when CloudStack's is Running or Stopped.
	CloudStackState types.String `tfsdk:"cloudstack_state"`
	// SSHRulesInSync is false when the next apply has SSH rules to bring to
	// the provider's layout.
	SSHRulesInSync types.Bool     `tfsdk:"ssh_rules_in_sync"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

// clusterDataSourceModel is the cks_cluster data source.
type clusterDataSourceModel struct {
	clusterObservedModel

	Autoscaling types.Object `tfsdk:"autoscaling"`
}

// autoscalingModel is the autoscaling object.
type autoscalingModel struct {
	Enabled types.Bool  `tfsdk:"enabled"`
	MinSize types.Int64 `tfsdk:"min_size"`
	MaxSize types.Int64 `tfsdk:"max_size"`
}

// nodeModel is one element of nodes.
type nodeModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	Role    types.String `tfsdk:"role"`
	State   types.String `tfsdk:"state"`
	SSHPort types.Int64  `tfsdk:"ssh_port"`
}

var (
	autoscalingAttrTypes = map[string]attr.Type{
		"enabled":  types.BoolType,
		"min_size": types.Int64Type,
		"max_size": types.Int64Type,
	}
	nodeAttrTypes = map[string]attr.Type{
		"id":       types.StringType,
		"name":     types.StringType,
		"role":     types.StringType,
		"state":    types.StringType,
		"ssh_port": types.Int64Type,
	}
	nodeObjectType = types.ObjectType{AttrTypes: nodeAttrTypes}
)

// refresh sets every observed attribute from the API's view of the cluster.
// network decides the SSH ports of nodes: CKS forwards none on directly
// accessed networks, so ssh_port is null there.
func (m *clusterObservedModel) refresh(ctx context.Context, c *cloudstack.Cluster, network rules.NetworkKind, nodes []clusterops.Node) diag.Diagnostics {
	m.ID = types.StringValue(c.ID)
	m.Name = types.StringValue(c.Name)
	m.Description = stringOrNull(c.Description)
	m.ZoneID = stringOrNull(c.ZoneID)
	m.KubernetesVersionID = stringOrNull(c.KubernetesVersionID)
	m.KubernetesVersion = stringOrNull(kubeversion.FromName(c.KubernetesVersionName))
	m.ServiceOfferingID = stringOrNull(c.ServiceOfferingID)
	m.ControlOfferingID = stringOrNull(clusterops.NodeOffering(c, "control"))
	m.WorkerOfferingID = stringOrNull(clusterops.NodeOffering(c, "worker"))
	m.EtcdOfferingID = stringOrNull(clusterops.NodeOffering(c, "etcd"))
	m.ControlNodes = types.Int64Value(c.ControlNodes)
	m.EtcdNodes = types.Int64Value(c.EtcdNodes)
	m.Size = types.Int64Value(c.ManagedWorkers())
	m.Keypair = stringOrNull(c.Keypair)
	m.NetworkID = stringOrNull(c.NetworkID)
	m.Account = stringOrNull(c.Account)
	m.DomainID = stringOrNull(c.DomainID)
	m.ProjectID = stringOrNull(c.ProjectID)
	m.State = stringOrNull(c.State)
	m.Endpoint = stringOrNull(c.Endpoint)
	m.IPAddress = stringOrNull(clusterAddress(c))
	m.IPAddressID = stringOrNull(c.IPAddressID)
	m.Created = stringOrNull(c.Created)
	m.Cores = types.Int64Value(c.Cores)
	m.Memory = types.Int64Value(c.Memory)

	list, diags := nodesList(ctx, nodes, network)
	m.Nodes = list
	return diags
}

// roleExternal is the role of an external node in the nodes attribute.
const roleExternal = "external"

// nodesList is the nodes attribute of a list of nodes. CKS forwards no SSH
// port on a directly accessed network, so ssh_port is null there.
func nodesList(ctx context.Context, nodes []clusterops.Node, network rules.NetworkKind) (types.List, diag.Diagnostics) {
	elems := make([]nodeModel, 0, len(nodes))
	for _, n := range nodes {
		port := types.Int64Null()
		if network != rules.NetworkDirect && n.SSHPort > 0 {
			port = types.Int64Value(int64(n.SSHPort))
		}
		role := string(n.Role)
		if n.External {
			role = roleExternal
		}
		elems = append(elems, nodeModel{
			ID:      types.StringValue(n.ID),
			Name:    types.StringValue(n.Name),
			Role:    types.StringValue(role),
			State:   stringOrNull(n.State),
			SSHPort: port,
		})
	}
	return types.ListValueFrom(ctx, nodeObjectType, elems)
}

// clusterAddress is the public address CKS uses for the cluster: ipaddress
// on isolated networks, else the host of the endpoint (VPC tiers, whose
// cluster IP is not a source NAT IP, and directly accessed networks).
func clusterAddress(c *cloudstack.Cluster) string {
	if c.IPAddress != "" {
		return c.IPAddress
	}
	if c.Endpoint == "" {
		return ""
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// observedAutoscaling is the autoscaling object as the API reports it,
// always set (the data source view).
func observedAutoscaling(c *cloudstack.Cluster) types.Object {
	m := autoscalingModel{Enabled: types.BoolValue(c.AutoscalingEnabled), MinSize: types.Int64Null(), MaxSize: types.Int64Null()}
	if c.AutoscalingEnabled {
		m.MinSize = types.Int64Value(c.MinSize)
		m.MaxSize = types.Int64Value(c.MaxSize)
	}
	return autoscalingObject(m)
}

// refreshedAutoscaling is the resource's autoscaling object after a read.
// A configuration without the object means "disabled", so it stays null
// while the API agrees; min_size and max_size of a disabled autoscaler are
// not in effect (and the API does not report them), so they keep the prior
// values.
func refreshedAutoscaling(ctx context.Context, prior types.Object, c *cloudstack.Cluster) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	if c.AutoscalingEnabled {
		return observedAutoscaling(c), diags
	}
	if prior.IsNull() || prior.IsUnknown() {
		return types.ObjectNull(autoscalingAttrTypes), diags
	}
	var m autoscalingModel
	diags.Append(prior.As(ctx, &m, objectAsOptions)...)
	m.Enabled = types.BoolValue(false)
	if m.MinSize.IsUnknown() {
		m.MinSize = types.Int64Null()
	}
	if m.MaxSize.IsUnknown() {
		m.MaxSize = types.Int64Null()
	}
	return autoscalingObject(m), diags
}

func autoscalingObject(m autoscalingModel) types.Object {
	return types.ObjectValueMust(autoscalingAttrTypes, map[string]attr.Value{
		"enabled":  m.Enabled,
		"min_size": m.MinSize,
		"max_size": m.MaxSize,
	})
}

// autoscalingOf reads the autoscaling object; a null or unknown object is
// "disabled". known is false when the object or a field is unknown.
func autoscalingOf(ctx context.Context, obj types.Object) (m autoscalingModel, known bool, diags diag.Diagnostics) {
	if obj.IsUnknown() {
		return autoscalingModel{Enabled: types.BoolValue(false)}, false, diags
	}
	if obj.IsNull() {
		return autoscalingModel{Enabled: types.BoolValue(false), MinSize: types.Int64Null(), MaxSize: types.Int64Null()}, true, diags
	}
	diags.Append(obj.As(ctx, &m, objectAsOptions)...)
	known = !m.Enabled.IsUnknown() && !m.MinSize.IsUnknown() && !m.MaxSize.IsUnknown()
	return m, known, diags
}

// enabled reports whether the autoscaler is on.
func (m autoscalingModel) enabled() bool { return m.Enabled.ValueBool() }
