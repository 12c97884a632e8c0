package clusterops

import (
	"context"
)

// Sync brings the cluster's SSH rules to the provider's layout without
// scaling, in any cluster state (rule calls do not depend on it): stale CKS
// rules are deleted and missing ones created, CKS's single-port etcd SSH
// rules become one etcd SSH range, and the SSH ranges get Intent.SSHCIDRs.
// User rules and the API rules are never touched; an expected rule a user
// rule blocks is reported, not forced. Directly accessed networks have no
// rules: nothing is done there.
//
// It is what makes a cluster that #14159 broke reachable again (every node
// forward, the node range, every etcd forward and the etcd range come
// back) without a start, stop or scale, which CloudStack would refuse or
// undo.
func (e *Engine) Sync(ctx context.Context, clusterID string, in Intent) (Report, error) {
	rep := Report{ClusterID: clusterID}
	s, err := e.Snapshot(ctx, clusterID, in)
	if err != nil {
		return rep, err
	}
	rep.Cluster, rep.Final = &s.Cluster, s
	err = e.applySync(ctx, s, s.Sync, &rep)
	return rep, err
}
