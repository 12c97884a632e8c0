package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// officialStandIn stands in for the official CloudStack provider in
// acceptance tests: provider "cloudstack" with a cloudstack_kubernetes_cluster
// of the official schema (flat, names or ids), which creates its cluster in
// the simulator and stores what the official provider's read stores.
type officialStandIn struct {
	env *simEnv
	// ids resolves the names a configuration may give, as the official
	// provider's retrieveID does; any other value is taken as an id.
	ids map[string]string
}

// withOfficialStandIn returns the provider factories with the stand-in
// added as "cloudstack".
func withOfficialStandIn(e *simEnv) map[string]func() (tfprotov6.ProviderServer, error) {
	ids := map[string]string{
		"sim-zone-1":              e.Info.ZoneID,
		"cks-medium":              e.Info.ServiceOfferingID,
		"v1.33.13":                e.VersionID("1.33.13"),
		"cks-project":             e.Info.ProjectID,
		"CKS node template (KVM)": e.Info.NodeTemplateID,
	}
	f := maps.Clone(testAccProtoV6ProviderFactories)
	f["cloudstack"] = providerserver.NewProtocol6WithError(&officialStandIn{env: e, ids: ids})
	return f
}

func (p *officialStandIn) Metadata(_ context.Context, _ fwprovider.MetadataRequest, resp *fwprovider.MetadataResponse) {
	resp.TypeName = "cloudstack"
}

func (p *officialStandIn) Schema(context.Context, fwprovider.SchemaRequest, *fwprovider.SchemaResponse) {
}

func (p *officialStandIn) Configure(context.Context, fwprovider.ConfigureRequest, *fwprovider.ConfigureResponse) {
}

func (p *officialStandIn) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *officialStandIn) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &officialClusterStandIn{p} },
		func() resource.Resource { return &officialVersionStandIn{p} },
		func() resource.Resource { return &officialCNIStandIn{p} },
	}
}

type officialClusterStandIn struct{ p *officialStandIn }

// officialClusterModel is cloudstack_kubernetes_cluster's schema.
type officialClusterModel struct {
	ID                     types.String `tfsdk:"id"`
	Name                   types.String `tfsdk:"name"`
	Zone                   types.String `tfsdk:"zone"`
	KubernetesVersion      types.String `tfsdk:"kubernetes_version"`
	ServiceOffering        types.String `tfsdk:"service_offering"`
	Size                   types.Int64  `tfsdk:"size"`
	AutoscalingEnabled     types.Bool   `tfsdk:"autoscaling_enabled"`
	MinSize                types.Int64  `tfsdk:"min_size"`
	MaxSize                types.Int64  `tfsdk:"max_size"`
	ControlNodesSize       types.Int64  `tfsdk:"control_nodes_size"`
	Description            types.String `tfsdk:"description"`
	Keypair                types.String `tfsdk:"keypair"`
	NetworkID              types.String `tfsdk:"network_id"`
	IPAddress              types.String `tfsdk:"ip_address"`
	State                  types.String `tfsdk:"state"`
	Account                types.String `tfsdk:"account"`
	DomainID               types.String `tfsdk:"domain_id"`
	Project                types.String `tfsdk:"project"`
	NodeRootDiskSize       types.Int64  `tfsdk:"noderootdisksize"`
	DockerRegistryURL      types.String `tfsdk:"docker_registry_url"`
	DockerRegistryUsername types.String `tfsdk:"docker_registry_username"`
	DockerRegistryPassword types.String `tfsdk:"docker_registry_password"`
	ASNumber               types.Int64  `tfsdk:"as_number"`
	CNIConfigDetails       types.Map    `tfsdk:"cni_config_details"`
	CNIConfigurationID     types.String `tfsdk:"cni_configuration_id"`
	EtcdNodesSize          types.Int64  `tfsdk:"etcd_nodes_size"`
	Hypervisor             types.String `tfsdk:"hypervisor"`
	NodeOfferings          types.Map    `tfsdk:"node_offerings"`
	NodeTemplates          types.Map    `tfsdk:"node_templates"`
}

func (r *officialClusterStandIn) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = officialClusterType
}

func (r *officialClusterStandIn) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	required := schema.StringAttribute{Required: true}
	optional := schema.StringAttribute{Optional: true}
	computed := schema.StringAttribute{Optional: true, Computed: true}
	count := schema.Int64Attribute{Optional: true, Computed: true}
	strMap := schema.MapAttribute{Optional: true, ElementType: types.StringType}
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":                       schema.StringAttribute{Computed: true},
		"name":                     required,
		"zone":                     required,
		"kubernetes_version":       required,
		"service_offering":         required,
		"size":                     schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1)},
		"autoscaling_enabled":      schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
		"min_size":                 count,
		"max_size":                 count,
		"control_nodes_size":       count,
		"description":              computed,
		"keypair":                  computed,
		"network_id":               computed,
		"ip_address":               schema.StringAttribute{Computed: true},
		"state":                    computed,
		"account":                  optional,
		"domain_id":                optional,
		"project":                  optional,
		"noderootdisksize":         schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(8)},
		"docker_registry_url":      optional,
		"docker_registry_username": optional,
		"docker_registry_password": schema.StringAttribute{Optional: true, Sensitive: true},
		"as_number":                schema.Int64Attribute{Optional: true},
		"cni_config_details":       strMap,
		"cni_configuration_id":     computed,
		"etcd_nodes_size":          count,
		"hypervisor":               optional,
		"node_offerings":           strMap,
		"node_templates":           strMap,
	}}
}

