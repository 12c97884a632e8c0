package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// maxClusterNameLength bounds name like CloudStack's name column.
const maxClusterNameLength = 255

const clusterResourceDescription = "Manages an Apache CloudStack Kubernetes Service (CKS) cluster: creation, start and stop, " +
	"Kubernetes version upgrades, offering changes, worker scaling and the cluster autoscaler.\n\n" +
	"Every size change goes through a role-aware SSH rule engine. CloudStack 4.21 through at least 4.22.1.1 " +
	"(apache/cloudstack#14159) can revoke an etcd node's SSH firewall rule instead of the node SSH range when it " +
	"scales a cluster with separate etcd nodes, which fails the scale, deletes the SSH port forwards and leaves the " +
	"cluster in `Alert` with a stale size. Before each scale the provider re-creates CKS-owned etcd firewall rules so " +
	"that the server picks the right rule; after each scale, successful or not, it verifies the cluster's SSH rules " +
	"(node range, node forwards `2222+i`, etcd rules at `etcd_ssh_start_port+j`) and repairs what is missing or stale, " +
	"then moves the etcd firewall rules after the node range the server's scale re-created, so that the next scale, " +
	"from any client, is safe too. Every change is reported as a warning. A cluster already broken this way is " +
	"recovered on the next apply (see `allow_restart_for_recovery`).\n\n" +
	"On a network you supply (`network_id`), CloudStack's delete leaves the etcd firewall rules (or the node SSH " +
	"range) on the network's public IP; destroying the cluster deletes those CKS rules too, and never your own rules.\n\n" +
	"After a failed operation the state holds what CloudStack reports (real size, VMs and state), never the planned " +
	"values, so the next plan shows what is left to do.\n\n" +
	"`node_root_disk_size` and `hypervisor` are not returned by the CloudStack API: after an import they are null, " +
	"and setting them in the configuration of an imported cluster only records them (an in-place update without an " +
	"API call), it never replaces the cluster."

