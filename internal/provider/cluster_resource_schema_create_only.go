package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// maxASNumber is the largest 4-byte AS number (RFC 6793).
const maxASNumber = 4294967295

// notReturned is appended to the description of every create-only input
// that listKubernetesClusters does not return.
const notReturned = " CloudStack stores it but never returns it (`createKubernetesClusterResponse`), so a refresh " +
	"keeps the configured value and an import leaves it null; changing it replaces the cluster, except from null " +
	"(an imported cluster), which only records the value in the state without calling CloudStack."

// createOnlyAttributes are the create-only inputs of
// createKubernetesCluster beyond nodes and offerings. CloudStack has no
// update API for any of them (updateKubernetesCluster does not exist in
// 4.22), so a change replaces the cluster.
func createOnlyAttributes() map[string]schema.Attribute {
	dockerPeers := func(self string) []path.Expression {
		var out []path.Expression
		for _, name := range []string{"docker_registry_url", "docker_registry_username", "docker_registry_password"} {
			if name != self {
				out = append(out, path.MatchRoot(name))
			}
		}
		return out
	}
	return map[string]schema.Attribute{
		"kubernetes_version": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: kubernetesVersionDescription,
			PlanModifiers:       []planmodifier.String{versionFollowsID{}},
		},
		"node_templates": schema.MapAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "Template id per node type, sent as `nodetemplates` (CloudStack 4.21+): keys `CONTROL`, " +
				"`WORKER` and `ETCD` (CloudStack matches them case-insensitively; the provider sends them in upper case). A " +
				"type without an entry uses the zone's CKS (system VM) template, which is what `templateid` reports. An " +
				"`ETCD` entry takes effect only with `etcd_nodes > 0`; CloudStack ignores it otherwise. CloudStack does not " +
				"return it; a refresh keeps the configured value, and an import reads it from the templates of the VMs in the " +
				"cluster's VM map (the types whose VMs run a template other than `templateid`), so an imported cluster plans " +
				"nothing for it. Changing it replaces the cluster.",
			Validators:    []validator.Map{mapvalidator.SizeAtLeast(1), nodeTemplateKeys{}, mapvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(replaceMapUnlessImported, replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"cni_configuration_id": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Id of a CNI configuration registered in CloudStack (`registerCniConfiguration`, CloudStack " +
				"4.21+), appended to the nodes' user data. CloudStack returns it (`cniconfigurationid`), so it survives an " +
				"import. Changing it replaces the cluster.",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1), notBlank()},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"cni_config_details": schema.MapAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "Values of the variables of the CNI configuration, sent as `cniconfigdetails` (key case " +
				"kept). Needs `cni_configuration_id`." + notReturned,
			Validators: []validator.Map{mapvalidator.SizeAtLeast(1),
				mapvalidator.AlsoRequires(path.MatchRoot("cni_configuration_id"))},
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(replaceMapUnlessImported, replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"as_number": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("AS number for the network CloudStack creates for the cluster when its network offering "+
				"uses dynamic (BGP) routing, 1 to %d. CloudStack uses it only then (on a given network it uses that network's "+
				"AS number) and requires it when the offering has `specifyasnumber`.", maxASNumber) + notReturned,
			Validators:    []validator.Int64{int64validator.Between(1, maxASNumber)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(replaceUnlessImported, replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"docker_registry_url": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "URL of a private container registry the nodes pull from, such as " +
				"`https://registry.example.com`. Needs `docker_registry_username` and `docker_registry_password` (CloudStack " +
				"takes all three or none) and the global setting `cloud.kubernetes.cluster.experimental.features.enabled`." +
				notReturned,
			Validators: []validator.String{registryURL(), stringvalidator.AlsoRequires(dockerPeers("docker_registry_url")...)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"docker_registry_username": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "User name for `docker_registry_url`." + notReturned,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.AlsoRequires(dockerPeers("docker_registry_username")...)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"docker_registry_password": schema.StringAttribute{
			Optional:  true,
			Sensitive: true,
			WriteOnly: true,
			MarkdownDescription: "Password for `docker_registry_url`. Write-only (Terraform 1.11+, OpenTofu 1.11+): sent on " +
				"create and never stored in the state or the plan. A value from a plain input variable is still recorded in a " +
				"saved plan, under `variables`: declare the variable ephemeral (Terraform 1.10+, OpenTofu 1.11+), and it is " +
				"recorded nowhere:\n\n```hcl\nvariable \"registry_password\" {\n  type      = string\n  sensitive = true\n" +
				"  ephemeral = true\n}\n```\n\nCloudStack cannot change it after create and the provider cannot see it, so " +
				"changing it later does nothing: replace the cluster (for example with `-replace`) to use a new one.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.AlsoRequires(dockerPeers("docker_registry_password")...)},
		},
		"enable_csi": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Whether CloudStack sets up its CSI driver in the cluster (CloudStack 4.22+), default " +
				"`false`. CloudStack returns it (`csienabled`), so it survives an import; `true` is refused at plan on a server " +
				"before 4.22, which has no CSI driver and would ignore it. A server that does not report it leaves the value as " +
				"it was (null after an import, then only recorded). Changing it replaces the cluster.",
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(replaceBoolUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"external_load_balancer_ip": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "IPv4 or IPv6 address of an external load balancer in front of the control nodes, for a " +
				"cluster with more than one control node on a shared network (which CloudStack requires then). Needs " +
				"`network_id`; CloudStack refuses it on isolated networks, VPC tiers, ROUTED networks and NSX zones. CloudStack " +
				"does not return it; a refresh keeps the configured value, and an import reads it from the cluster's endpoint " +
				"(on a Shared network the endpoint is this address when one was given, else the first node's own). " +
				"Changing it replaces the cluster.",
			Validators: []validator.String{ipAddress(), stringvalidator.AlsoRequires(path.MatchRoot("network_id"))},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
	}
}
