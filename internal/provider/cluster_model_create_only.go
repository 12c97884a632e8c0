package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// clusterCreateOnlyModel holds createKubernetesCluster's create-only inputs.
// CloudStack returns only cni_configuration_id and enable_csi
// (createKubernetesClusterResponse); the others keep the value from the
// configuration and are null after an import. The docker registry password
// is write-only: always null here, read from the configuration in Create.
type clusterCreateOnlyModel struct {
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
func (m clusterCreateOnlyModel) clusterExtras() cloudstack.ClusterExtras {
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
func (m *clusterCreateOnlyModel) refreshReturned(c *cloudstack.Cluster) {
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
