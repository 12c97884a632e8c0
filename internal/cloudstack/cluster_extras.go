package cloudstack

import (
	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// ClusterExtras are createKubernetesCluster's create-only parameters that
// CKS stores with the cluster (KubernetesClusterManagerImpl
// .addKubernetesClusterDetails); no API changes them afterwards. Zero values
// are not sent.
type ClusterExtras struct {
	// NodeTemplates maps a node type (CONTROL, WORKER, ETCD) to a template id.
	NodeTemplates      map[string]string
	CNIConfigurationID string
	// CNIConfigDetails fill the variables of the CNI configuration.
	CNIConfigDetails map[string]string
	ASNumber         int64
	// The docker registry parameters go together (the server refuses a
	// partial set: KubernetesClusterManagerImpl.validateDockerRegistryParams);
	// the password is a secret and never logged.
	DockerRegistryURL      string
	DockerRegistryUsername string
	DockerRegistryPassword string
	EnableCSI              bool
	// ExternalLoadBalancerIP is for clusters on Shared networks, required
	// with several control nodes (KubernetesClusterManagerImpl
	// .validateManagedKubernetesClusterCreateParameters).
	ExternalLoadBalancerIP string
}

// setClusterExtras sets the create-only parameters that are given.
// cloudstack-go encodes nodetemplates as nodetemplates[i].node/.template and
// cniconfigdetails as cniconfigdetails[i].<key>=<value>, which
// BaseCmd.convertDetailsToMap (CreateKubernetesClusterCmd.getCniConfigDetails)
// reads back as one map.
func setClusterExtras(cp *csgo.CreateKubernetesClusterParams, e ClusterExtras) {
	if len(e.NodeTemplates) > 0 {
		cp.SetNodetemplates(e.NodeTemplates)
	}
	if e.CNIConfigurationID != "" {
		cp.SetCniconfigurationid(e.CNIConfigurationID)
	}
	if len(e.CNIConfigDetails) > 0 {
		cp.SetCniconfigdetails(e.CNIConfigDetails)
	}
	if e.ASNumber > 0 {
		cp.SetAsnumber(e.ASNumber)
	}
	if e.DockerRegistryURL != "" {
		cp.SetDockerregistryurl(e.DockerRegistryURL)
	}
	if e.DockerRegistryUsername != "" {
		cp.SetDockerregistryusername(e.DockerRegistryUsername)
	}
	if e.DockerRegistryPassword != "" {
		cp.SetDockerregistrypassword(e.DockerRegistryPassword)
	}
	if e.EnableCSI {
		cp.SetEnablecsi(true)
	}
	if e.ExternalLoadBalancerIP != "" {
		cp.SetExternalloadbalanceripaddress(e.ExternalLoadBalancerIP)
	}
}
