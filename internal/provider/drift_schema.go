package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
)

// Schema pieces shared by cks_cluster_drift and cks_clusters_drift.

// defaultDriftGracePeriod is CloudStack's own grace period for new VMs.
const defaultDriftGracePeriod = "15m"

// driftViewsDescription explains what the drift check compares.
var driftViewsDescription = "The check compares four views of a cluster, fetched concurrently:\n\n" +
	"1. **The VM map**: `listKubernetesClusters` `virtualmachines`, with `size`, `controlnodes` and `etcdnodes`.\n" +
	"2. **The owner's VMs**: `listVirtualMachines` of the cluster's account or project whose names follow the " +
	"cluster's node naming (`<prefix>-control-<hex>`, `<prefix>-node-<hex>`, `<etcd prefix>-<n>-<hex>`). A VM in " +
	"another cluster's map is not this cluster's stray.\n" +
	"3. **The Kubernetes nodes**: `sudo /opt/bin/kubectl get nodes -o json` on control node 1 over SSH (at the address " +
	"CloudStack itself uses: the source NAT IP `:2222` on an isolated network, the cluster's public IP `:2222` on a " +
	"VPC tier, the control VM `:22` on a shared network), or the Kubernetes API with the kubeconfig CloudStack returns. " +
	"When the nodes cannot be listed, the VM comparison still runs, `nodes_checked` is false and the check is incomplete.\n" +
	"4. **The network rules** on the cluster's public IP and the port forwards of its network, classified by role " +
	"(node SSH range, node and etcd forwards, etcd SSH rules, API rules, user rules), including the rules that would " +
	"make the next scale, by any client, go wrong on CloudStack 4.21.0 to 4.22.1.1 (#14159). A cluster in the layout the " +
	"`cks_cluster` resource keeps (one etcd SSH range) is in sync; so is a cluster in CKS's own layout (single-port etcd " +
	"rules) that no scale has touched yet, whose next scale is safe; once a scale has re-created the node SSH range after " +
	"those rules, they are reported as `scale_hazard`.\n\n" +
	"Clusters in a transitional state (Starting, Scaling, Upgrading, Stopping, RemovingNodes, ...) and " +
	"ExternalManaged clusters are skipped. The check only reads: it never changes anything.\n\n" +
	"Finding kinds:" + driftKindsMarkdown

// driftGateDescription explains the CI gate and its fail-closed contract.
const driftGateDescription = "**As a CI gate**: set `fail_on_drift = true` and run `terraform plan`: any finding is an error " +
	"diagnostic that lists the findings, so the plan exits non-zero. The gate fails closed: a check that could not " +
	"compare every view it was asked for (the nodes, with `node_source` `ssh` or `kubeconfig`: SSH unreachable, " +
	"`known_hosts` without the node, Kubernetes API down, `getKubernetesClusterConfig` failing; the network rules, with " +
	"`check_network_rules`: the cluster's network not visible), and a cluster skipped because an operation is in progress, " +
	"fail the plan too, unless `allow_incomplete = true` turns them into warnings. Either way such a check has " +
	"`in_sync = false`, and `incomplete_views` says which view is missing and why. A refused SSH host key is always an " +
	"error, gate or not: something else may answer for control node 1. Without `fail_on_drift`, findings and incomplete " +
	"checks show as warnings and the outputs (`in_sync`, `incomplete_views`, `counts`, `findings`) can feed a `check` " +
	"block or a `postcondition`. Findings that `ignore` rules accept do not fail the gate: they are listed in " +
	"`ignored_findings` with their reason, until the rule expires. For policies that version, test and reuse the " +
	"gate, the provider's repository has a Rego library for OPA and conftest (`policy/`; see the CI gates guide)."

// driftSecretsDescription says which inputs end up in saved plans and in
// the state.
const driftSecretsDescription = "**What ends up in plans and state**: Terraform records every argument of a data source " +
	"in saved plans (`terraform plan -out`, `terraform show -json`, which OPA, conftest and Sentinel read) and in the " +
	"state. `ssh.private_key` is one of them: marked sensitive, but stored in clear in both, twice in a JSON plan. " +
	"`ssh.private_key_file` records only the path: the key is read when the check runs and kept in memory. With neither, " +
	"the check signs through the SSH agent at `SSH_AUTH_SOCK`, as Terraform's own `connection` blocks do, and nothing " +
	"about the key is recorded. `node_source = \"kubeconfig\"` needs no SSH key at all: the kubeconfig is fetched from " +
	"CloudStack when the check runs and never recorded."

