// Package clusterops creates, changes and deletes CloudStack Kubernetes
// Service (CKS) clusters over the CloudStack API, so that the #14159
// scale-down bug of CloudStack 4.21 through 4.22.1.1 never breaks a cluster
// and a cluster it already broke can be brought back.
//
// The rule knowledge lives in package rules (what CKS owns, what a scale
// would pick wrongly, how to repair), and what a cluster's records mean
// (its VM map with roles, its network kind, its rules and ACL items as
// rules values) in package clusterview, which the drift check reads them
// with too; this package lists the cluster's records (Snapshot), applies
// the plans with awaited async jobs, calls the CKS commands in a safe
// order and reports every change in words fit for a Terraform warning
// diagnostic. It has no Terraform imports.
//
// The Engine (New) is the entry point. Its methods:
//
//   - change a cluster: Create, Update, Scale, Sync (brings the SSH rules
//     back to the provider's layout, which is how a cluster #14159 broke is
//     repaired) and Delete;
//   - judge a change before it is made: CheckCreate, CheckScale and
//     CheckUpgrade;
//   - read: Get, FindByName, Kubeconfig, Observe, ObserveCluster and
//     Snapshot;
//   - wait: WaitSettled, WaitActionable, and Stuck, which tells a cluster
//     CloudStack left in a transitional state with no job running;
//   - look entries up by name or id: FindZone, FindServiceOffering,
//     FindNetwork, FindProject, FindVersion and ListVersions.
//
// The error types a caller tells apart are in errors.go.
//
// Every Scale, Sync and Update (and so the set-up a Create runs, which is an
// Update) leaves the cluster as safe to scale as it found it or safer: the etcd nodes' SSH firewall rules are one range
// (StepHardened), whose ports no forward has, so the scale's rule selector
// (KubernetesClusterResourceModifierActionWorker.removeSshFirewallRule)
// cannot pick it in any order, whichever client scales; a pre-flight refuses
// or moves any other rule it could pick. Delete removes the CKS rules
// CloudStack's destroy leaves on a user-supplied network.
//
// Directly accessed networks (Shared, Routed) carry no CKS rules, so rule
// handling is a no-op there; VPC tiers carry port forwards only.
package clusterops
