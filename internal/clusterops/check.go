package clusterops

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
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
		check.Hazards = e.hazardsAfterSync(ctx, s, size)
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
			"back to %s (the narrowed rule is created before the open one is deleted)", rules.AnyCIDR, rules.CIDRText(l.SSHCIDRs)))
	}
	return out
}

// DefaultMaxClusterSize is CloudStack's default of
// cloud.kubernetes.cluster.max.size: the most control plus worker nodes a
// cluster may have. The setting itself is readable with admin rights only.
const DefaultMaxClusterSize = 10

// CreateField names the part of a create request a CreateProblem is about;
// the caller maps it to its own setting.
type CreateField string

// Create fields.
const (
	FieldAutoscaler        CreateField = "autoscaler"
	FieldAutoscalerMaximum CreateField = "autoscaler.maximum"
)

// CreateProblem is something that would make a step after the create fail,
// found before anything is created.
type CreateProblem struct {
	Field   CreateField
	Message string
	// Certain is false when the problem depends on a server setting that
	// could not be read (it is a warning then, not a refusal).
	Certain bool
}

// CheckCreate looks, before anything is created, for what would make a
// step after the create fail, so that it is refused at plan time instead of
// leaving a cluster short of what was asked. It checks what a user without
// admin rights can know:
//
//   - the autoscaler needs a Kubernetes version that supports it
//     (listKubernetesSupportedVersions' supportsautoscaling): certain;
//   - the autoscaler's maximum plus the control nodes must not exceed
//     cloud.kubernetes.cluster.max.size, which only an admin can read: it is
//     checked against the default (DefaultMaxClusterSize), as a warning.
//
// It makes no call when the request has no autoscaler. What CloudStack
// checks when it receives the create itself (sizes, offerings, version
// state) it refuses before making anything, so it is left to CloudStack.
func (e *Engine) CheckCreate(ctx context.Context, req CreateRequest) ([]CreateProblem, error) {
	as := req.Then.Autoscaling
	if as == nil {
		return nil, nil
	}
	p := req.Params
	var out []CreateProblem
	control := max(p.ControlNodes, 1)
	if as.MaxSize+control > DefaultMaxClusterSize {
		out = append(out, CreateProblem{Field: FieldAutoscalerMaximum, Message: fmt.Sprintf("the autoscaler's maximum of %d "+
			"workers plus %d control node(s) is %d, above %d, the default of CloudStack's cloud.kubernetes.cluster.max.size. "+
			"Unless an administrator raised that setting, CloudStack will refuse to configure the autoscaler once the cluster "+
			"exists (the cluster is kept, without the autoscaler). The setting can only be read with admin rights, so it was "+
			"not checked", as.MaxSize, control, as.MaxSize+control, DefaultMaxClusterSize)})
	}
	versions, err := e.api.ListKubernetesSupportedVersions(ctx, p.ZoneID)
	if err != nil {
		return out, err
	}
	for _, v := range versions {
		if v.ID == p.KubernetesVersionID && !v.SupportsAutoscaling {
			out = append(out, CreateProblem{Field: FieldAutoscaler, Certain: true, Message: fmt.Sprintf("Kubernetes version %s "+
				"(%s) does not support the cluster autoscaler: CloudStack would create the cluster and then refuse to "+
				"configure its autoscaler", v.SemanticVersion, v.ID)})
		}
	}
	return out, nil
}

// UpgradeVerdict is what CheckUpgrade found.
type UpgradeVerdict int

// Upgrade verdicts.
const (
	// UpgradeAllowed: CKS's upgrade rule holds, or cannot be judged because
	// the versions are not semantic versions (CloudStack judges it).
	UpgradeAllowed UpgradeVerdict = iota
	// UpgradeUnknownTarget: no version has the target id in the zone.
	UpgradeUnknownTarget
	// UpgradeTargetNotUsable: the target is not Enabled with a Ready ISO.
	UpgradeTargetNotUsable
	// UpgradeCurrentUnknown: the cluster's version is no longer listed, so
	// the rule cannot be checked; CloudStack will check it.
	UpgradeCurrentUnknown
	// UpgradeRefused: a downgrade, a change of major version or a jump of
	// more than one minor version, which CloudStack refuses.
	UpgradeRefused
)

// UpgradeCheck is the verdict on an upgrade and its explanation.
type UpgradeCheck struct {
	Verdict UpgradeVerdict
	Message string
}

// CheckUpgrade applies CKS's upgrade rule (same major, at most one minor
// ahead, no downgrade: KubernetesClusterManagerImpl's upgrade validation)
// to the semantic versions of two version ids of a zone.
func (e *Engine) CheckUpgrade(ctx context.Context, zoneID, fromID, toID string) (UpgradeCheck, error) {
	versions, err := e.api.ListKubernetesSupportedVersions(ctx, zoneID)
	if err != nil {
		return UpgradeCheck{}, &ListError{What: "the Kubernetes versions of zone " + zoneID, Err: err}
	}
	from, fromOK := findVersionID(versions, fromID)
	to, toOK := findVersionID(versions, toID)
	switch {
	case !toOK:
		return UpgradeCheck{UpgradeUnknownTarget, fmt.Sprintf("No Kubernetes version with id %s exists in zone %s.", toID, zoneID)}, nil
	case !usableVersion(to):
		return UpgradeCheck{UpgradeTargetNotUsable, fmt.Sprintf("Kubernetes version %s (%s) is %s with ISO state %q; an "+
			"upgrade needs an Enabled version with a Ready ISO.", to.SemanticVersion, to.ID, to.State, to.ISOState)}, nil
	case !fromOK:
		return UpgradeCheck{UpgradeCurrentUnknown, fmt.Sprintf("The cluster's current version %s is no longer listed, so the "+
			"upgrade rule cannot be checked at plan time; CloudStack will check it.", fromID)}, nil
	}
	// Versions that are not semantic versions are left for CloudStack to
	// judge.
	fromV, errFrom := kubeversion.Parse(from.SemanticVersion)
	toV, errTo := kubeversion.Parse(to.SemanticVersion)
	if errFrom == nil && errTo == nil {
		if err := kubeversion.CheckUpgrade(fromV, toV); err != nil {
			return UpgradeCheck{UpgradeRefused, fmt.Sprintf("Cannot upgrade from %s (%s) to %s (%s): %s. CloudStack upgrades a "+
				"cluster within its major version, one minor version at a time, and never downgrades it.",
				from.SemanticVersion, from.ID, to.SemanticVersion, to.ID, err)}, nil
		}
	}
	return UpgradeCheck{Verdict: UpgradeAllowed}, nil
}

func findVersionID(versions []cloudstack.KubernetesVersion, id string) (cloudstack.KubernetesVersion, bool) {
	for _, v := range versions {
		if v.ID == id {
			return v, true
		}
	}
	return cloudstack.KubernetesVersion{}, false
}

// CheckCIDRFamily returns a *CIDRFamilyError when a CIDR is of another
// address family than ip; it says nothing when ip is not an address.
func CheckCIDRFamily(ip string, cidrs []string) error {
	addr, _ := netip.ParseAddr(strings.TrimSpace(ip))
	if !addr.IsValid() {
		return nil
	}
	var wrong []string
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(strings.TrimSpace(c)); err == nil && p.Addr().Is4() != addr.Unmap().Is4() {
			wrong = append(wrong, c)
		}
	}
	if len(wrong) > 0 {
		return &CIDRFamilyError{IP: ip, CIDRs: wrong}
	}
	return nil
}
