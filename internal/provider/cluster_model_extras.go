package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
)

// clusterExtrasModel holds createKubernetesCluster's create-only inputs.
// CloudStack returns only cni_configuration_id and enable_csi
// (createKubernetesClusterResponse); the others keep the value from the
// configuration and are null after an import. The docker registry password
// is write-only: always null here, read from the configuration in Create.
type clusterExtrasModel struct {
	NodeTemplates          types.Map    `tfsdk:"node_templates"`
	CNIConfigurationID     types.String `tfsdk:"cni_configuration_id"`
	CNIConfigDetails       types.Map    `tfsdk:"cni_config_details"`
	ASNumber               types.Int64  `tfsdk:"as_number"`
	DockerRegistryURL      types.String `tfsdk:"docker_registry_url"`
	DockerRegistryUsername types.String `tfsdk:"docker_registry_username"`
	DockerRegistryPassword types.String `tfsdk:"docker_registry_password"`
	EnableCSI              types.Bool   `tfsdk:"enable_csi"`
	ExternalLoadBalancerIP types.String `tfsdk:"external_load_balancer_ip"`
}

// clusterExtras maps the plan onto the create parameters; the password is
// added by Create from the configuration.
func (m clusterExtrasModel) clusterExtras() cloudstack.ClusterExtras {
	return cloudstack.ClusterExtras{
		NodeTemplates:          upperKeys(knownStringMap(m.NodeTemplates)),
		CNIConfigurationID:     knownString(m.CNIConfigurationID),
		CNIConfigDetails:       knownStringMap(m.CNIConfigDetails),
		ASNumber:               m.ASNumber.ValueInt64(),
		DockerRegistryURL:      knownString(m.DockerRegistryURL),
		DockerRegistryUsername: knownString(m.DockerRegistryUsername),
		EnableCSI:              m.EnableCSI.ValueBool(),
		ExternalLoadBalancerIP: knownString(m.ExternalLoadBalancerIP),
	}
}

// refreshReturned sets the inputs CloudStack reports. A field the response
// leaves out says nothing (servers before 4.22 have no csienabled, and a
// server may not echo the CNI configuration): the value is kept, never
// read as false or null, which would replace the cluster.
func (m *clusterExtrasModel) refreshReturned(c *cloudstack.Cluster) {
	if c.CNIConfigurationID != "" || !known(m.CNIConfigurationID) {
		m.CNIConfigurationID = stringOrNull(c.CNIConfigurationID)
	}
	switch {
	case c.CSIReported:
		m.EnableCSI = types.BoolValue(c.CSIEnabled)
	case m.EnableCSI.IsUnknown():
		m.EnableCSI = types.BoolNull()
	}
	// Never in the state, whatever the plan held.
	m.DockerRegistryPassword = types.StringNull()
}

// knownStringMap is a known map of strings as a Go map, else nil.
func knownStringMap(m types.Map) map[string]string {
	if !known(m) {
		return nil
	}
	out := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && known(s) {
			out[k] = s.ValueString()
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// adoptImported fills in, on the first read after an import or a move,
// the inputs CloudStack does not return but the cluster shows: the node
// templates from the VM map's templates, and the external load balancer
// address from the endpoint of a cluster on a Shared network. Without them
// a configuration that sets them would plan a change right after the
// import. Later reads keep the configured values, as for the other inputs
// CloudStack does not return.
func adoptImported(ctx context.Context, m *clusterResourceModel, obs *clusterops.Observation, prior, next privateState) diag.Diagnostics {
	raw, diags := prior.GetKey(ctx, privateImported)
	if len(raw) == 0 {
		return diags
	}
	if m.NodeTemplates.IsNull() {
		m.NodeTemplates = stringMapOrNull(clusterops.NodeTemplates(&obs.Cluster))
	}
	if m.ExternalLoadBalancerIP.IsNull() {
		m.ExternalLoadBalancerIP = stringOrNull(clusterops.ExternalLoadBalancerIP(&obs.Cluster, obs.Network))
	}
	diags.Append(next.SetKey(ctx, privateImported, nil)...)
	return diags
}

// stringMapOrNull is a map of strings, null when empty.
func stringMapOrNull(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	values := make(map[string]attr.Value, len(m))
	for k, v := range m {
		values[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, values)
}