func (r *clusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Id of the cluster.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"name": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Name of the cluster, 1 to 255 characters. CKS derives the node VM names from it. " +
				"Changing it replaces the cluster.",
			Validators:    []validator.String{stringvalidator.LengthBetween(1, maxClusterNameLength), notBlank{}},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"description": schema.StringAttribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "Description of the cluster; CloudStack uses the name when it is not set. Changing it replaces the cluster.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
		},
		"zone_id": requiredReplacedID("Id of the zone the cluster runs in."),
		"kubernetes_version_id": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Id of the CKS Kubernetes version (see the `cks_kubernetes_version` data source). Changing it " +
				"upgrades the cluster in place; the plan rejects a downgrade, a change of major version and a jump of more than " +
				"one minor version, as CloudStack would.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"service_offering_id": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Id of the compute offering of every node type that has no offering of its own. Changing it " +
				"scales the nodes' offering in place; CloudStack refuses smaller offerings on a running cluster and, on KVM, " +
				"any offering change of running VMs (stop the cluster with `state = \"Stopped\"` first).",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"control_offering_id": roleOffering("control"),
		"worker_offering_id":  roleOffering("worker"),
		"etcd_offering_id":    roleOffering("etcd"),
		"control_nodes": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(1),
			MarkdownDescription: "Number of control nodes, at least 1 (default 1). More than one needs a version that supports HA. Changing it replaces the cluster.",
			Validators:          []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"etcd_nodes": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(0),
			MarkdownDescription: "Number of separate etcd nodes (CloudStack 4.21+), 0 (the default) to run etcd on the control nodes. Changing it replaces the cluster.",
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"size": schema.Int64Attribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Number of worker nodes, at least 1. Required unless `autoscaling` is enabled, and not allowed " +
				"with it: while the autoscaler is on it owns the size, so the value is read from CloudStack and never causes a " +
				"diff. `control_nodes + size` must not exceed the server's `cloud.kubernetes.cluster.max.size` (10 by default; " +
				"CloudStack enforces it and its error is shown). Changing it scales the cluster in place through the rule-aware " +
				"engine described above.",
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{sizeFollowsAutoscaler{}},
		},
		"node_root_disk_size": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Root disk size of every node in GB, at least 8 (CloudStack's default is 8). The API does not " +
				"return it, so it is null after an import. Changing it replaces the cluster, except from null (an imported " +
				"cluster), which only records the value.",
			Validators:    []validator.Int64{int64validator.AtLeast(8)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplaceIf(replaceUnlessImported, replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"keypair": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Name of an SSH key pair of the owner; its public key is authorised for user `cloud` on every node. Changing it replaces the cluster.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"network_id": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Id of the guest network (isolated, VPC tier or shared). When not set, CloudStack creates an " +
				"isolated network for the cluster and destroys it with the cluster. Changing it replaces the cluster.",
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
		},
		"hypervisor": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Hypervisor type of the node VMs (CloudStack 4.21+), for example `KVM`. The API does not return it, " +
				"so it is null after an import. Changing it replaces the cluster, except from null (an imported cluster).",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
				resp.RequiresReplace = !req.StateValue.IsNull()
			}, replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"account":    ownership("Account that owns the cluster; needs `domain_id`. Defaults to the caller's account."),
		"domain_id":  ownership("Id of the domain of `account`."),
		"project_id": ownership("Id of the project that owns the cluster."),
		"autoscaling": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "The cluster autoscaler. While it is enabled, `size` must not be set and size changes made by " +
				"the autoscaler cause no diff. Omitting the object means the autoscaler is off. Changes are applied in place.",
			Attributes: map[string]schema.Attribute{
				"enabled": schema.BoolAttribute{
					Required:            true,
					MarkdownDescription: "Whether the autoscaler runs.",
				},
				"min_size": schema.Int64Attribute{
					Optional:            true,
					MarkdownDescription: "Fewest workers the autoscaler keeps, at least 1. Required when `enabled` is true.",
					Validators:          []validator.Int64{int64validator.AtLeast(1)},
				},
				"max_size": schema.Int64Attribute{
					Optional:            true,
					MarkdownDescription: "Most workers the autoscaler creates; greater than `min_size`. Required when `enabled` is true.",
					Validators:          []validator.Int64{int64validator.AtLeast(1)},
				},
			},
		},
		"state": schema.StringAttribute{
			Optional: true,
			Computed: true,
			Default:  stringdefault.StaticString(clusterRunning),
			MarkdownDescription: "Desired state, `Running` (the default) or `Stopped`; changing it starts or stops the cluster. " +
				"After a refresh it holds the state CloudStack reports, such as `Alert`, so a cluster that needs recovery " +
				"shows a diff and the next apply recovers it.",
			Validators: []validator.String{stringvalidator.OneOf(clusterRunning, clusterStopped)},
		},
		"recreate_user_hazard_rules": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Opt-in, default `false`. A firewall rule of your own on the cluster's public IP that the " +
				"4.21–4.22.1.1 scale bug would pick before the node SSH range (for example a `22-22` rule with a forward " +
				"`22 → 22`), or one of your port forwards in the network whose public port lies in the node SSH range (which " +
				"CloudStack deletes on every scale), makes a size change fail at plan, naming the rule. With `true` the provider " +
				"deletes such rules and re-creates them with the same protocol, ports and CIDRs (the firewall rule so that it " +
				"sorts after the node range, the forward after the scale). The rule briefly disappears while this happens.",
		},
		"allow_restart_for_recovery": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Opt-in, default `false`. A cluster left in `Alert` with a stale size (after the scale bug or " +
				"a failed scale) cannot be scaled, and CloudStack's state scanner never brings it back. With `true` the next " +
				"apply repairs its SSH rules, **stops and starts the cluster** (which interrupts workloads), then scales it to " +
				"the configured size and verifies the rules again. Without it such a recovery fails with an error that explains " +
				"this; rule repairs that need no restart are always made.",
		},
		"ssh_rules_in_sync": schema.BoolAttribute{
			Computed: true,
			MarkdownDescription: "Whether the SSH rules CKS owns on the cluster's public IP are as CKS would have them, read " +
				"at every refresh. `false` when a node SSH range, node or etcd port forward or etcd firewall rule is missing or " +
				"stale (deleted or changed out of band, or left behind by a failed operation), or when one of CKS's own firewall " +
				"rules sorts before the node SSH range so that the next scale, from any client, would revoke it instead of the " +
				"range (#14159). The plan then shows an in-place update that sets it back to `true`: apply repairs those rules " +
				"(and re-creates CKS's misplaced firewall rules after the range), reporting every change as a warning. Your own " +
				"rules are never touched, and the API rules and an expected rule that would conflict with one of yours (which apply " +
				"could not re-create) are not counted here. Always `true` on directly accessed (shared or routed) networks, which carry " +
				"no CKS rules, and while the cluster is neither `Running` nor `Stopped`. If the rules cannot be read, the " +
				"previous value is kept and a warning is logged.",
		},
		"endpoint": computedStable("Kubernetes API endpoint, `https://<address>:6443/`."),
		"ip_address": computedStable("Public address of the cluster (the source NAT address on an isolated network, the " +
			"cluster's VPC address on a VPC tier, the first control node's address on a shared network)."),
		"ip_address_id": computedStable("Id of the public IP address on an isolated network; null elsewhere."),
		"created":       computedStable("Creation time as CloudStack reports it."),
		"nodes": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The cluster's node VMs in VM-map order (etcd nodes, control nodes, workers), as CloudStack " +
				"reports them.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":    schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the VM."},
				"name":  schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the VM."},
				"role":  schema.StringAttribute{Computed: true, MarkdownDescription: "`control`, `worker` or `etcd`, from `isetcdnode` and CKS's naming rules."},
				"state": schema.StringAttribute{Computed: true, MarkdownDescription: "State of the VM, such as `Running`."},
				"ssh_port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Public SSH port of the node on `ip_address`: " +
					"`2222+i` for control and worker nodes, `etcd_ssh_start_port+j` for etcd nodes. Null on directly accessed " +
					"(shared or routed) networks, where nodes are reached on their own address at port 22."},
			}},
		},
		"timeouts": clusterTimeouts(ctx),
	}
	resp.Schema = schema.Schema{MarkdownDescription: clusterResourceDescription, Attributes: attrs}
}

func clusterTimeouts(ctx context.Context) schema.Attribute {
	attr := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true})
	nested, ok := attr.(schema.SingleNestedAttribute)
	if !ok {
		return attr
	}
	nested.MarkdownDescription = fmt.Sprintf("How long to wait for create, update and delete, as Go durations such as "+
		"`90m`. Each defaults to `%dm`, like the server's own CKS job timeouts (3600 s). Every CloudStack job wait is bounded by them.",
		int(defaultClusterTimeout.Minutes()))
	return nested
}

func requiredReplacedID(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Required:            true,
		MarkdownDescription: description + " Changing it replaces the cluster.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

func roleOffering(role string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		MarkdownDescription: fmt.Sprintf("Id of the compute offering of the %s nodes (sent in `nodeofferings`, CloudStack 4.21+); "+
			"`service_offering_id` applies when it is not set. Changing it scales those nodes' offering in place.", role),
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

func ownership(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: description + " Changing it replaces the cluster.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
	}
}

func computedStable(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: description,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}
