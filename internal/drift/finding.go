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
	KindSizeMismatch             = "size_mismatch"
	KindNodeNotReady             = "node_not_ready"
	KindSSHForwardMissing        = "ssh_forward_missing"
	KindSSHForwardStale          = "ssh_forward_stale"
	KindSSHFirewallRangeMismatch = "ssh_firewall_range_mismatch"
	KindEtcdSSHRuleMissing       = "etcd_ssh_rule_missing"
	KindScaleHazard              = "scale_hazard"
)

// Kinds lists every finding kind in report order.
func Kinds() []string {
	return []string{
		KindMappedVMMissing, KindMappedVMNotRunning, KindUnmappedVM, KindNodeWithoutVM, KindVMNotNode,
		KindSizeMismatch, KindNodeNotReady, KindSSHForwardMissing, KindSSHForwardStale,
		KindSSHFirewallRangeMismatch, KindEtcdSSHRuleMissing, KindScaleHazard,
	}
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

// summarize gives e.g. "3 findings: 1 size_mismatch, 2 ssh_forward_missing"
// or "in sync", plus why nodes were not checked when listing them failed.
func summarize(r Result) string {
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
