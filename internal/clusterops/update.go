package clusterops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
)

// UpdateRequest is what an in-place update asks of a cluster. Zero values
// leave that part alone.
type UpdateRequest struct {
	Intent
	// Stopped asks for a Stopped cluster at the end; false for Running.
	Stopped bool
	// KubernetesVersionID is the version to upgrade to.
	KubernetesVersionID string
	// ServiceOfferingID and NodeOfferings are the offerings to change to
	// (NodeOfferings by role: control, worker, etcd).
	ServiceOfferingID string
	NodeOfferings     map[string]string
	// Size is the worker count; nil while the autoscaler owns it.
	Size *int64
	// Autoscaling is the autoscaler's range; nil turns it off.
	Autoscaling *Autoscaling
	// PlannedOfferings are the node offering columns (by role) the plan
	// shows after the update for roles whose offering the configuration
	// leaves to CloudStack. A scale that would leave another value (the
	// nodes' offerings changed since the plan) stops before any change.
	PlannedOfferings OfferingWrites
	// ExternalSeen holds, for each external node, the control and worker
	// VMs the cluster had when the provider first saw the node in its map,
	// for the upgrade's node order (see CheckUpgradeOrder).
	ExternalSeen map[string][]string
}

// Autoscaling is the cluster autoscaler's range.
type Autoscaling struct {
	MinSize, MaxSize int64
}

// Update changes the cluster in place, in this order: the rules (brought to
// the provider's layout when they are not), start or stop, offerings,
// Kubernetes version, autoscaler off, size, autoscaler on, and a stop that
// had to wait for the steps needing a running cluster. A cluster whose VM
// map disagrees with its size only gets its rules restored: no start, stop
// or scale could fix it, and Report.Admin says what an administrator must
// do. The report ends with the cluster and its rules as read last.
func (e *Engine) Update(ctx context.Context, clusterID string, req UpdateRequest) (Report, error) {
	rep := Report{ClusterID: clusterID}
	c, err := e.WaitActionable(ctx, clusterID, clusterstate.Settled)
	var stuck *StuckError
	if errors.As(err, &stuck) && req.Stopped && stuck.Stoppable() {
		c, err = e.stopStuck(ctx, stuck, &rep)
	}
	if err != nil {
		return rep, &StepError{Step: "Reading cluster " + clusterID, Err: err}
	}
	rep.Cluster = c
	s, err := e.snapshotOf(ctx, c, req.Intent)
	if err != nil {
		return rep, &StepError{Step: "Reading the rules of cluster " + clusterID, Err: err}
	}
	req.Network = s.Layout.Network
	rep.Final = s
	if bad := InconsistentMap(c); bad != nil {
		rep.Admin = bad
		if err := e.applySync(ctx, s, s.Sync, &rep); err != nil {
			return rep, &StepError{Step: "Restoring the SSH rules of cluster " + clusterID, Err: err}
		}
		return rep, nil
	}
	u := &update{e: e, id: clusterID, req: req, rep: &rep, snap: s}
	if err := u.run(ctx); err != nil {
		// A snapshot taken before the failed step no longer tells the truth.
		rep.Final = u.snap
		return rep, err
	}
	u.finish(ctx)
	return rep, nil
}

// stopStuck stops a cluster CloudStack left mid-operation, as the
// configuration asks: the stop ends Scaling, Upgrading, Importing,
// RemovingNodes or Recovering in Running with the VMs stopped
// (KubernetesClusterStopWorker.stop: StopRequested has no transition from
// those states, OperationSucceeded moves them to Running), so a second stop
// brings it to Stopped; Starting and ScalingStoppedCluster end in Stopped.
func (e *Engine) stopStuck(ctx context.Context, stuck *StuckError, rep *Report) (*cloudstack.Cluster, error) {
	for range 2 {
		ref, err := e.api.StopKubernetesCluster(ctx, stuck.ClusterID)
		if err == nil {
			_, err = e.wait(ctx, "stopKubernetesCluster", ref.JobID)
		}
		if err != nil {
			return nil, fmt.Errorf("stopping cluster %s, which CloudStack left in %s: %w", stuck.ClusterID, stuck.State, err)
		}
		c, err := e.api.GetKubernetesCluster(ctx, stuck.ClusterID)
		if err != nil {
			return nil, err
		}
		if clusterstate.Settled(c.State) && c.State != clusterstate.Running {
			e.step(ctx, rep, StepNote, fmt.Sprintf("stopped cluster %s, which CloudStack had left in %s with no job running "+
				"(now %s)", stuck.ClusterID, stuck.State, c.State))
			return c, nil
		}
	}
	return nil, fmt.Errorf("cluster %s, which CloudStack left in %s, did not stop", stuck.ClusterID, stuck.State)
}