// Create creates the cluster as the official provider does (the name as
// description, names resolved to ids) and stores what its read stores:
// CloudStack's values, and zone, version and offering as configured.
func (r *officialClusterStandIn) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m officialClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := r.p.env
	// The plain API, not env.CreateCluster, which fills in a key pair.
	ref, err := env.API.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{
		Name: m.Name.ValueString(), Description: m.Name.ValueString(),
		ZoneID: r.id(m.Zone), KubernetesVersionID: r.id(m.KubernetesVersion), ServiceOfferingID: r.id(m.ServiceOffering),
		ControlNodes: m.ControlNodesSize.ValueInt64(), EtcdNodes: m.EtcdNodesSize.ValueInt64(), Size: m.Size.ValueInt64(),
		NodeRootDiskSize: m.NodeRootDiskSize.ValueInt64(), Keypair: m.Keypair.ValueString(), Hypervisor: m.Hypervisor.ValueString(),
		Ownership: cloudstack.Ownership{ProjectID: r.id(m.Project)},
		ClusterExtras: cloudstack.ClusterExtras{NodeTemplates: r.templates(m.NodeTemplates),
			CNIConfigurationID: knownString(m.CNIConfigurationID), CNIConfigDetails: knownStringMap(m.CNIConfigDetails)},
	})
	if err == nil {
		err = env.WaitJob(ref.JobID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Create Failed", err.Error())
		return
	}
	id := ref.ID
	if m.AutoscalingEnabled.ValueBool() {
		if err := r.autoscale(ctx, id, m); err != nil {
			resp.Diagnostics.AddError("Stand-in Autoscaling Failed", err.Error())
			return
		}
	}
	c, err := env.API.GetKubernetesCluster(ctx, id)
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Read Failed", err.Error())
		return
	}
	m.ID, m.Description, m.State = types.StringValue(c.ID), types.StringValue(c.Description), types.StringValue(c.State)
	m.ControlNodesSize, m.EtcdNodesSize, m.Size = types.Int64Value(c.ControlNodes), types.Int64Value(c.EtcdNodes), types.Int64Value(c.Size)
	m.NetworkID, m.IPAddress, m.CNIConfigurationID = types.StringValue(c.NetworkID), types.StringValue(c.IPAddress), types.StringValue(c.CNIConfigurationID)
	m.Keypair = types.StringValue(c.Keypair)
	m.MinSize, m.MaxSize = types.Int64Value(0), types.Int64Value(0)
	if c.AutoscalingEnabled {
		m.MinSize, m.MaxSize = types.Int64Value(c.MinSize), types.Int64Value(c.MaxSize)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// autoscale turns the autoscaler on after the create, as the official
// provider does.
func (r *officialClusterStandIn) autoscale(ctx context.Context, id string, m officialClusterModel) error {
	on, lowest, highest := true, m.MinSize.ValueInt64(), m.MaxSize.ValueInt64()
	ref, err := r.p.env.API.ScaleKubernetesCluster(ctx, cloudstack.ScaleClusterParams{ID: id, AutoscalingEnabled: &on,
		MinSize: &lowest, MaxSize: &highest})
	if err != nil {
		return err
	}
	return r.p.env.WaitJob(ref.JobID)
}

// templates resolves node_templates, sent with the keys as written (the
// official provider does not change their case).
func (r *officialClusterStandIn) templates(m types.Map) map[string]string {
	out := map[string]string{}
	for role, v := range m.Elements() {
		if name, ok := v.(types.String); ok {
			out[role] = r.id(name)
		}
	}
	return out
}

func (r *officialClusterStandIn) id(v types.String) string { return r.p.id(v) }

// id resolves a name the configuration gives to its id, as the official
// provider's retrieveID does; any other value is taken as an id.
func (p *officialStandIn) id(v types.String) string {
	if id, ok := p.ids[v.ValueString()]; ok {
		return id
	}
	return v.ValueString()
}

// Read keeps the state: the tests read the simulator themselves.
func (r *officialClusterStandIn) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
}

func (r *officialClusterStandIn) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Stand-in Update", "the stand-in does not update clusters")
}

func (r *officialClusterStandIn) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m officialClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, err := r.p.env.API.DeleteKubernetesCluster(ctx, m.ID.ValueString())
	if err == nil {
		err = r.p.env.WaitJob(ref.JobID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Stand-in Delete Failed", err.Error())
	}
}
