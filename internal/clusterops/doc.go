// Package clusterops orchestrates size changes, rule repair and recovery of
// CloudStack Kubernetes Service (CKS) clusters over the CloudStack API, so that
// the #14159 scale-down bug of CloudStack 4.21 through 4.22.1.1 never breaks
// a cluster and a cluster it already broke can be brought back.
//
// The rule knowledge lives in package rules (what CKS owns, what a scale
// would pick wrongly, how to repair); this package reads the cluster and its
// rules (Snapshot), applies the plans with awaited async jobs, calls the CKS
// commands in a safe order and reports every change in words fit for a
// Terraform warning diagnostic. It has no Terraform imports.
//
// Every Scale, Repair and Recover leaves the cluster as safe to scale as it
// found it or safer: the etcd nodes' SSH firewall rules are one range
// (StepHardened), whose ports no forward has, so the scale's rule selector
// (KubernetesClusterResourceModifierActionWorker.removeSshFirewallRule)
// cannot pick it in any order, whichever client scales; a pre-flight refuses
// or moves any other rule it could pick. Delete removes the CKS rules
// CloudStack's destroy leaves on a user-supplied network.
//
// Directly accessed networks (Shared, Routed) carry no CKS rules, so rule
// handling is a no-op there; VPC tiers carry port forwards only.
package clusterops