// update is one run of Update on a consistent cluster.
type update struct {
	e    *Engine
	id   string
	req  UpdateRequest
	rep  *Report
	snap *Snapshot // nil once a step changed the cluster
}

func (u *update) cluster() *cloudstack.Cluster { return u.rep.Cluster }

// changes are what an update asks of the cluster as read at its start.
type changes struct {
	version, size, autoscaling bool
	// needsRunning: upgrade, scale and the autoscaler need a running
	// cluster (KubernetesClusterManagerImpl.validateKubernetesClusterUpgradeParameters
	// wants Running; validateKubernetesClusterScaleSize refuses a Stopped
	// cluster a new size), so a Stopped one is started for them and
	// stopped after.
	needsRunning bool
}

func (u *update) changes() changes {
	c := u.cluster()
	ch := changes{
		version:     u.req.KubernetesVersionID != "" && u.req.KubernetesVersionID != c.KubernetesVersionID,
		size:        u.req.Size != nil && *u.req.Size != c.ManagedWorkers(),
		autoscaling: u.autoscalingChanged(),
	}
	ch.needsRunning = ch.version || ch.size || ch.autoscaling
	return ch
}

// run takes the steps in Update's order; each step decides whether it has
// anything to do.
func (u *update) run(ctx context.Context) error {
	ch := u.changes()
	if ch.needsRunning && u.cluster().State == clusterstate.Alert {
		if err := u.waitAlertEnds(ctx); err != nil {
			return err
		}
	}
	steps := []func(context.Context, changes) error{
		u.repairRules, u.startIfNeeded, u.stopIfAsked, u.changeOfferings, u.upgrade,
		u.disableAutoscaler, u.resize, u.enableAutoscaler, u.stopAfterwards,
	}
	for _, step := range steps {
		if err := step(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

// repairRules brings the rules in line, unless a scale follows, which does
// it itself.
func (u *update) repairRules(ctx context.Context, ch changes) error {
	if ch.size || u.snap.InSync() {
		return nil
	}
	if err := u.e.applySync(ctx, u.snap, u.snap.Sync, u.rep); err != nil {
		return &StepError{Step: "Repairing the SSH rules of cluster " + u.id, Err: err}
	}
	return nil
}

func (u *update) startIfNeeded(ctx context.Context, ch changes) error {
	if u.cluster().State != clusterstate.Stopped || (u.req.Stopped && !ch.needsRunning) {
		return nil
	}
	return u.job(ctx, "Starting cluster "+u.id, "startKubernetesCluster", u.e.api.StartKubernetesCluster)
}

// stopIfAsked stops a cluster now when no later step needs it running.
func (u *update) stopIfAsked(ctx context.Context, ch changes) error {
	if !u.req.Stopped || ch.needsRunning || u.cluster().State == clusterstate.Stopped {
		return nil
	}
	return u.job(ctx, "Stopping cluster "+u.id, "stopKubernetesCluster", u.e.api.StopKubernetesCluster)
}

// changeOfferings changes the service offering first, alone: CloudStack
// ignores serviceofferingid when nodeofferings is sent, and alone it maps
// the offering to every node type (DEFAULT in
// KubernetesClusterManagerImpl.createNodeTypeToServiceOfferingMap), so that
// KubernetesClusterScaleWorker.scaleCluster moves each node type to it. The
// requested node offerings follow, for the node types whose offering then
// differs.
func (u *update) changeOfferings(ctx context.Context, _ changes) error {
	if want := u.req.ServiceOfferingID; want != "" && want != u.cluster().ServiceOfferingID {
		p := cloudstack.ScaleClusterParams{ID: u.id, ServiceOfferingID: want}
		if err := u.scaleJob(ctx, "Changing the service offering of cluster "+u.id, p); err != nil {
			return err
		}
	}
	roles := map[string]string{}
	for role, want := range u.req.NodeOfferings {
		if NodeOffering(u.cluster(), role) != want {
			roles[role] = want
		}
	}
	if len(roles) == 0 {
		return nil
	}
	return u.scaleJob(ctx, "Changing the node offerings of cluster "+u.id, cloudstack.ScaleClusterParams{ID: u.id, NodeOfferings: roles})
}

func (u *update) upgrade(ctx context.Context, ch changes) error {
	if !ch.version {
		return nil
	}
	step := fmt.Sprintf("Upgrading cluster %s to Kubernetes version %s", u.id, u.req.KubernetesVersionID)
	if err := u.alignForUpgrade(ctx); err != nil {
		return &StepError{Step: step, Err: err}
	}
	upgrade := func(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
		return u.e.api.UpgradeKubernetesCluster(ctx, id, u.req.KubernetesVersionID)
	}
	return u.job(ctx, step, "upgradeKubernetesCluster", upgrade)
}

// alignForUpgrade points the forwards of a cluster with external nodes at
// the nodes CloudStack's upgrade will reach through them, before any
// change refusing an upgrade whose node order cannot be known.
func (u *update) alignForUpgrade(ctx context.Context) error {
	if u.cluster().ExternalNodes() == 0 {
		return nil
	}
	s := u.snap
	if s == nil {
		var err error
		if s, err = u.e.snapshotOf(ctx, u.cluster(), u.req.Intent); err != nil {
			return err
		}
	}
	if s.Direct() {
		return nil
	}
	p, err := u.e.upgradePlan(ctx, s, u.req.ExternalSeen)
	if err != nil {
		return err
	}
	err = u.e.alignForUpgrade(ctx, s, p, u.rep)
	u.snap = nil
	return err
}

// disableAutoscaler comes before a size change: CloudStack does not take a
// size while the autoscaler owns it.
func (u *update) disableAutoscaler(ctx context.Context, ch changes) error {
	if !ch.autoscaling || u.req.Autoscaling != nil {
		return nil
	}
	return u.scaleJob(ctx, "Disabling the autoscaler of cluster "+u.id, u.autoscalingParams())
}

func (u *update) resize(ctx context.Context, ch changes) error {
	if !ch.size {
		return nil
	}
	return u.scale(ctx, *u.req.Size)
}

func (u *update) enableAutoscaler(ctx context.Context, ch changes) error {
	if !ch.autoscaling || u.req.Autoscaling == nil {
		return nil
	}
	return u.scaleJob(ctx, "Configuring the autoscaler of cluster "+u.id, u.autoscalingParams())
}

// stopAfterwards stops a cluster that had to run for the steps before.
func (u *update) stopAfterwards(ctx context.Context, ch changes) error {
	if !u.req.Stopped || !ch.needsRunning {
		return nil
	}
	return u.job(ctx, "Stopping cluster "+u.id, "stopKubernetesCluster", u.e.api.StopKubernetesCluster)
}

// scale runs Scale on the snapshot taken at the start when nothing changed
// the cluster since, else on a fresh one.
func (u *update) scale(ctx context.Context, size int64) error {
	step := fmt.Sprintf("Scaling cluster %s to %d workers", u.id, size)
	s := u.snap
	if s == nil {
		var err error
		if s, err = u.e.Snapshot(ctx, u.id, u.req.Intent); err != nil {
			return &StepError{Step: step, Err: err}
		}
	}
	sub, err := u.e.scaleSnapshot(ctx, s, size, u.req.Intent, u.req.PlannedOfferings)
	u.rep.Merge(sub)
	u.snap = sub.Final
	if sub.Final == nil {
		u.rep.Final = nil
	}
	var before *StepError
	switch {
	case errors.As(err, &before):
		return err // a step before the scale, which names itself
	case err != nil:
		return &StepError{Step: step, Err: err}
	}
	return nil
}

// job runs a start, stop or upgrade and reads the cluster again.
func (u *update) job(ctx context.Context, step, command string, start func(context.Context, string) (cloudstack.AsyncRef, error)) error {
	u.snap = nil // the job changes the cluster, whatever its outcome
	ref, err := start(ctx, u.id)
	if err == nil {
		_, err = u.e.wait(ctx, command, ref.JobID)
	}
	if err == nil {
		err = u.reread(ctx)
	}
	if err != nil {
		return &StepError{Step: step, Err: err}
	}
	u.e.step(ctx, u.rep, StepNote, step)
	return nil
}

// scaleJob runs a scale that changes no size (offerings, autoscaler).
func (u *update) scaleJob(ctx context.Context, step string, p cloudstack.ScaleClusterParams) error {
	scale := func(ctx context.Context, _ string) (cloudstack.AsyncRef, error) {
		return u.e.api.ScaleKubernetesCluster(ctx, p)
	}
	return u.job(ctx, step, "scaleKubernetesCluster", scale)
}

func (u *update) reread(ctx context.Context) error {
	c, err := u.e.api.GetKubernetesCluster(ctx, u.id)
	if err != nil {
		return err
	}
	u.rep.Cluster = c
	u.snap = nil
	return nil
}

// finish leaves the report with the cluster and rules as they are now; when
// they cannot be read, Final is nil and the caller reads them.
func (u *update) finish(ctx context.Context) {
	u.rep.Final = u.snap
	if u.snap == nil {
		if s, err := u.e.snapshotOf(ctx, u.cluster(), u.req.Intent); err == nil {
			u.rep.Final = s
		}
	}
}

// autoscalingChanged compares the requested autoscaler with CloudStack's.
func (u *update) autoscalingChanged() bool {
	c, want := u.cluster(), u.req.Autoscaling
	if (want != nil) != c.AutoscalingEnabled {
		return true
	}
	return want != nil && (want.MinSize != c.MinSize || want.MaxSize != c.MaxSize)
}

// autoscalingParams names the workers' current offering: without any
// nodeofferings entry CloudStack maps the service offering to every node
// type (DEFAULT) and moves a node type whose VMs run another offering to it
// before it turns to the autoscaler (KubernetesClusterScaleWorker.
// scaleCluster), which KVM refuses for running VMs. With only the worker
// entry the control and etcd types are skipped, and the worker type goes
// straight to the autoscaler; the entry is written to no column.
func (u *update) autoscalingParams() cloudstack.ScaleClusterParams {
	enabled := u.req.Autoscaling != nil
	p := cloudstack.ScaleClusterParams{ID: u.id, AutoscalingEnabled: &enabled}
	if w := roleOfferings(u.cluster())["worker"]; w != "" {
		p.NodeOfferings = map[string]string{"worker": w}
	}
	if enabled {
		minSize, maxSize := u.req.Autoscaling.MinSize, u.req.Autoscaling.MaxSize
		p.MinSize, p.MaxSize = &minSize, &maxSize
	}
	return p
}

// alertWait bounds the wait for CloudStack's state scanner to return a
// cluster from Alert before a step that needs it Running. The scanner runs
// every 30 s (KubernetesClusterManagerImpl.start schedules
// KubernetesClusterStatusScanner with a 30 s fixed delay), but nothing here
// depends on when: the wait polls the cluster and gives up with AlertError.
const alertWait = 2 * time.Minute

// waitAlertEnds waits for the state scanner to return the cluster from
// Alert, at most alertWait.
func (u *update) waitAlertEnds(ctx context.Context) error {
	step := "Waiting for cluster " + u.id + " to leave Alert"
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, alertWait)
	defer cancel()
	c, err := u.e.WaitSettled(wctx, u.id, func(state string) bool { return state != clusterstate.Alert && clusterstate.Settled(state) })
	if c != nil {
		u.rep.Cluster = c
	}
	switch {
	case err == nil:
		u.snap = nil
		u.e.step(ctx, u.rep, StepNote, fmt.Sprintf("waited %s for CloudStack's state scanner to return the cluster from Alert (now %s)",
			time.Since(start).Round(time.Second), c.State))
		return nil
	case ctx.Err() != nil:
		return &StepError{Step: step, Err: err}
	default:
		return &StepError{Step: step, Err: &AlertError{ClusterID: u.id, Waited: time.Since(start)}}
	}
}
