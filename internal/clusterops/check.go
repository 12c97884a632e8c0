package clusterops

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// ScaleCheck is what a size change of a cluster would meet, found without
// changing anything: the rule changes the scale makes first, the rules it
// would move out of the way, and the error it would stop with.
type ScaleCheck struct {
	ClusterID string
	State     string
	Network   rules.NetworkKind
	// Sync is the rule plan the scale applies first (empty in the
	// provider's layout).
	Sync rules.Plan
	// Hazards are what the scale would meet after Sync.
	Hazards []rules.Hazard
	// Moves are the user rules the scale would move around itself (with
	// MoveUserRules).
	Moves []rules.Hazard
	// Waits says why the scale will first wait for CloudStack's state
	// scanner (a cluster in Alert), or is empty.
	Waits string
	// OfferingWrites are the node offering columns the scale call writes
	// besides the size (the worker offering it keeps), when it is allowed.
	OfferingWrites OfferingWrites

	err  error
	snap *Snapshot
}

// Err returns the error Scale would stop with before changing anything (a
// *HazardError naming the rules, an *Inconsistency, a state CloudStack
// does not scale), or nil.
func (c ScaleCheck) Err() error { return c.err }

// CheckScale judges a size change to size workers without changing
// anything, for the plan: the same judgement Scale makes first.
func (e *Engine) CheckScale(ctx context.Context, clusterID string, size int64, in Intent) (ScaleCheck, error) {
	s, err := e.Snapshot(ctx, clusterID, in)
	if err != nil {
		return ScaleCheck{ClusterID: clusterID}, err
	}
	check := ScaleCheck{ClusterID: clusterID, State: s.Cluster.State, Network: s.Layout.Network, Sync: s.Sync, snap: s}
	if clusterstate.Transitional(s.Cluster.State) {
		// Update waits for the operation to end, or stops at once when no
		// job of the cluster runs (WaitActionable): nothing to judge yet.
		check.Waits = fmt.Sprintf("cluster %s is in %s: the apply waits for that to end before it checks and scales", clusterID, s.Cluster.State)
		return check, nil
	}
	check.err = scalable(s)
	var alert *AlertError
	if errors.As(check.err, &alert) {
		// Update waits for the scanner; the plan only warns.
		check.Waits, check.err = alert.Error(), nil
	}
	if check.err == nil {
		params, _ := scaleParams(s, size)
		check.OfferingWrites = scaleOfferingWrites(params)
	}
	if check.err == nil && !s.Direct() && s.Cluster.State != clusterstate.Created {
		check.Hazards = e.hazardsAfterSync(ctx, s)
		var prep scalePrep
		prep, check.err = e.prepareScale(ctx, s, size, in)
		check.Moves = append(prep.moveFirewalls, prep.recordForwards...)
	}
	return check, nil
}

// Describe words what the scale will change first: the rule plan and the
// user rules it moves around itself.
func (c ScaleCheck) Describe() []string {
	if c.snap == nil {
		return nil
	}
	out := c.snap.DescribePlan(c.Sync)
	for _, h := range c.Moves {
		out = append(out, fmt.Sprintf("delete %s and re-create it after the scale (recreate consent): %s",
			c.snap.describeRule(h.Rule, h.Purpose), h.Explanation))
	}
	if l := c.snap.Layout; l.Network == rules.NetworkIsolated && l.NarrowsSSH() {
		out = append(out, fmt.Sprintf("after the scale, which re-creates the node SSH firewall range open to %s, narrow it "+
			"back to %s (the narrowed rule is created before the open one is deleted)", rules.AnyCIDR, cidrText(l.SSHCIDRs)))
	}
	return out
}
