// Package rules models the network rules CloudStack Kubernetes Service (CKS)
// keeps on a cluster's public IP for SSH and API access, and plans changes
// to them. It is pure Go: no API calls, no Terraform.
//
// It answers four questions on plain data: which rules the provider keeps
// for a VM map (Expected: CKS's layout with one etcd SSH range instead of
// CKS's single-port etcd rules), which existing rules are CKS's, stale or the
// user's (Classify), what the next scale by any client would get wrong
// (Preflight: the #14159 selector matching a rule other than the node SSH
// range, a port-less rule on 4.21.0-4.22.0.x, a user forward the forward
// cleanup deletes), and how to reach the expected set without touching user
// rules (PlanSync). DetectConflict mirrors the server's rule conflict test so
// plans never run into an HTTP 537. Exposures names the rules of others
// that open a port the layout narrows to more addresses than its CIDRs
// admit, comparing address space (Outside), not strings.
//
// Nothing here depends on the order in which CloudStack lists or evaluates
// rules, except ArmedEtcdRules, which judges CKS's own single-port etcd
// rules (a layout the provider replaces) from the server's list order.
package rules
