package drift

import (
	"fmt"
	"sort"
	"strings"
)

// Finding kinds, in report order.
const (
	KindMappedVMMissing          = "mapped_vm_missing"
	KindMappedVMNotRunning       = "mapped_vm_not_running"
	KindVMOfferingMismatch       = "vm_offering_mismatch"
	KindUnmappedVM               = "unmapped_vm"
	KindNodeWithoutVM            = "node_without_vm"
	KindVMNotNode                = "vm_not_node"
	KindVMMapInconsistent        = "vm_map_inconsistent"
	KindNodeNotReady             = "node_not_ready"
	KindNodeVersionSkew          = "node_version_skew"
	KindManualUpgradePending     = "manual_upgrade_pending"
	KindSSHForwardMissing        = "ssh_forward_missing"
	KindSSHForwardStale          = "ssh_forward_stale"
	KindSSHFirewallRangeMismatch = "ssh_firewall_range_mismatch"
	KindSSHCIDRsMismatch         = "ssh_cidrs_mismatch"
	KindEtcdSSHRuleMissing       = "etcd_ssh_rule_missing"
	KindAPIRuleMissing           = "api_rule_missing"
	KindAPIRuleMismatch          = "api_rule_mismatch"
	KindNetworkACLItemMissing    = "network_acl_item_missing"
	KindScaleHazard              = "scale_hazard"
	KindClusterStateUnexpected   = "cluster_state_unexpected"
)

// kinds describes every finding kind, in report order.
var kindTable = []struct{ name, description string }{
	{KindMappedVMMissing, "a VM in the cluster's VM map does not exist"},
	{KindMappedVMNotRunning, "a VM in the VM map is destroyed, expunging or in error, or stopped while the cluster runs"},
	{KindVMOfferingMismatch, "a VM of the map runs another service offering than its role's (the cluster's control, worker " +
		"or etcd offering, else its service offering): resized out of band, or left by a failed offering scale"},
	{KindUnmappedVM, "a VM named as a node of the cluster is in no cluster's VM map"},
	{KindNodeWithoutVM, "a Kubernetes node has no VM in the VM map"},
	{KindVMNotNode, "a running control or worker VM of the map is not a Kubernetes node"},
	{KindVMMapInconsistent, "the VM map disagrees with the cluster's size (node_count), as a failed scale leaves it; " +
		"CloudStack refuses to scale such a cluster and only an administrator can correct the size"},
	{KindNodeNotReady, "a Kubernetes node is not Ready"},
	{KindNodeVersionSkew, "a control or worker node's kubelet version, or the version the VM map records for its VM, " +
		"differs from the cluster's Kubernetes version: a half-finished upgrade, or a node upgraded by hand"},
	{KindManualUpgradePending, "an external node runs an older Kubernetes version than the cluster: CloudStack's upgrade " +
		"skipped it (joined with manual_upgrade) and its owner upgrades it by hand"},
	{KindSSHForwardMissing, "a node's SSH port forward 2222+i is missing"},
	{KindSSHForwardStale, "an SSH port forward of CKS goes to the wrong VM or beyond the VM map"},
	{KindSSHFirewallRangeMismatch, "the node SSH firewall range is missing or does not cover the map's nodes, or, with " +
		"`ssh_cidrs`, a rule of someone else's opens a node or etcd SSH port to addresses outside them"},
	{KindSSHCIDRsMismatch, "an SSH firewall rule of the cluster (the node SSH range, the etcd SSH range) has the ports the " +
		"layout gives it but is open to other source CIDRs than the cluster's (`ssh_cidrs`, else `0.0.0.0/0`): changed out " +
		"of band, re-opened by another client's scale, or an `ssh_cidrs` change not applied yet"},
	{KindEtcdSSHRuleMissing, "an etcd node's SSH port forward, or the firewall rule that opens it, is missing"},
	{KindAPIRuleMissing, "the API firewall rule 6443 or the API load balancer rule is missing, or on a VPC tier the API port " +
		"forward 6443 (or the API load balancer, when the tier's network offering is in conserve mode)"},
	{KindAPIRuleMismatch, "the API firewall rule 6443 is open to other source CIDRs than the cluster's (`api_cidrs`, else " +
		"`0.0.0.0/0`): widened or narrowed out of band, or, with `api_cidrs`, a rule of someone else's opens 6443 to any " +
		"address outside them, whatever its CIDR strings; or a VPC tier's API port forward leads to a VM that is not a " +
		"control node"},
	{KindNetworkACLItemMissing, "on a VPC tier whose network ACL list is not `default_allow`, an item CKS keeps on the list is " +
		"missing: TCP 6443 (the API), 22 (SSH through the node and etcd forwards) or, with etcd nodes, 2379; CloudStack's own " +
		"SSH and API access through the tier fail without them"},
	{KindScaleHazard, "the next scale, by any client, would revoke a wrong rule or delete a forward (apache/cloudstack#14159)"},
	{KindClusterStateUnexpected, "the cluster is in Alert, which no operation leaves behind unless it failed or CloudStack's " +
		"state scanner found a fault; the message gives the scanner's reason as far as the views show it"},
}

// Kinds lists every finding kind in report order.
func Kinds() []string {
	out := make([]string, 0, len(kindTable))
	for _, k := range kindTable {
		out = append(out, k.name)
	}
	return out
}

