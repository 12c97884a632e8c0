// Package driftcheck runs the CKS drift check against a live CloudStack: it
// fetches the four views of a cluster (the VM map, the owner's VMs, the
// Kubernetes nodes and the SSH network rules), feeds them to drift.Compare and
// reports what the check cost. It lists the records and takes what they mean
// from package clusterview, the reading clusterops uses too, so that a
// check judges a cluster as an apply would.
//
// Views are fetched concurrently once the cluster is known, so a check takes
// about one cluster lookup plus the slowest view. One check of a cluster on an
// isolated network in SSH mode makes at most four CloudStack requests (plus
// pages; five for a project's cluster, which the first, account-wide cluster
// list leaves out) and opens one SSH session. A project's rules and networks
// are listed with its projectid. A failure to list the nodes, or a rules
// view that cannot be built, never fails the check: the VM comparison still
// runs, and the missing view is reported in Result.Incomplete. Such a check
// fails closed: it is never in sync, since the view it could not read may
// hide drift. The check only reads; it never changes anything.
//
// One thing the API cannot show is a map row whose VM was expunged or never
// existed: listKubernetesClusters leaves such rows out. CloudStack's state
// scanner still sees them and holds the cluster in Alert, so an Alert
// cluster whose visible views are all clean is reported as
// cluster_state_unexpected, with the explanation.
//
// Options.Ignore rules move the findings a team accepts out of the
// findings into Result.Ignored, with their reason (drift.ApplyIgnores).
//
// CheckMany checks a fleet with bounded concurrency and shares the cluster
// list and each owner's VM list between the clusters, so the number of
// CloudStack requests per cluster drops as the fleet grows.
package driftcheck
