package clusterops

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Scale changes the worker count so that no SSH path is lost, whatever
// order CloudStack evaluates the rules in and whoever scales next:
//
//  1. read the cluster and its rules and refuse, before any change, what
//     CloudStack would refuse or get wrong (an inconsistent VM map, a
//     Stopped cluster, a rule hazard the engine may not remove);
//  2. bring the rules to the provider's layout (CKS's single-port etcd
//     rules become one etcd SSH range, missing rules are created), which
//     for a cluster already in that layout changes nothing;
//  3. with MoveUserRules, delete the user rules that would go wrong and
//     record the user forwards the scale's cleanup deletes;
//  4. call scaleKubernetesCluster once, with the worker role's current
//     offering so that the size change cannot change offerings, and wait;
//  5. whether the job succeeded or not, check the rules against the
//     layout, repair what the scale broke or re-opened, and restore the
//     recorded user rules.
//
// The scale call is never retried. The checks after it run past the
// caller's deadline on a bounded, detached context.
func (e *Engine) Scale(ctx context.Context, clusterID string, size int64, in Intent) (Report, error) {
	rep := Report{ClusterID: clusterID}
	if size < 1 {
		return rep, fmt.Errorf("scaling Kubernetes cluster %s: size must be at least 1, got %d", clusterID, size)
	}
	s, err := e.Snapshot(ctx, clusterID, in)
	if err != nil {
		return rep, err
	}
	return e.scaleSnapshot(ctx, s, size, in, nil)
}

// scaleSnapshot is Scale on a snapshot already read. planned are the node
// offering columns the plan showed after the scale (nil: none promised).
func (e *Engine) scaleSnapshot(ctx context.Context, s *Snapshot, size int64, in Intent, planned OfferingWrites) (Report, error) {
	rep := Report{ClusterID: s.Cluster.ID, Cluster: &s.Cluster, Final: s}
	if size == s.Cluster.ManagedWorkers() {
		err := e.applySync(ctx, s, s.Sync, &rep)
		return rep, err
	}
	if err := scalable(s); err != nil {
		return rep, err
	}
	params, _ := scaleParams(s, size)
	if err := checkPlannedWrites(&s.Cluster, planned, scaleOfferingWrites(params)); err != nil {
		return rep, err
	}
	if s.Cluster.State == clusterstate.Created || s.Direct() {
		// A Created cluster has no VMs and a direct network no rules:
		// only the scale itself.
		c, _, jobErr := e.runScale(ctx, s, size, &rep)
		rep.Cluster = e.readBackAfter(ctx, s.Cluster.ID, c)
		rep.Final = nil
		if rep.Cluster != nil && s.Direct() {
			final := *s
			final.Cluster = *rep.Cluster
			rep.Final = &final
		}
		return rep, jobErr
	}
	prep, err := e.prepareScale(ctx, s, size, in)
	if err != nil {
		return rep, err
	}
	if err := e.applySync(ctx, s, s.Sync, &rep); err != nil {
		return rep, &StepError{Step: fmt.Sprintf("Bringing the rules of cluster %s to the provider's layout before scaling it "+
			"(no scale was sent)", s.Cluster.ID), Err: err}
	}
	moved, err := e.moveAside(ctx, s, prep, &rep)
	if err != nil {
		return rep, &StepError{Step: fmt.Sprintf("Moving your rules out of the way of the scale of cluster %s (no scale was "+
			"sent)", s.Cluster.ID), Err: errors.Join(err, e.restoreMoved(ctx, s, moved, &rep))}
	}
	rep.Final = nil // known again once verifyAfterScale has read the rules
	c, pendingJob, jobErr := e.runScale(ctx, s, size, &rep)
	return rep, errors.Join(jobErr, e.verifyAfterScale(ctx, s, c, pendingJob, in, moved, &rep))
}