// driftOptionAttributes are the inputs both data sources share.
func driftOptionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"node_source": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Where the Kubernetes nodes come from: `ssh` (kubectl on control node 1; the default when " +
				"`ssh` is set), `kubeconfig` (the Kubernetes API with the kubeconfig from `getKubernetesClusterConfig`) " +
				"or `none` (VMs and rules only; the default without `ssh`).",
			Validators: []validator.String{stringvalidator.OneOf(driftcheck.NodeSources()...)},
		},
		"grace_period": schema.StringAttribute{
			CustomType:  durationType{},
			Optional:    true,
			Computed:    true,
			Description: "How long a new VM may be unmapped, or running without being a Kubernetes node, before it is reported.",
			MarkdownDescription: "How long a new VM may be unmapped, or running without being a Kubernetes node, before it is " +
				"reported, as a Go duration such as `15m` or `1h30m`. Defaults to `" + defaultDriftGracePeriod + "`, as in " +
				"CloudStack's own check. Zero reports them at once; a negative value is refused.",
			Validators: []validator.String{durationNotNegative()},
		},
		"check_network_rules": schema.BoolAttribute{
			Optional:            true,
			Computed:            true,
			MarkdownDescription: "Compare the SSH and API network rules (firewall ranges, port forwards, etcd rules, the API rules, and on a VPC tier the items CKS keeps on the tier's network ACL list) with the VM map and report scale hazards. Defaults to `true`.",
		},
		"ssh_cidrs": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "The `ssh_cidrs` of the `cks_cluster` resources checked, if they set it: SSH firewall rules " +
				"with exactly these CIDRs (or `0.0.0.0/0`) are the clusters' own, and so is the one rule on the exact ports of " +
				"the node SSH range (or of the etcd SSH range) when no rule has them with these CIDRs, reported as " +
				"`ssh_cidrs_mismatch` with its CIDRs in `live` and these in `expected` (the rules of a cluster whose " +
				"`ssh_cidrs` a plan changes, for instance); any other rule is a user rule, and a user rule that opens a node " +
				"or etcd SSH port to any address outside them (compared as address space, not as strings) is reported as " +
				"`ssh_firewall_range_mismatch`.",
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(cidrValidator())},
		},
		"api_cidrs": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "The `api_cidrs` of the `cks_cluster` resources checked, if they set it: the API firewall " +
				"rule (6443) is expected open to exactly these CIDRs, and one open to `0.0.0.0/0` beside or instead of it, or " +
				"any rule on 6443 that admits an address outside them (compared as address space: `0.0.0.0/1` and " +
				"`128.0.0.0/1` together admit everyone), is reported as `api_rule_mismatch`, a widened rule. With " +
				"`node_source = \"kubeconfig\"` the Terraform runner must be inside them.",
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(cidrValidator())},
		},
		"fail_on_drift": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Make any finding an error diagnostic, so that `terraform plan` fails: the CI gate. It fails " +
				"closed: a check that could not compare every view it was asked for, or a skipped cluster, fails it too unless " +
				"`allow_incomplete` is true. Defaults to `false`, which reports findings and incomplete checks as warnings.",
		},
		"allow_incomplete": schema.BoolAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "Explicit opt-in to let `fail_on_drift` pass a check that could not compare every view it was " +
				"asked for (see `incomplete_views`) or a cluster skipped during an operation: they are reported as warnings " +
				"instead of errors. Findings still fail the gate, and a refused SSH host key is still an error. `in_sync` stays " +
				"false for such a check. Defaults to `false`.",
		},
		"ignore":        driftIgnoreAttribute(),
		"ignore_status": driftIgnoreStatusAttribute(),
	}
}

// driftResultAttributes are the outputs of one cluster's check.
func driftResultAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"in_sync": schema.BoolAttribute{
			Computed: true,
			MarkdownDescription: "True only when every view asked for was compared and nothing drifted, findings that " +
				"`ignore` rules accept aside. False for a skipped cluster, and for a check with `incomplete_views`: the view it " +
				"could not read may hide drift.",
		},
		"incomplete_views": schema.MapAttribute{
			Computed:    true,
			ElementType: types.StringType,
			MarkdownDescription: "The views that were asked for but could not be compared, each with the reason: `nodes` " +
				"(with `node_source` `ssh` or `kubeconfig`: SSH unreachable, host key refused, `known_hosts` without the node, " +
				"kubectl, Kubernetes API or `getKubernetesClusterConfig` failure) and `network_rules` (with " +
				"`check_network_rules`: the cluster reports no network, or its network is not visible). Empty when the check is " +
				"complete, and for a cluster that was not compared at all (`skipped`). A non-empty map makes `in_sync` false " +
				"and fails `fail_on_drift` unless `allow_incomplete`.",
		},
		"cluster_state": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The cluster state the check saw, e.g. `Running` or `Alert`.",
		},
		"kubernetes_version": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: kubernetesVersionDescription,
		},
		"skipped": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: "True when the cluster was not compared: it is in a transitional state or ExternalManaged.",
		},
		"skip_reason": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Why the cluster was skipped; null otherwise.",
		},
		"nodes_checked": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: "Whether the Kubernetes nodes were compared. False with `node_source = \"none\"`, for a Stopped cluster, or when listing them failed.",
		},
		"node_check_error": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Why the Kubernetes nodes could not be listed (SSH, host key, kubectl or Kubernetes API failure); null otherwise. The VM comparison ran anyway, but the check is incomplete (`incomplete_views.nodes`).",
		},
		"findings": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The findings in a stable order: by kind (in the order of the kinds above), then VM name, " +
				"node name and rule id. Fields that do not apply to a finding are null.",
			NestedObject: schema.NestedAttributeObject{Attributes: driftFindingAttributes()},
		},
		"counts": schema.MapAttribute{
			Computed:            true,
			ElementType:         types.Int64Type,
			MarkdownDescription: "Number of findings per kind, ignored ones left out; every kind is present, zero included.",
		},
		"summary": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "Human-readable summary, e.g. `2 findings: 1 unmapped_vm, 1 vm_map_inconsistent`, followed by " +
				"the findings `ignore` rules accepted (`in sync; 1 finding ignored (1 node_not_ready)`) and each view that was " +
				"not checked and why; an incomplete check without findings reads `incomplete: no finding in the views checked; " +
				"Kubernetes nodes not checked: ...`, never `in sync`.",
		},
	}
	for name, a := range driftIgnoredAttributes() {
		attrs[name] = a
	}
	return attrs
}
