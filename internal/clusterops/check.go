package clusterops

import (
	"context"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// ScaleCheck is what a size change of a cluster would meet, found without
// changing anything.
type ScaleCheck struct {
	ClusterID string
	State     string
	Network   rules.NetworkKind
	// Repairs are the rule changes Scale would make first; BlockedRepairs
	// the CKS rules it could not re-create.
	Repairs        []rules.Action
	BlockedRepairs []rules.Blocked
	// Hazards are everything the scale would hit after those repairs.
	Hazards []rules.Hazard
	// Fixable are the wrong picks Scale re-creates after the node range
	// itself: CKS's own rules, and user rules with the opt-in.
	Fixable []rules.Hazard
	// Blocking are the hazards Scale would refuse: user rules without the
	// opt-in.
	Blocking []rules.Hazard
	// Preserve are user forwards Scale would record and re-create around
	// the scale (opt-in).
	Preserve []rules.Hazard

	err error
}

// Err returns the error Scale would return before changing anything
// because of the rules (a *HazardError naming the rules, or a missing node
// range that cannot be re-created), or nil. It does not judge the cluster's
// state.
func (c ScaleCheck) Err() error { return c.err }

// CheckScale returns, without changing anything, the hazards a size change would hit, and which of them
// would block (user rules without the opt-in). The provider calls this at plan time (ModifyPlan) to fail early.
func (e *Engine) CheckScale(ctx context.Context, clusterID string) (ScaleCheck, error) {
	s, err := e.Snapshot(ctx, clusterID)
	if err != nil {
		return ScaleCheck{ClusterID: clusterID}, err
	}
	p := e.planScale(s, -1)
	return ScaleCheck{
		ClusterID:      clusterID,
		State:          s.Cluster.State,
		Network:        s.Layout.Network,
		Repairs:        p.repairs,
		BlockedRepairs: p.blockedRepairs,
		Hazards:        p.hazards,
		Fixable:        p.fixable,
		Blocking:       p.blocking,
		Preserve:       p.preserve,
		err:            p.refusal(e, s),
	}, nil
}