// scalable refuses, before any change, the size changes CloudStack would
// refuse or that could not work.
func scalable(s *Snapshot) error {
	c := &s.Cluster
	if bad := InconsistentMap(c); bad != nil {
		return bad
	}
	switch {
	case c.State == clusterstate.Alert:
		return &AlertError{ClusterID: c.ID}
	case c.State == clusterstate.Stopped:
		return fmt.Errorf("scaling Kubernetes cluster %s: CloudStack refuses to change the size of a Stopped cluster; start it first", c.ID)
	case c.State != clusterstate.Running && c.State != clusterstate.Created:
		return fmt.Errorf("scaling Kubernetes cluster %s: it is in state %s and CloudStack scales only Created, Running or Stopped clusters", c.ID, c.State)
	case c.ServiceOfferingID == "" && c.State != clusterstate.Created:
		// KubernetesClusterScaleWorker.validateKubernetesClusterScaleSizeParameters
		// fails without the cluster's service offering (apache/cloudstack#14122).
		return fmt.Errorf("scaling Kubernetes cluster %s: it was created without a service offering, and CloudStack "+
			"cannot change the size of such a cluster (it fails with \"cluster service offering not found\")", c.ID)
	}
	return nil
}

// scalePrep is what a scale needs besides the sync plan: the user rules to
// move out of its way.
type scalePrep struct {
	// moveFirewalls are user firewall rules to delete before the scale and
	// re-create after it.
	moveFirewalls []rules.Hazard
	// recordForwards are user forwards the scale's cleanup deletes, to
	// re-create after it.
	recordForwards []rules.Hazard
}

// prepareScale judges the rules as the sync plan will leave them.
func (e *Engine) prepareScale(ctx context.Context, s *Snapshot, size int64, in Intent) (scalePrep, error) {
	var prep scalePrep
	hazards := e.hazardsAfterSync(ctx, s, size)
	var refused []rules.Hazard
	optIn := false
	// After the scale CKS forwards the ports of its new node range and, after
	// them, those of the external nodes (addFirewallRulesForNodes).
	newEnd := rules.NodeSSHStartPort + s.Layout.InternalCount() + int(size-clusterview.MapWorkers(&s.Cluster)) +
		int(s.Cluster.ExternalNodes()) - 1
	for _, h := range hazards {
		if h.Kind == rules.HazardCollateral && h.Rule.IPAddressID == s.PublicIPID && h.Rule.StartPort <= newEnd {
			// No consent helps: the port is CKS's after the scale.
			h.Explanation += fmt.Sprintf("; after the scale CKS forwards the ports up to %d to its nodes, so it could not be re-created", newEnd)
			h.Remedy = rules.RemedyNone
		}
		switch {
		case h.Remedy != rules.RemedyAroundScale:
			refused = append(refused, h)
		case !in.MoveUserRules:
			refused = append(refused, h)
			optIn = true
		case h.Kind == rules.HazardCollateral:
			prep.recordForwards = append(prep.recordForwards, h)
		default:
			prep.moveFirewalls = append(prep.moveFirewalls, h)
		}
	}
	if len(refused) > 0 {
		herr := &HazardError{ClusterID: s.Cluster.ID, Hazards: refused}
		if optIn {
			herr.OptIn = OptInMoveUserRules
		}
		for _, h := range refused {
			if h.Remedy != rules.RemedyAroundScale || (h.Kind == rules.HazardCollateral && in.MoveUserRules) {
				herr.OptIn = ""
			}
		}
		return prep, herr
	}
	return prep, nil
}

// hazardsAfterSync are the hazards a scale to size workers meets once the
// sync plan has run. A CKS rule the sync keeps because a user rule blocks
// its replacement (CKS's single-port etcd rules, when the etcd SSH range
// cannot be created) is no longer the sync's to remove: only the user can.
func (e *Engine) hazardsAfterSync(ctx context.Context, s *Snapshot, size int64) []rules.Hazard {
	ip, forwards := rules.Predict(s.Rules, s.NetworkForwards, s.Sync)
	if s.Layout.Network == rules.NetworkVPC {
		return rules.PreflightVPC(s.Layout, ip, forwards, s.Layout.NodeVMCount()+int(size-clusterview.MapWorkers(&s.Cluster)))
	}
	hazards := rules.Preflight(s.Layout, ip, forwards, e.server(ctx, s))
	for i, h := range hazards {
		if h.Owner != rules.OwnerCKS || h.Remedy != rules.RemedySync {
			continue
		}
		for _, b := range s.Sync.Blocked {
			if rules.Replaces(b.Expectation, h.Purpose) {
				hazards[i].Remedy = rules.RemedyNone
				hazards[i].Explanation += fmt.Sprintf("; the provider keeps it because the %s that would replace it would "+
					"conflict with rule %s (%s): change or delete that rule", s.describeRule(b.Expectation.Rule(s.Layout), b.Expectation.Purpose),
					b.Conflict.ID, s.describeRule(b.Conflict, rules.PurposeUser))
			}
		}
	}
	return hazards
}

