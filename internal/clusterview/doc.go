// Package clusterview tells what a CKS cluster's CloudStack records mean:
// the role of each VM in the cluster's VM map, the host of its endpoint,
// the VM map as the rule planner sees it, a listed load balancer rule as a
// rules.Rule, and what a CloudStack version does with the cluster's rules.
//
// These readings are pure: they make no API call and keep no state, so the
// engine that changes clusters (clusterops) and the one that checks them
// for drift (driftcheck) read a cluster the same way without depending on
// each other.
package clusterview
