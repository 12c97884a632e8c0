// Package rules models the network rules CloudStack Kubernetes Service (CKS)
// keeps on a cluster's public IP for SSH and API access, and plans changes
// to them.
//
// It answers four questions on plain data: which rules CKS owns for a VM map
// (Expected), which existing rules are CKS's, stale or the user's (Classify),
// which rules would make CloudStack's scale pick the wrong "SSH firewall
// rule" (the #14159 bug: BuggyPick, Hazards), and how to fix that without
// touching user rules (PlanNeutralise, PlanRepair). DetectConflict mirrors
// the server's rule conflict test so plans never run into an HTTP 537.
//
// Rules are given in ascending id order, as CloudStack lists them; within a
// kind, that order is the meaning of "first" and "before".
package rules
