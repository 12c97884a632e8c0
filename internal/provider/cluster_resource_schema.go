package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// pathAllowRestart is the deprecated attribute, and what applying it says.
var pathAllowRestart = path.Root("allow_restart_for_recovery")

const allowRestartNoEffect = "allow_restart_for_recovery has no effect any more: stopping and starting a cluster cannot " +
	"recover one whose VM map disagrees with its size. Remove it from the configuration."

// maxClusterNameLength bounds name like CloudStack's name column.
const maxClusterNameLength = 255

const clusterResourceDescription = "Manages an Apache CloudStack Kubernetes Service (CKS) cluster: creation, start and stop, " +
	"Kubernetes version upgrades, offering changes, worker scaling and the cluster autoscaler.\n\n" +
	"The provider keeps the cluster's SSH rules in a layout that no scale can break. CloudStack 4.21 through at least " +
	"4.22.1.1 (apache/cloudstack#14159) revokes, when it scales a cluster with separate etcd nodes, the first firewall rule " +
	"that starts at 2222 **or** has a port forward with the same ports to port 22: after one scale, that can be an etcd " +
	"node's rule, and the scale fails with 530, deletes the SSH forwards and leaves the cluster in `Alert` with a stale " +
	"size. Right after the create job the provider replaces CKS's single-port etcd SSH firewall rules with **one etcd SSH " +
	"range** (`50000`-`50000+E-1`, `50000`-`50001` for one etcd node) that no forward matches, so that every later scale, by " +
	"this provider, the UI, cmk or the cluster autoscaler, revokes the node SSH range and nothing else, whatever order " +
	"CloudStack reads the rules in. Before every size change a pre-flight refuses, at plan time when it can, the rules " +
	"that would still go wrong (naming them and `recreate_user_hazard_rules`); after every scale, successful or not, the " +
	"rules are checked and what is missing is repaired. Every change is reported as a warning.\n\n" +
	"A cluster that #14159 already broke (its VM map holds fewer workers than its size) gets every SSH path back on the " +
	"next apply, without a start, stop or scale, which CloudStack would refuse or undo; the plan and the apply say what " +
	"only an administrator can then do (correct `node_count`), with the value to set.\n\n" +
	"On a network you supply (`network_id`), CloudStack's delete leaves the etcd SSH rules on the network's public IP; " +
	"destroying the cluster deletes them too, and never your own rules.\n\n" +
	"**On a VPC tier** CloudStack reaches the cluster through its own VPC public IP: a port forward per node and one for " +
	"the API (an `api-lb` load balancer when the tier's network offering is in conserve mode), and, unless the tier uses " +
	"`default_allow`, items of the tier's network ACL list that let TCP 6443, 22 and (with etcd nodes) 2379 in, moved to " +
	"the top of the list. The provider keeps them: an item missing, so that nothing on the list lets its port in, sets " +
	"`ssh_rules_in_sync = false` and the next apply creates it again as CloudStack did; an item of yours that narrows the " +
	"port counts, and is never opened again. A list belongs to every tier that uses it, so several clusters may share " +
	"one: CloudStack's destroy of any of them revokes every Allow item whose protocol is exactly `\"TCP\"` on 6443 or 22, " +
	"whoever made it. The plan of a destroy says which, and after it the provider re-creates your items and those the " +
	"other clusters on the list need, and deletes the cluster's own 2379 items. Every size change deletes all port " +
	"forwards of the tier whose public port lies between 2222 and the last node's, yours included, on any of the tier's " +
	"addresses: the plan names them, and the apply refuses the change unless `recreate_user_hazard_rules` lets the " +
	"provider re-create them after it (which it cannot on the cluster's own address, whose ports the nodes then take). `ssh_cidrs` and `api_cidrs` are refused on a VPC tier, since " +
	"the list's items are shared; narrow them with items of your own (protocol `tcp`, in lower case, which CloudStack's " +
	"destroy leaves alone) that admit the management servers.\n\n" +
	"After a failed operation the state holds what CloudStack reports (real size, VMs and state), never the planned " +
	"values, so the next plan shows what is left to do.\n\n" +
	"`node_root_disk_size` and `hypervisor` are not returned by the CloudStack API: after an import they are null, " +
	"and setting them in the configuration of an imported cluster only records them (an in-place update without an " +
	"API call), it never replaces the cluster.\n\n" +
	"A `cloudstack_kubernetes_cluster` of the official CloudStack provider moves to `cks_cluster` with a `moved` block " +
	"(Terraform 1.8+, OpenTofu 1.10+), keeping the cluster; see the guide on migrating from the CloudStack provider."

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
			Validators:    []validator.String{stringvalidator.LengthBetween(1, maxClusterNameLength), notBlank()},
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
			MarkdownDescription: "Number of worker nodes CKS makes and scales, at least 1; external nodes (VMs joined with " +
				"`cks_cluster_node`, or by another client) are not counted, and a scale never removes them (CloudStack's " +
				"node count counts them too, and the provider sends it with them). Required unless `autoscaling` is enabled, and not allowed " +
				"with it: while the autoscaler is on it owns the size, so the value is read from CloudStack and never causes a " +
				"diff. `control_nodes + size` must not exceed the server's `cloud.kubernetes.cluster.max.size` (10 by default; " +
				"CloudStack enforces it and its error is shown). Changing it scales the cluster in place as described above: " +
				"one scale job that names the workers' current offering (so a size change never changes offerings). After a " +
				"failed scale it holds the workers the VM map really has; while that disagrees with CloudStack's size no " +
				"change of it can be applied.",
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
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceStringUnlessImported,
				replaceUnlessImportedDescription, replaceUnlessImportedDescription)},
		},
		"account": ownership("account", "Account that owns the cluster. Needs `domain_id`: CloudStack finds the account by "+
			"name within a domain. Conflicts with `project_id`. Defaults to the caller's account.", "cluster"),
		"domain_id": ownership("domain_id", "Id of the domain of `account`, and only with `account`: CloudStack ignores it "+
			"without one, and the cluster would belong to the caller.", "cluster"),
		"project_id": ownership("project_id", "Id of the project that owns the cluster. Conflicts with `account` and "+
			"`domain_id`: CloudStack takes the owner from either, and with `account` set ignores `project_id`.", "cluster"),
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
			Default:  stringdefault.StaticString(clusterstate.Running),
			MarkdownDescription: "Desired state, `Running` (the default) or `Stopped`; changing it starts or stops the cluster. " +
				"A refresh records CloudStack's state here when it is `Running` or `Stopped`, so a cluster stopped or started " +
				"out of band shows a diff; any other state (such as `Alert`) is in `cloudstack_state`.",
			Validators: []validator.String{stringvalidator.OneOf(clusterstate.Running, clusterstate.Stopped)},
		},
		"cloudstack_state": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "The cluster's state as CloudStack reports it, such as `Running`, `Stopped`, `Alert` or " +
				"`Error`. A cluster in `Error` or `Destroying` can only be deleted: the next plan replaces it.",
		},
		"ssh_cidrs": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "Source CIDRs of the cluster's SSH firewall rules: the node SSH range and the etcd SSH range. " +
				"CloudStack opens them to `0.0.0.0/0` (apache/cloudstack#13970); with this set, the provider creates them with " +
				"these CIDRs and narrows the node range again after every scale, in which CloudStack re-creates it open (the " +
				"narrowed rule is created before the open one is deleted, so SSH never closes). Rules with exactly these CIDRs, " +
				"or `0.0.0.0/0`, are the cluster's; any other rule is yours. Not set means `0.0.0.0/0`. The API rule (6443) " +
				"is not affected. Refused for a cluster on a VPC tier, where CKS opens SSH with an item of the tier's network " +
				"ACL list, which other tiers and clusters share (see *On a VPC tier* in the description of the resource).",
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(cidrValidator())},
		},
		"api_cidrs": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "Source CIDRs of the cluster's API firewall rule (6443), which CloudStack opens to `0.0.0.0/0` " +
				"(apache/cloudstack#14212). With this set, the provider creates the rule with these CIDRs before it deletes the " +
				"open one (the API never closes) and keeps it so through scales, by any client, upgrades and stops and starts, " +
				"which leave it alone; a rule someone widens shows as `ssh_rules_in_sync = false` and the next apply narrows it " +
				"again. A change that a rule of yours is in the way of keeps the working rule and changes nothing (the plan " +
				"names your rule), as for the SSH ranges; a rule the provider made with earlier CIDRs stays the cluster's after " +
				"a failed change or a revert, and the next apply removes it. A rule of yours that opens 6443 to any address " +
				"outside these CIDRs, whatever its CIDR strings, is named in a warning at every refresh; the provider never " +
				"deletes it. On a network you supplied, CloudStack's delete of the cluster may revoke a 6443 rule of yours in " +
				"the place of the cluster's: the provider creates it again and says so. Give the drift data sources the same " +
				"`api_cidrs`: they then report a rule on 6443 open to other CIDRs as `api_rule_mismatch`. Removing it opens " +
				"the rule to `0.0.0.0/0` again. Only on isolated networks: refused for a cluster on a VPC tier, whose API " +
				"access is an item of the tier's shared network ACL list, and without effect on a shared network, which has " +
				"no rules.\n\n~> The CIDRs must admit every client of the API: " +
				"the CloudStack management servers (CKS checks the API through the cluster's public IP when it starts, scales, " +
				"upgrades and recovers a cluster), the machine that runs Terraform when the drift data sources use " +
				"`node_source = \"kubeconfig\"` or the kubernetes and helm providers use the kubeconfig, and your users. The " +
				"same holds for `ssh_cidrs` and the management servers, which reach the nodes over SSH through the public IP.",
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(cidrValidator())},
		},
		"recreate_user_hazard_rules": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Opt-in, default `false`. A rule of your own that would make a size change go wrong fails " +
				"the plan (or the apply, when it can only be seen then), naming the rule: a firewall rule on the cluster's " +
				"public IP that CloudStack's scale would revoke instead of the node SSH range (one that starts at 2222, or has " +
				"a port forward with the same ports to port 22, such as a `22-22` rule with a forward `22 → 22`), a TCP rule " +
				"without ports on CloudStack 4.21.0 through 4.22.0.x (it leaves the cluster stuck in `Scaling`), or a port " +
				"forward of yours in the network whose public port lies in the node SSH range (which CloudStack deletes on " +
				"every scale). With `true` the provider deletes such rules before the scale and re-creates them with the same " +
				"protocol, ports and CIDRs after it; they are briefly absent.",
		},
		"allow_restart_for_recovery": schema.BoolAttribute{
			Optional:           true,
			Computed:           true,
			Default:            booldefault.StaticBool(false),
			DeprecationMessage: "allow_restart_for_recovery has no effect and will be removed: a stop and start cannot recover a cluster whose VM map disagrees with its size (CloudStack refuses every scale of it and its state scanner puts it back into Alert). The provider restores its SSH rules and says what an administrator must do.",
			MarkdownDescription: "Deprecated, no effect. It used to stop and start a cluster left in `Alert` with a stale size " +
				"before scaling it, which cannot work on CloudStack: its scale refuses every size change while the VM map " +
				"holds fewer VMs than the size says, and its state scanner returns the cluster to `Alert`.",
		},
		"ssh_rules_in_sync": schema.BoolAttribute{
			Computed: true,
			MarkdownDescription: "Whether the cluster's rules are exactly the provider's layout, read at every refresh: the " +
				"node SSH range (with `ssh_cidrs`), a forward `2222+i` to each node, each etcd node's forward and one etcd SSH " +
				"range, and, when `api_cidrs` is set or was set, the API firewall rule on 6443 with those CIDRs (despite the " +
				"name, which is kept so that policies and outputs reading it go on working). `false` when one is missing or " +
				"stale (deleted or changed out of band, left behind by a failed operation or by a change reverted since, " +
				"re-opened by a scale while `ssh_cidrs` is set), and for a cluster still in CKS's own layout (single-port " +
				"etcd rules, after an import). The plan then shows an in-place update that sets it back to `true` and says " +
				"which rules it will create or delete; apply makes those changes and reports each one. The provider knows as " +
				"the cluster's every rule with CIDRs it gave the rules, whatever happened since, and never touches your own " +
				"rules. When a rule of yours is in the way of one the layout needs, it stays `false` (the rule the layout " +
				"would replace stays too, so no SSH or API path closes), the plan is empty and names your rule. A rule of " +
				"yours that opens these ports wider than `ssh_cidrs` or `api_cidrs` is not the cluster's and does not make " +
				"it `false`: every refresh warns about it instead. Always `true` on directly accessed (shared or routed) " +
				"networks, which carry no CKS rules, and while an operation runs on the cluster. If the rules cannot be read, " +
				"the previous value is kept (null if they were never read) and a warning is logged.",
		},
		"endpoint": computedStable("Kubernetes API endpoint, `https://<address>:6443/`."),
		"ip_address": computedStable("Public address of the cluster (the source NAT address on an isolated network, the " +
			"cluster's VPC address on a VPC tier, the first control node's address on a shared network)."),
		"ip_address_id": computedStable("Id of the public IP address on an isolated network; null elsewhere."),
		"created":       computedStable("Creation time as CloudStack reports it."),
		"cores": computedCapacity("CPU cores of the cluster as CloudStack accounts them (`cpunumber`): for each node type, " +
			"its count times its offering's cores, external nodes included. CloudStack updates it at every size or offering " +
			"change and when nodes join or leave, so a plan that changes the nodes shows it as known after apply."),
		"memory": computedCapacity("Memory of the cluster in MiB as CloudStack accounts it (`memory`), summed like `cores`."),
		"nodes": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The cluster's node VMs as CloudStack reports them: etcd nodes, control nodes, " +
				"workers, then external nodes, each role by name (CKS names nodes after their creation time, so this is the order of CloudStack's " +
				"VM map on a healthy cluster, whatever order the API lists it in, and a repaired forward moves no node).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the VM."},
				"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the VM."},
				"role": schema.StringAttribute{Computed: true, MarkdownDescription: "`control`, `worker` or `etcd`, from `isetcdnode` " +
					"and CKS's naming rules, or `external` for a VM joined with `addNodesToKubernetesCluster` (`isexternalnode`)."},
				"state": schema.StringAttribute{Computed: true, MarkdownDescription: "State of the VM, such as `Running`."},
				"ssh_port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Public SSH port of the node on `ip_address`: " +
					"`2222+i` for control and worker nodes, `etcd_ssh_start_port+j` for etcd nodes, as the node's forward has it. " +
					"Null for a node whose forward is missing (a plan that re-creates it shows the port it gets), and on directly " +
					"accessed (shared or routed) networks, where nodes are reached on their own address at port 22."},
			}},
		},
		"timeouts": clusterTimeouts(ctx),
	}
	for name, a := range createOnlyAttributes() {
		attrs[name] = a
	}
	attrs["deletion_protection"] = deletionProtectionAttribute()
	resp.Schema = schema.Schema{MarkdownDescription: clusterResourceDescription, Attributes: attrs}
}