// KindsMarkdown describes every finding kind as a Markdown list, for
// schema descriptions and documentation.
func KindsMarkdown() string {
	var b strings.Builder
	for _, k := range kindTable {
		fmt.Fprintf(&b, "\n  - `%s`: %s", k.name, k.description)
	}
	return b.String()
}

// Finding is one mismatch. Fields that do not apply are empty.
type Finding struct {
	Kind     string
	VMID     string
	VMName   string
	VMState  string
	NodeName string
	RuleID   string
	Message  string
	// Attribute names the cks_cluster attribute whose value CloudStack
	// does not have, when the finding is about one: Live is what CloudStack
	// has, Expected what the check expected (the check's ssh_cidrs and
	// api_cidrs, or what CloudStack records for the cluster), both sorted,
	// a single value as a list of one. A policy that reads the plan can
	// tell a change the plan makes (the cluster's value before it is Live,
	// after it Expected) from drift. Findings that compare two of
	// CloudStack's own records leave them empty.
	Attribute string
	Live      []string
	Expected  []string
}

// Views that a check can be asked for and fail to read. The VM map and the
// owner's VMs are not among them: a check that cannot read them has no
// result at all.
const (
	// ViewNodes is the Kubernetes nodes (node_source ssh or kubeconfig).
	ViewNodes = "nodes"
	// ViewNetworkRules is the SSH and API network rules (check_network_rules).
	ViewNetworkRules = "network_rules"
)

// viewLabels names the views in summaries.
var viewLabels = map[string]string{
	ViewNodes:        "Kubernetes nodes",
	ViewNetworkRules: "network rules",
}

// IncompleteView is a view the check was asked for but could not compare.
type IncompleteView struct {
	// View is ViewNodes or ViewNetworkRules.
	View string
	// Reason is why the view could not be read.
	Reason string
}

// Result is the outcome of Compare.
type Result struct {
	Skipped    bool
	SkipReason string
	// ClusterState is the cluster state the comparison saw.
	ClusterState string
	// KubernetesVersion is the cluster's semantic Kubernetes version, "" when
	// its version's name is not one.
	KubernetesVersion string
	// NodesChecked tells whether Kubernetes nodes were compared.
	NodesChecked bool
	// NodeCheckError is why listing the nodes failed, when it did.
	NodeCheckError string
	// Incomplete lists the views that were asked for but could not be
	// compared, in view order (nodes, then network rules). A check with an
	// incomplete view is never in sync: the drift it could not see may be
	// there.
	Incomplete []IncompleteView
	Findings   []Finding
	// Counts has every kind of Kinds, zero included. Ignored findings are
	// not in Findings or Counts.
	Counts map[string]int
	// Ignored are the findings ignore rules accepted (ApplyIgnores), and
	// IgnoredCounts counts them by kind, every kind included.
	Ignored       []IgnoredFinding
	IgnoredCounts map[string]int
	// RuleUses says what each ignore rule did, rule for rule.
	RuleUses []RuleUse
	// InSync is true only when every view asked for was compared and
	// nothing drifted, ignored findings aside.
	InSync  bool
	Summary string
}

// Complete tells whether every view asked for was compared. A skipped
// cluster is not complete.
func (r Result) Complete() bool { return !r.Skipped && len(r.Incomplete) == 0 }

func kindRank() map[string]int {
	rank := map[string]int{}
	for i, k := range Kinds() {
		rank[k] = i
	}
	return rank
}

// sortFindings orders findings by kind, then VM name, node name and rule id.
func sortFindings(fs []Finding) {
	rank := kindRank()
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		if a.VMName != b.VMName {
			return a.VMName < b.VMName
		}
		if a.NodeName != b.NodeName {
			return a.NodeName < b.NodeName
		}
		return a.RuleID < b.RuleID
	})
}

func countFindings(fs []Finding) map[string]int {
	counts := map[string]int{}
	for _, k := range Kinds() {
		counts[k] = 0
	}
	for _, f := range fs {
		counts[f.Kind]++
	}
	return counts
}

// Summarize gives e.g. "3 findings: 1 size_mismatch, 2 ssh_forward_missing"
// or "in sync", plus the findings ignore rules accepted, and which views
// were not checked and why. A check with
// no finding but an incomplete view reads "incomplete: no finding in the
// views checked; Kubernetes nodes not checked: ...", never "in sync".
func Summarize(r Result) string {
	var s string
	switch {
	case len(r.Findings) == 0 && len(r.Incomplete) > 0:
		s = "incomplete: no finding in the views checked"
	case len(r.Findings) == 0:
		s = "in sync"
	default:
		var parts []string
		for _, k := range Kinds() {
			if n := r.Counts[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, k))
			}
		}
		noun := "findings"
		if len(r.Findings) == 1 {
			noun = "finding"
		}
		s = fmt.Sprintf("%d %s: %s", len(r.Findings), noun, strings.Join(parts, ", "))
	}
	if ignored := IgnoredText(r.IgnoredCounts); ignored != "" {
		s += "; " + ignored
	}
	for _, v := range r.Incomplete {
		s += "; " + ViewLabel(v.View) + " not checked: " + v.Reason
	}
	return s
}

// ViewLabel names a view in words, e.g. "Kubernetes nodes".
func ViewLabel(view string) string {
	if l, ok := viewLabels[view]; ok {
		return l
	}
	return view
}
