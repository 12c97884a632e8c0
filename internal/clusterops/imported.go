package clusterops

import (
	"net/netip"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// NodeTemplates tells the template each node type was created with, as
// createKubernetesCluster's nodetemplates would have named it: the types
// whose VMs all run one template other than the cluster's own (templateid,
// the zone's CKS template, which every type without an entry uses). The
// keys are CloudStack's node types, CONTROL, WORKER and ETCD. CloudStack
// does not return nodetemplates (createKubernetesClusterResponse), but the VM map carries each VM's
// templateid (KubernetesClusterManagerImpl.createKubernetesClusterResponse
// lists the VMs as UserVmResponse), and the VMs of a type are deployed from
// its template (KubernetesServiceHelperImpl.getTemplateNodeTypeMap, used by
// KubernetesClusterResourceModifierActionWorker to deploy nodes). External
// nodes are the user's own VMs and say nothing about the cluster's templates.
// Nil when every type uses the cluster's template.
func NodeTemplates(c *cloudstack.Cluster) map[string]string {
	var out map[string]string
	for role, template := range roleValues(c, func(vm clusterview.MapVM) string { return vm.TemplateID }) {
		if template == c.TemplateID {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.ToUpper(string(role))] = template
	}
	return out
}

// ExternalLoadBalancerIP tells the external load balancer address a cluster
// on a Shared network was created with, which CloudStack keeps as a detail
// (addKubernetesClusterDetails) and never returns. There the endpoint is that address when one was given,
// else the first VM's own (KubernetesClusterActionWorker
// .getKubernetesClusterServerIpSshPort, KubernetesClusterStartWorker
// .updateKubernetesClusterEntryEndpoint), so an endpoint host that is no
// VM's address is the load balancer's. "" when there is none or it cannot
// be told.
func ExternalLoadBalancerIP(c *cloudstack.Cluster, network rules.NetworkKind) string {
	host, err := netip.ParseAddr(clusterview.EndpointHost(c))
	if network != rules.NetworkDirect || err != nil || clusterview.IsNodeAddress(c, host.String()) {
		return ""
	}
	return host.String()
}
