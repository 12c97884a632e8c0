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
	KindUnmappedVM               = "unmapped_vm"
	KindNodeWithoutVM            = "node_without_vm"
	KindVMNotNode                = "vm_not_node"
	KindVMMapInconsistent        = "vm_map_inconsistent"
	KindNodeNotReady             = "node_not_ready"
	KindSSHForwardMissing        = "ssh_forward_missing"
	KindSSHForwardStale          = "ssh_forward_stale"
	KindSSHFirewallRangeMismatch = "ssh_firewall_range_mismatch"
	KindEtcdSSHRuleMissing       = "etcd_ssh_rule_missing"
	KindAPIRuleMissing           = "api_rule_missing"
	KindScaleHazard              = "scale_hazard"
)

// kinds describes every finding kind, in report order.
var kindTable = []struct{ name, description string }{
	{KindMappedVMMissing, "a VM in the cluster's VM map does not exist"},
	{KindMappedVMNotRunning, "a VM in the VM map is destroyed, expunging or in error, or stopped while the cluster runs"},
	{KindUnmappedVM, "a VM named as a node of the cluster is in no cluster's VM map"},
	{KindNodeWithoutVM, "a Kubernetes node has no VM in the VM map"},
	{KindVMNotNode, "a running control or worker VM of the map is not a Kubernetes node"},
	{KindVMMapInconsistent, "the VM map disagrees with the cluster's size (node_count), as a failed scale leaves it; " +
		"CloudStack refuses to scale such a cluster and only an administrator can correct the size"},
	{KindNodeNotReady, "a Kubernetes node is not Ready"},
	{KindSSHForwardMissing, "a node's SSH port forward 2222+i is missing"},
	{KindSSHForwardStale, "an SSH port forward of CKS goes to the wrong VM or beyond the VM map"},
	{KindSSHFirewallRangeMismatch, "the node SSH firewall range is missing or does not cover the map's nodes"},
	{KindEtcdSSHRuleMissing, "an etcd node's SSH port forward, or the firewall rule that opens it, is missing"},
	{KindAPIRuleMissing, "the API firewall rule 6443 or the API load balancer rule is missing"},
	{KindScaleHazard, "the next scale, by any client, would revoke a wrong rule or delete a forward (apache/cloudstack#14159)"},
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
}

// Result is the outcome of Compare.
type Result struct {
	Skipped    bool
	SkipReason string
	// ClusterState is the cluster state the comparison saw.
	ClusterState string
	// NodesChecked tells whether Kubernetes nodes were compared.
	NodesChecked bool
	// NodeCheckError is why listing the nodes failed, when it did.
	NodeCheckError string
	Findings       []Finding
	// Counts has every kind of Kinds, zero included.
	Counts  map[string]int
	InSync  bool
	Summary string
}

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
// or "in sync", plus why nodes were not checked when listing them failed.
func Summarize(r Result) string {
	var s string
	if len(r.Findings) == 0 {
		s = "in sync"
	} else {
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
	if r.NodeCheckError != "" {
		s += "; Kubernetes nodes not checked: " + r.NodeCheckError
	}
	return s
}