// runScale calls scaleKubernetesCluster once and waits for it. It returns
// the cluster as the successful job reports it, or, when the wait ended
// without learning the job's outcome (the caller's deadline), the job's id.
func (e *Engine) runScale(ctx context.Context, s *Snapshot, size int64, rep *Report) (*cloudstack.Cluster, string, error) {
	c := &s.Cluster
	params, how := scaleParams(s, size)
	from := c.ManagedWorkers()
	e.logf(ctx, "scaling Kubernetes cluster", map[string]any{"cluster_id": c.ID, "from": from, "to": size})
	ref, err := e.api.ScaleKubernetesCluster(ctx, params)
	var res json.RawMessage
	if err == nil {
		res, err = e.wait(ctx, "scaleKubernetesCluster", ref.JobID)
	}
	if err != nil {
		e.step(ctx, rep, StepScaled, fmt.Sprintf("scaling the cluster from %d to %d worker(s)%s failed: %v", from, size, how, err))
		var pending string
		if cloudstack.IsJobOutcomeUnknown(err) {
			pending = ref.JobID
		}
		return nil, pending, fmt.Errorf("scaling Kubernetes cluster %s from %d to %d workers: %w", c.ID, from, size, err)
	}
	e.step(ctx, rep, StepScaled, fmt.Sprintf("scaled the cluster from %d to %d worker(s)%s", from, size, how))
	// The job succeeded: an undecodable result only means reading the
	// cluster again (a nil cluster).
	scaled, _ := cloudstack.DecodeClusterJobResult(res)
	return scaled, "", nil
}

// scaleParams builds the scale call. A size change names the worker role's
// current offering (the first worker VM's, which is the one
// KubernetesClusterScaleWorker.getExistingOfferingIdForNodeType compares
// with): without nodeofferings, KubernetesClusterManagerImpl maps the
// cluster's service offering to every role (DEFAULT), and a role whose VMs
// have another offering would get an offering change, which KVM refuses for
// running VMs. The worker entry alone keeps DEFAULT out of the map, and the
// scale worker then skips the control and etcd roles. serviceofferingid is
// never sent. A scale-down of a cluster with several control nodes, or
// with external nodes, names the workers to remove (nodeids, with only
// control and etcd entries, which is all the server accepts with nodeids),
// because the server's own pick is offset by the control node count and by
// the external nodes that size counts. size is the number of workers CKS
// manages; the size sent counts the external nodes too, as node_count does
// (KubernetesClusterAddWorker.updateKubernetesCluster adds them to it).
func scaleParams(s *Snapshot, size int64) (cloudstack.ScaleClusterParams, string) {
	c := &s.Cluster
	p := cloudstack.ScaleClusterParams{ID: c.ID}
	offerings := roleOfferings(c)
	if remove := workersToRemove(s, size); len(remove) > 0 {
		p.NodeIDs = remove
		delete(offerings, "worker")
		if len(offerings) > 0 {
			p.NodeOfferings = offerings
		}
		return p, fmt.Sprintf(" by removing the newest worker VM(s) %v", remove)
	}
	apiSize := size + c.ExternalNodes()
	p.Size = &apiSize
	if w := offerings["worker"]; w != "" {
		p.NodeOfferings = map[string]string{"worker": w}
	}
	return p, ""
}

// roleOfferings returns the offering each role's VMs run, falling back to
// the role's offering on the cluster (NodeOffering) when they have none or
// disagree: the server compares with the first VM of the role in its own
// id order (KubernetesClusterScaleWorker.getExistingOfferingIdForNodeType),
// which the API does not show, so the map order must not decide.
func roleOfferings(c *cloudstack.Cluster) map[string]string {
	out := map[string]string{}
	agreed := roleValues(c, func(vm clusterview.MapVM) string { return vm.OfferingID })
	roles := []naming.Role{naming.RoleControl, naming.RoleWorker}
	if c.EtcdNodes > 0 {
		roles = append(roles, naming.RoleEtcd)
	}
	for _, role := range roles {
		if id := cmp.Or(agreed[role], NodeOffering(c, string(role))); id != "" {
			out[string(role)] = id
		}
	}
	return out
}

