// Package drift compares a CKS cluster's VM map with the VMs CloudStack
// lists, the Kubernetes nodes and the SSH network rules, and reports each
// mismatch as a Finding. It only reads its input: nothing is changed, and
// the same input always gives the same result.
//
// The checks follow the VM map drift check proposed for CloudStack
// (apache/cloudstack#14666) and the failure modes of a scale-down with
// separate etcd nodes after a scale-up (apache/cloudstack#14159): stale size
// after a failed scale, missing or destroyed map VMs, stray node VMs, nodes
// without VMs and VMs without nodes (with a grace period for joining nodes),
// NotReady nodes, SSH rules that no longer fit the map, and rules that would
// make the next scale fail.
package drift
