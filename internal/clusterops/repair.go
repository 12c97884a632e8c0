package clusterops

import (
	"context"
)

// Repair verifies and repairs the cluster's CKS-owned SSH rules (node range, node forwards, etcd firewall
// and forwards) without scaling. Used after any failure and by Recover.
//
// Stale CKS rules (a node range of the wrong length, a forward to a VM no
// longer at that index) are deleted first, then the missing ones are
// created in the order CKS creates them; user rules and the API rules are
// never touched, and a rule that would conflict with a user rule is
// reported as blocked instead of created. Then every firewall rule the
// #14159 bug would revoke instead of the node range is re-created after it,
// as Scale does (user rules only with the opt-in), so the cluster is left
// safe to scale from any client. Directly accessed networks have no rules:
// nothing is done there.
func (e *Engine) Repair(ctx context.Context, clusterID string) (Report, error) {
	rep := Report{ClusterID: clusterID}
	s, err := e.Snapshot(ctx, clusterID)
	if err != nil {
		return rep, err
	}
	rep.Cluster = &s.Cluster
	err = e.repairSnapshot(ctx, s, &rep)
	return rep, err
}

func (e *Engine) repairSnapshot(ctx context.Context, s *Snapshot, rep *Report) error {
	return e.settle(ctx, s, rep)
}