// workersToRemove returns the workers a scale-down of a cluster with
// several control nodes, or with external nodes, must name:
// KubernetesClusterScaleWorker.scaleDownKubernetesClusterSize cuts its
// worker-only list (external nodes left out) at controlNodeCount + newSize
// - 1 (4.22.0) or newSize (4.22.1), so with C > 1 it would remove too few
// workers or fail, and with external nodes, which newSize counts, too few
// or none (the cluster then stays in Scaling). The newest workers go first,
// as the server's own pick does; newest by creation time and name (whose
// hex suffix is the creation time in milliseconds), not by the map order,
// which the API does not guarantee. Nil means "send size".
func workersToRemove(s *Snapshot, size int64) []string {
	c := &s.Cluster
	managed := c.ManagedWorkers()
	if (c.ControlNodes <= 1 && c.ExternalNodes() == 0) || size >= managed || c.State != clusterstate.Running {
		return nil
	}
	var workers []clusterview.MapVM
	for _, vm := range clusterview.MapVMs(c) {
		if vm.Role == naming.RoleWorker && !vm.External {
			workers = append(workers, vm)
		}
	}
	k := int(managed - size)
	if k > len(workers) {
		return nil
	}
	slices.SortStableFunc(workers, func(a, b clusterview.MapVM) int {
		return cmp.Or(b.Created.Compare(a.Created), cmp.Compare(b.Name, a.Name))
	})
	out := make([]string, 0, k)
	for _, vm := range workers[:k] {
		out = append(out, vm.ID)
	}
	return out
}

// verifyAfterScale reads the rules again and brings them back to the
// layout, whether the scale succeeded or not, then restores the user rules
// moved out of its way. scaled is the cluster the job reported, or nil.
//
// The scale's wait may have ended at the caller's deadline while the job
// runs on, so this runs on a detached, bounded context, after the cluster
// has left Scaling (a repair during the server's rebuild would be undone
// by it).
func (e *Engine) verifyAfterScale(ctx context.Context, pre *Snapshot, scaled *cloudstack.Cluster, pendingJob string, in Intent,
	moved []rules.Rule, rep *Report,
) error {
	ctx, cancel := detached(ctx)
	defer cancel()
	c := scaled
	if c == nil {
		var err error
		if c, err = e.waitScaleOver(ctx, pre.Cluster.ID, pendingJob, rep); err != nil {
			rep.Cluster = c
			e.reportUnrestored(ctx, pre, moved, rep, err)
			return fmt.Errorf("verifying the rules after the scale: %w", err)
		}
	}
	rep.Cluster = c
	in.Network = pre.Layout.Network
	post, err := e.snapshotOf(ctx, c, in)
	if err != nil {
		e.reportUnrestored(ctx, pre, moved, rep, err)
		return fmt.Errorf("verifying the rules after the scale: %w", err)
	}
	var errs []error
	if err := e.applySync(ctx, post, post.Sync, rep); err != nil {
		errs = append(errs, fmt.Errorf("repairing the rules after the scale: %w", err))
	}
	if len(moved) > 0 {
		errs = append(errs, e.restoreMoved(ctx, post, moved, rep))
	}
	post.reclassify()
	rep.Final = post
	return errors.Join(errs...)
}

// reclassify recomputes the classification and sync plan of s.Rules after
// the engine changed them.
func (s *Snapshot) reclassify() {
	s.Classification = rules.Classify(s.Layout, s.Rules)
	s.Sync = rules.PlanSync(s.Layout, s.Classification)
	s.classifyACL()
}

// readBackAfter returns the cluster a job reported, or reads it.
func (e *Engine) readBackAfter(ctx context.Context, id string, reported *cloudstack.Cluster) *cloudstack.Cluster {
	if reported != nil {
		return reported
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	if c, err := e.api.GetKubernetesCluster(ctx, id); err == nil {
		return c
	}
	return nil
}
