package clusterops

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Scale changes the worker count safely: repair missing/stale CKS rules first (so the server's rebuild starts
// from a sane state), neutralise hazards (re-create CKS etcd firewall rules so they sort after the node range;
// user hazards only with the opt-in, else return a *HazardError naming the rule(s) and explaining), call
// scaleKubernetesCluster, wait, and — whether the job succeeded or failed — verify the expected rules and repair
// what is missing or stale. Returns a Report (what was neutralised, repaired, the final cluster read back) and
// the job error if any. Never retries the scale call itself. The checks
// after the scale run even when the caller's deadline ended the wait (see
// verifyAfterScale), for at most a few minutes more.
//
// A cluster in Alert, or with a size that disagrees with its VM map, is
// refused with a *RecoveryNeededError (use Recover); so is a size change of
// a Stopped cluster, which CloudStack refuses. With several control nodes a
// scale-down names the workers to remove (nodeids, newest first, as the
// server would pick them), because the server's own choice is wrong then
// (spec §2.6).
func (e *Engine) Scale(ctx context.Context, clusterID string, size int64) (Report, error) {
	rep := Report{ClusterID: clusterID}
	if size < 1 {
		return rep, fmt.Errorf("scaling Kubernetes cluster %s: size must be at least 1, got %d", clusterID, size)
	}
	s, err := e.Snapshot(ctx, clusterID)
	if err != nil {
		return rep, err
	}
	rep.Cluster = &s.Cluster
	if err := e.scalable(s, size); err != nil {
		return rep, err
	}
	if size == s.Cluster.Size {
		err := e.repairSnapshot(ctx, s, &rep)
		return rep, err
	}
	if s.Cluster.State == stateCreated {
		// A Created cluster has no VMs: only the counts change.
		jobErr := e.runScale(ctx, s, size, &rep)
		e.readBack(ctx, &rep)
		return rep, jobErr
	}
	err = e.scaleWithRules(ctx, s, size, &rep)
	e.readBack(ctx, &rep)
	return rep, err
}

// scalable refuses, before any change, the scales CloudStack would refuse.
func (e *Engine) scalable(s *Snapshot, size int64) error {
	c := &s.Cluster
	stale := SizeIsStale(c)
	switch {
	case c.State == stateAlert || (stale && c.State != stateCreated):
		return &RecoveryNeededError{ClusterID: c.ID, State: c.State, Size: c.Size, MapWorkers: MapWorkerCount(c),
			Reason: recoveryReason(c),
			Plan:   "CloudStack refuses to scale it as it is; recover it first (Recover), then scale"}
	case c.State == stateStopped && size != c.Size:
		return fmt.Errorf("scaling Kubernetes cluster %s: CloudStack refuses to change the size of a Stopped cluster; start it first", c.ID)
	case c.State != stateRunning && c.State != stateStopped && c.State != stateCreated:
		return fmt.Errorf("scaling Kubernetes cluster %s: it is in state %s and CloudStack scales only Created, Running or Stopped clusters", c.ID, c.State)
	}
	return nil
}

// scaleWithRules is Scale's core: repair, neutralise, scale, verify.
func (e *Engine) scaleWithRules(ctx context.Context, s *Snapshot, size int64, rep *Report) error {
	p := e.planScale(s, size)
	if err := p.refusal(e, s); err != nil {
		return err
	}
	recorded, err := e.prepareScale(ctx, s, size, rep)
	if err != nil {
		return err
	}
	jobErr := e.runScale(ctx, s, size, rep)
	return errors.Join(jobErr, e.verifyAfterScale(ctx, s, recorded, rep))
}

// prepareScale repairs the rules, then re-reads them and neutralises the
// hazards (a repair re-creates the node range after the etcd rules, so
// hazards are computed again), and records the user forwards the scale will
// delete (opt-in). It returns the recorded rules.
func (e *Engine) prepareScale(ctx context.Context, s *Snapshot, size int64, rep *Report) ([]rules.Rule, error) {
	if s.Direct() {
		return nil, nil
	}
	if err := e.applyRepair(ctx, s, rep); err != nil {
		return nil, err
	}
	if err := e.readRules(ctx, s); err != nil {
		return nil, err
	}
	p := e.planScale(s, size)
	if err := p.refusal(e, s); err != nil {
		return nil, err
	}
	actions, _ := rules.PlanNeutralise(p.fixable, true)
	if err := e.applyNeutralise(ctx, s, actions, rep, ""); err != nil {
		return nil, err
	}
	return e.recordCollateral(ctx, s, p.preserve, rep)
}

// verifyAfterScale reads the cluster again, repairs its rules, restores
// the recorded user rules and, because the server's rebuild gave the node
// SSH range a new id after the etcd firewall rules, neutralises the wrong
// picks again, whether the scale succeeded or not.
//
// The scale's wait may have ended at the caller's deadline while the job
// runs on, so this runs on a detached, bounded context, after the cluster
// has left Scaling (a restore during the server's forward cleanup would be
// undone by it). Every recorded rule it could not restore gets a
// StepBlocked step naming it; pre is the snapshot taken before the scale.
func (e *Engine) verifyAfterScale(ctx context.Context, pre *Snapshot, recorded []rules.Rule, rep *Report) error {
	ctx, cancel := detached(ctx)
	defer cancel()
	c, err := e.waitScalingEnds(ctx, pre.Cluster.ID)
	if c != nil {
		rep.Cluster = c
	}
	if err != nil {
		e.reportUnrestored(ctx, pre, recorded, rep, err)
		return fmt.Errorf("verifying the rules after the scale: %w", err)
	}
	post, err := e.snapshotOf(ctx, c)
	if err != nil {
		e.reportUnrestored(ctx, pre, recorded, rep, err)
		return fmt.Errorf("verifying the rules after the scale: %w", err)
	}
	if post.Direct() {
		return nil
	}
	from := len(rep.Steps)
	var errs []error
	if err := e.applyRepair(ctx, post, rep); err != nil {
		errs = append(errs, fmt.Errorf("repairing the rules after the scale: %w", err))
	}
	if len(recorded) > 0 {
		errs = append(errs, e.restoreCollateral(ctx, post, recorded, rep))
	}
	if ctx.Err() == nil {
		if err := e.neutraliseLeftovers(ctx, post, rep, rep.changesSince(from)); err != nil {
			errs = append(errs, fmt.Errorf("moving the firewall rules after the node SSH range after the scale: %w", err))
		}
	}
	return errors.Join(errs...)
}

// runScale calls scaleKubernetesCluster once and waits for it.
func (e *Engine) runScale(ctx context.Context, s *Snapshot, size int64, rep *Report) error {
	c := &s.Cluster
	params := cloudstack.ScaleClusterParams{ID: c.ID}
	how := ""
	if remove := workersToRemove(s, size); len(remove) > 0 {
		params.NodeIDs = remove
		how = fmt.Sprintf(" by removing the newest worker VM(s) %v", remove)
	} else {
		params.Size = &size
	}
	e.logf(ctx, "scaling Kubernetes cluster", map[string]any{"cluster_id": c.ID, "from": c.Size, "to": size})
	ref, err := e.api.ScaleKubernetesCluster(ctx, params)
	if err == nil {
		_, err = e.wait(ctx, "scaleKubernetesCluster", ref.JobID)
	}
	if err != nil {
		e.step(ctx, rep, StepScaled, fmt.Sprintf("scaling the cluster from %d to %d worker(s)%s failed: %v", c.Size, size, how, err))
		return fmt.Errorf("scaling Kubernetes cluster %s from %d to %d workers: %w", c.ID, c.Size, size, err)
	}
	e.step(ctx, rep, StepScaled, fmt.Sprintf("scaled the cluster from %d to %d worker(s)%s", c.Size, size, how))
	return nil
}

// workersToRemove returns the workers a scale-down of a cluster with
// several control nodes must name: CloudStack indexes its worker list with
// an offset that includes the control node count (spec §2.6), so with C > 1
// it would remove too few workers or fail. Nil means "send size".
func workersToRemove(s *Snapshot, size int64) []string {
	c := &s.Cluster
	if c.ControlNodes <= 1 || size >= c.Size || c.State != stateRunning {
		return nil
	}
	var workers []string
	for _, n := range s.Layout.Nodes {
		if n.Role == naming.RoleWorker && !n.External {
			workers = append(workers, n.ID)
		}
	}
	k := int(c.Size - size)
	if k > len(workers) {
		return nil
	}
	out := make([]string, 0, k)
	for i := len(workers) - 1; i >= len(workers)-k; i-- {
		out = append(out, workers[i])
	}
	return out
}

// readBack stores the cluster as CloudStack reports it now in the report.
func (e *Engine) readBack(ctx context.Context, rep *Report) {
	if ctx.Err() != nil {
		return
	}
	if c, err := e.api.GetKubernetesCluster(ctx, rep.ClusterID); err == nil {
		rep.Cluster = c
	}
}

func recoveryReason(c *cloudstack.Cluster) string {
	mapWorkers := MapWorkerCount(c)
	switch {
	case mapWorkers < c.Size:
		return fmt.Sprintf("its size is stale: a failed scale removed worker VMs but CloudStack writes the size last, "+
			"and its state scanner keeps such a cluster in Alert (the VM map must hold C+W+E = %d VMs)", c.ControlNodes+c.Size+c.EtcdNodes)
	case mapWorkers > c.Size:
		return "its size is stale: a failed scale added worker VMs but CloudStack writes the size last"
	default:
		return "CloudStack refuses to scale a cluster in Alert"
	}
}
