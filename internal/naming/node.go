package naming

import "strings"

// NodeNameFor returns the Kubernetes node name kubeadm registers for a VM:
// its host name, which Kubernetes lowercases.
func NodeNameFor(vmName string) string {
	return strings.ToLower(vmName)
}

// MatchNode tells whether the Kubernetes node nodeName belongs to the VM
// vmName. An exact match of the full lowercase names is the strongest
// (exact is true); otherwise the node may carry the VM's FQDN, so its first
// DNS label is compared with the lowercase VM name.
func MatchNode(vmName, nodeName string) (exact, ok bool) {
	vm := NodeNameFor(vmName)
	node := strings.ToLower(nodeName)
	if vm == "" || node == "" {
		return false, false
	}
	if vm == node {
		return true, true
	}
	label, _, hasDomain := strings.Cut(node, ".")
	return false, hasDomain && label == vm
}
