package clusterops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Recover brings back a cluster broken by the bug or by a failed scale: Alert state, stale size (map workers
// != size), forwards missing. Design it on the server semantics (scale refused in Alert; the scanner keeps a
// stale-size cluster in Alert because reconcile needs map size == C+W+E; stop is allowed from Alert; start
// from Stopped leads to Running; a scale right after a start — before any list call lets the scanner flip it —
// fixes node_count; also consider that a scale-down from node_count N to the map's count removes nothing).
// Steps: Repair rules → if state is Alert and size is stale: requires AllowRestartForRecovery (else return a
// *RecoveryNeededError explaining the opt-in and what it will do) → stop, start, neutralise hazards, scale to
// the desired size (or the map's worker count), repair again. Report every step.
//
// desiredSize <= 0 means the map's worker count (keep every VM). A healthy
// Running cluster only gets its rules repaired and, if desiredSize differs,
// a normal Scale. When the restart is needed and not allowed, or a user
// hazard blocks the scale, nothing is changed. A stale size is fixed with a
// scale-down from the stale size: the server removes workers from its
// worker list at offset C+size-1, so with one control node scaling to the
// map's worker count removes nothing; with several control nodes that
// offset is wrong (spec §2.6) and Recover refuses rather than leave the
// cluster stuck in Scaling. Between the start and the scale the engine
// makes no listKubernetesClusters call, which would let the scanner put the
// cluster back into Alert; CloudStack's own scanner runs every 30 s, so on a
// real server that window is short but open.
func (e *Engine) Recover(ctx context.Context, clusterID string, desiredSize int64) (Report, error) {
	rep := Report{ClusterID: clusterID}
	s, err := e.Snapshot(ctx, clusterID)
	if err != nil {
		return rep, err
	}
	rep.Cluster = &s.Cluster
	c := &s.Cluster
	stale := SizeIsStale(c)
	switch {
	case stale && (c.State == stateAlert || c.State == stateRunning || c.State == stateStopped):
		err = e.recoverStale(ctx, s, desiredSize, &rep)
	case c.State == stateAlert:
		err = e.recoverAlert(ctx, s, desiredSize, &rep)
	case c.State == stateRunning || c.State == stateStopped:
		err = e.repairSnapshot(ctx, s, &rep)
		if err == nil && desiredSize > 0 && desiredSize != c.Size {
			var sub Report
			sub, err = e.Scale(ctx, clusterID, desiredSize)
			rep.merge(sub)
		}
	default:
		return rep, fmt.Errorf("recovering Kubernetes cluster %s: it is in state %s; wait until the operation in progress ends", clusterID, c.State)
	}
	e.readBack(ctx, &rep)
	return rep, err
}

// recoverAlert handles Alert with a size that matches the VM map: repair
// the rules and let CloudStack's scanner reconcile it; if it stays in Alert,
// restart it (opt-in).
func (e *Engine) recoverAlert(ctx context.Context, s *Snapshot, desired int64, rep *Report) error {
	if err := e.repairSnapshot(ctx, s, rep); err != nil {
		return err
	}
	c, err := e.api.GetKubernetesCluster(ctx, s.Cluster.ID)
	if err != nil {
		return fmt.Errorf("reading Kubernetes cluster %s: %w", s.Cluster.ID, err)
	}
	rep.Cluster = c
	if c.State == stateAlert {
		if !e.opts.AllowRestartForRecovery {
			return &RecoveryNeededError{ClusterID: c.ID, State: c.State, Size: c.Size, MapWorkers: MapWorkerCount(c),
				Reason: "it stays in Alert although its VM map matches its size (CloudStack's scanner brings it back only when " +
					"every VM runs, every node is Ready and its API and kubeconfig work)",
				Plan: "Recovery would stop and start the cluster.", OptIn: e.opts.RestartOptInName}
		}
		if err := e.stopCluster(ctx, c, rep); err != nil {
			return err
		}
		if _, err := e.startCluster(ctx, c, rep); err != nil {
			return err
		}
	}
	if desired > 0 && desired != c.Size {
		sub, err := e.Scale(ctx, c.ID, desired)
		rep.merge(sub)
		return err
	}
	return nil
}

// recoverStale fixes a size that disagrees with the VM map.
func (e *Engine) recoverStale(ctx context.Context, s *Snapshot, desired int64, rep *Report) error {
	c := &s.Cluster
	mapWorkers := MapWorkerCount(c)
	if desired <= 0 {
		desired = mapWorkers
	}
	target, err := staleTarget(c, mapWorkers, desired)
	if err != nil {
		return err
	}
	p := e.planScale(s, target)
	if err := p.refusal(e, s); err != nil {
		return err
	}
	restart := c.State != stateRunning
	if restart && !e.opts.AllowRestartForRecovery {
		return &RecoveryNeededError{ClusterID: c.ID, State: c.State, Size: c.Size, MapWorkers: mapWorkers,
			Reason: recoveryReason(c), Plan: recoveryPlan(s, p, target, desired), OptIn: e.opts.RestartOptInName}
	}

	if err := e.repairSnapshot(ctx, s, rep); err != nil {
		return err
	}
	if restart {
		if c.State == stateAlert {
			if err := e.stopCluster(ctx, c, rep); err != nil {
				return err
			}
		}
		started, err := e.startCluster(ctx, c, rep)
		if err != nil {
			return err
		}
		// No listKubernetesClusters from here to the scale: the scanner
		// would see the stale size and put the cluster back into Alert.
		s.Cluster.State = stateRunning
		if started != nil && started.State != "" {
			s.Cluster.State = started.State
		}
	}
	if err := e.readRules(ctx, s); err != nil {
		return err
	}
	recorded, err := e.prepareScale(ctx, s, target, rep)
	if err != nil {
		return err
	}
	removed := max(mapWorkers-target, 0)
	e.step(ctx, rep, StepNote, fmt.Sprintf("scaling from the stale size %d to %d so that the size matches the VM map; "+
		"this removes %d worker VM(s)", c.Size, target, removed))
	jobErr := e.runScale(ctx, s, target, rep)
	if err := errors.Join(jobErr, e.verifyAfterScale(ctx, s, recorded, rep)); err != nil {
		return err
	}
	if desired != target {
		sub, err := e.Scale(ctx, c.ID, desired)
		rep.merge(sub)
		return err
	}
	return nil
}

// staleTarget is the size the first recovery scale asks for. It must be
// a scale-down from the stale size (a scale-up adds size-based counts of
// VMs and keeps the gap), which with one control node leaves exactly
// target workers in the map as long as target <= the map's workers.
func staleTarget(c *cloudstack.Cluster, mapWorkers, desired int64) (int64, error) {
	if c.ControlNodes != 1 {
		return 0, fmt.Errorf("recovering Kubernetes cluster %s: its size %d disagrees with the %d worker VM(s) in its VM map, "+
			"and with %d control nodes CloudStack's scale-down picks workers at a wrong offset (it would remove too few or "+
			"leave the cluster stuck in Scaling), so it is not fixed automatically; remove the extra workers with "+
			"scaleKubernetesCluster nodeids or ask an administrator", c.ID, c.Size, mapWorkers, c.ControlNodes)
	}
	target := min(desired, mapWorkers, c.Size-1)
	if target < 1 {
		return 0, fmt.Errorf("recovering Kubernetes cluster %s: its size %d disagrees with the %d worker VM(s) in its VM map, "+
			"and no scale-down to at least one worker can fix it", c.ID, c.Size, mapWorkers)
	}
	return target, nil
}

// recoveryPlan tells, for the error without the opt-in, what Recover would do.
func recoveryPlan(s *Snapshot, p scalePlan, target, desired int64) string {
	var steps []string
	if n := len(p.repairs); n > 0 {
		steps = append(steps, fmt.Sprintf("repair the cluster's SSH rules (%d change(s))", n))
	}
	if s.Cluster.State == stateAlert {
		steps = append(steps, "stop the cluster")
	}
	steps = append(steps, "start it")
	if n := len(p.fixable); n > 0 {
		steps = append(steps, fmt.Sprintf("re-create %d firewall rule(s) after the node SSH range (#14159)", n))
	}
	removed := max(MapWorkerCount(&s.Cluster)-target, 0)
	steps = append(steps, fmt.Sprintf("scale it from the stale size %d to %d, removing %d worker VM(s)", s.Cluster.Size, target, removed))
	if desired != target {
		steps = append(steps, fmt.Sprintf("then scale it to %d", desired))
	}
	steps = append(steps, "and verify the rules again")
	return "Recovery would " + strings.Join(steps, ", ") + "."
}

func (e *Engine) stopCluster(ctx context.Context, c *cloudstack.Cluster, rep *Report) error {
	e.logf(ctx, "stopping Kubernetes cluster for recovery", map[string]any{"cluster_id": c.ID, "state": c.State})
	ref, err := e.api.StopKubernetesCluster(ctx, c.ID)
	if err == nil {
		_, err = e.wait(ctx, "stopKubernetesCluster", ref.JobID)
	}
	if err != nil {
		return fmt.Errorf("stopping Kubernetes cluster %s for recovery: %w", c.ID, err)
	}
	e.step(ctx, rep, StepStopped, fmt.Sprintf("stopped the cluster (it was %s) to recover it", c.State))
	return nil
}

// startCluster starts the cluster and returns it as the job reports it,
// which needs no list call.
func (e *Engine) startCluster(ctx context.Context, c *cloudstack.Cluster, rep *Report) (*cloudstack.Cluster, error) {
	e.logf(ctx, "starting Kubernetes cluster for recovery", map[string]any{"cluster_id": c.ID})
	ref, err := e.api.StartKubernetesCluster(ctx, c.ID)
	var res []byte
	if err == nil {
		res, err = e.wait(ctx, "startKubernetesCluster", ref.JobID)
	}
	if err != nil {
		return nil, fmt.Errorf("starting Kubernetes cluster %s for recovery: %w", c.ID, err)
	}
	// The job result is informative only: a start that succeeded is not
	// failed for an undecodable result.
	var started *cloudstack.Cluster
	state := stateRunning
	if cl, derr := cloudstack.DecodeClusterJobResult(res); derr == nil {
		started = cl
		if cl.State != "" {
			state = cl.State
		}
	}
	e.step(ctx, rep, StepStarted, fmt.Sprintf("started the cluster to recover it (now %s)", state))
	return started, nil
}