func clusterTimeouts(ctx context.Context) schema.Attribute {
	return checkedTimeouts(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}, fmt.Sprintf("How long to wait "+
		"for create, update and delete, as Go durations such as `90m`. Each defaults to `%dm`, like the server's own CKS job "+
		"timeouts (3600 s). Every CloudStack job wait is bounded by them.", int(defaultClusterTimeout.Minutes())))
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
		MarkdownDescription: fmt.Sprintf("Id of the compute offering of the %s nodes (sent in `nodeofferings`, CloudStack 4.21+). "+
			"When it is not set, the %s nodes run `service_offering_id`, and the attribute reads the offering CloudStack gives "+
			"them: its own for the node type once it has one (a size change makes CloudStack record the worker offering it keeps, "+
			"which the plan shows), else the service offering. Changing it scales those nodes' offering in place.", role, role),
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// ownership is an owner attribute of a resource (what): account,
// domain_id or project_id.
func ownership(name, description, what string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: description + " Changing it replaces the " + what + ".",
		Validators:          append([]validator.String{stringvalidator.LengthAtLeast(1)}, ownerValidators[name]...),
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

// computedCapacity is a capacity CloudStack accounts for the cluster: it
// keeps its value unless the plan changes the nodes (planComputed).
func computedCapacity(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: description,
		PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
	}
}

func deletionProtectionAttribute() schema.Attribute {
	return schema.BoolAttribute{
		Optional: true,
		Computed: true,
		Default:  booldefault.StaticBool(false),
		MarkdownDescription: "Default `false`. With `true`, a plan that would delete the cluster fails, naming this " +
			"attribute: `terraform destroy`, removing the resource from the configuration, and a change that replaces the " +
			"cluster (such as a new `name` or `zone_id`); a delete the plan could not foresee (`-replace`) fails at apply, " +
			"before anything is deleted. It is the provider's own setting, kept in the state only: it protects against " +
			"Terraform, not against the UI or cmk. Set it to `false` and apply before deleting the cluster: an apply that " +
			"only turns it off makes no CloudStack call, in any state of the cluster, and for a cluster in `Error` or " +
			"`Destroying`, which only a replacement can follow, it records `false` and leaves the replacement to the next " +
			"plan. An imported cluster starts with `false`.",
	}
}
