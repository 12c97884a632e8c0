package clusterops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterstate"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

// Create makes a cluster, fail closed: it never makes a second cluster of
// the same name, never adopts a cluster that is not provably the one it
// made, and never deletes a cluster it has not read and found failed.
//
//  1. It lists the clusters of the same name in the owner scope (the
//     account, domain or project of the parameters; the caller's account
//     when none is given). Any that is not being destroyed makes it refuse
//     with a *NameTakenError, before anything is sent: a create whose
//     answer was lost, or that was interrupted, may have made it, and a
//     twin would go unnoticed.
//  2. It sends createKubernetesCluster once, never again. A request that was
//     never sent, or that CloudStack refused, made nothing
//     (*CreateNotSentError, *CreateRefusedError). When the request was sent
//     and no answer came, it looks for the cluster a few times and adopts
//     only a cluster that was not there in step 1 and whose every create
//     parameter matches; otherwise a *LostCreateError names the candidates.
//  3. It waits for the create job. Only a failed job (jobstatus 2) or a
//     cluster found in Error or Alert is a failed create: the cluster is
//     read, and deleted only when that read confirms the failure
//     (*CreateFailedError says whether the delete worked). Poll errors are
//     retried by the job wait; a wait whose outcome stays unknown falls back
//     on watching the cluster's state. A wait cut short by the caller
//     (cancelled, or its deadline) reads the cluster on a detached, bounded
//     context and returns CreateInterrupted or CreateTimedOut with it.
//  4. It runs Update for the steps after the create (the rule layout, the
//     autoscaler, a Stopped state; req.Then). A failed step never fails the
//     create: the cluster exists and works, so the result carries the step's
//     error in SetupErr and the cluster as read at the end. A step that
//     failed for a reason other than a job failure is tried once more, and
//     an error that the end state no longer shows is reported as healed.
//
// The error is nil whenever a cluster was made and is kept: the result
// then says what happened. A non-nil error means no cluster was made or
// kept, except a *CreateFailedError with Kept() true.
func (e *Engine) Create(ctx context.Context, req CreateRequest) (CreateResult, error) {
	p := req.Params
	before, err := e.sameName(ctx, p)
	if err != nil {
		return CreateResult{}, &CreatePrecheckError{Name: p.Name, Err: err}
	}
	known := map[string]bool{}
	var twins []cloudstack.Cluster
	for _, c := range before {
		known[c.ID] = true
		if c.State != clusterstate.Destroying && c.State != clusterstate.Destroyed {
			twins = append(twins, c)
		}
	}
	if len(twins) > 0 {
		return CreateResult{}, &NameTakenError{Name: p.Name, Clusters: twins}
	}

	e.logf(ctx, "creating Kubernetes cluster", map[string]any{"name": p.Name, "zone_id": p.ZoneID})
	ref, err := e.api.CreateKubernetesCluster(ctx, p)
	res := CreateResult{ClusterID: ref.ID}
	if err != nil || ref.ID == "" {
		if err == nil {
			err = errors.New("createKubernetesCluster answered without a cluster id")
		}
		switch d := cloudstack.DeliveryOf(err); {
		case d == cloudstack.DeliveryNotSent:
			return CreateResult{}, &CreateNotSentError{Name: p.Name, Err: err}
		case d == cloudstack.DeliveryAnswered && cloudstack.ParseError(err).ErrorCode != 0:
			// CloudStack's own error object: the create was refused. (A bare
			// HTTP status may come from a proxy that forwarded the request.)
			return CreateResult{}, &CreateRefusedError{Name: p.Name, Err: err}
		}
		c, lerr := e.findLostCreate(ctx, p, known, err)
		if lerr != nil {
			return CreateResult{}, lerr
		}
		res = CreateResult{ClusterID: c.ID, Adopted: true, LostErr: err}
		ref.JobID = ""
	}
	e.logf(ctx, "createKubernetesCluster accepted", map[string]any{"cluster_id": res.ClusterID, "cloudstack_job_id": ref.JobID,
		"adopted": res.Adopted})

	if err := e.awaitCreate(ctx, req, &res, ref.JobID); err != nil || res.Outcome != CreateDone {
		return res, err
	}
	e.setUp(ctx, req, &res)
	res.Twins = e.twinsAfter(ctx, p, res.ClusterID, known)
	return res, nil
}

// twinsAfter lists, after a create, the other live clusters of the same
// name in the owner scope that were not there before it: a second apply
// with its own state can pass the provider's same-name check at the same
// time, CloudStack does not check names
// (KubernetesClusterManagerImpl.validateKubernetesClusterCreateParameters
// refuses only an empty one), and no client can close that race. A
// failure to list is no finding.
func (e *Engine) twinsAfter(ctx context.Context, p cloudstack.CreateClusterParams, ours string, before map[string]bool) []cloudstack.Cluster {
	now, err := e.sameName(ctx, p)
	if err != nil {
		return nil
	}
	var out []cloudstack.Cluster
	for _, c := range now {
		if c.ID != ours && !before[c.ID] && c.State != clusterstate.Destroying && c.State != clusterstate.Destroyed {
			out = append(out, c)
		}
	}
	return out
}

// CreateRequest is what a create asks.
type CreateRequest struct {
	// Params are createKubernetesCluster's parameters. With the autoscaler
	// on, Params.Size is its minimum: the cluster starts with that many
	// workers.
	Params cloudstack.CreateClusterParams
	// Then is the update that follows the create job: the provider's rule
	// layout (always), the autoscaler and a Stopped state. Its Size is not
	// used: the create sets the size.
	Then UpdateRequest
	// DeleteTimeout bounds the delete of a cluster whose create failed; it
	// runs on a context detached from the caller's. Zero means 3 minutes.
	DeleteTimeout time.Duration
}

// CreateOutcome says how a create that kept its cluster ended.
type CreateOutcome int

const (
	// CreateDone: the cluster came up and the steps after the create ran
	// (CreateResult.SetupErr says whether one failed).
	CreateDone CreateOutcome = iota
	// CreateInterrupted: the caller cancelled the wait (an interrupt) while
	// CloudStack was creating the cluster, which it goes on doing.
	CreateInterrupted
	// CreateTimedOut: the caller's deadline passed while CloudStack was
	// creating the cluster, which it goes on doing.
	CreateTimedOut
	// CreateUnconfirmed: the create job's outcome could not be learned and
	// the cluster could not be read either; it is not known to have failed.
	CreateUnconfirmed
)

// String names the outcome for logs.
func (o CreateOutcome) String() string {
	switch o {
	case CreateInterrupted:
		return "interrupted"
	case CreateTimedOut:
		return "timed_out"
	case CreateUnconfirmed:
		return "unconfirmed"
	default:
		return "done"
	}
}

// CreateResult is a create that made a cluster and kept it.
type CreateResult struct {
	ClusterID string
	Outcome   CreateOutcome
	// Adopted is set when the create's answer was lost and the cluster was
	// found and proven to be the one it made; LostErr is the create call's
	// error then.
	Adopted bool
	LostErr error
	// WaitErr is why the wait for the create ended early (any outcome but
	// CreateDone), or the failure of a create job whose cluster came up
	// all the same.
	WaitErr error
	// Observation is the cluster as read last, with its rules when they
	// could be read; nil when it could not be read (ReadErr says why).
	Observation *Observation
	ReadErr     error
	// Report is what the steps after the create did.
	Report Report
	// SetupErr is the step after the create that failed (a *StepError),
	// still true at the end; the cluster is kept whatever it is.
	SetupErr error
	// Healed are step failures that a retry in the same create cured, or
	// that the end state no longer shows.
	Healed []error
	// Twins are clusters of the same name that another client created
	// while this create ran.
	Twins []cloudstack.Cluster
}

// createReadTimeout bounds the read of a cluster after a create wait the
// caller cut short, and the look for the cluster of a lost create then.
const createReadTimeout = time.Minute

// defaultLostCreateRechecks are the pauses before looking again for the
// cluster of a create whose answer was lost: a server that timed out may
// still be inserting it.
var defaultLostCreateRechecks = []time.Duration{2 * time.Second, 5 * time.Second}

// sameName lists the clusters named like p in its owner scope.
func (e *Engine) sameName(ctx context.Context, p cloudstack.CreateClusterParams) ([]cloudstack.Cluster, error) {
	list, err := e.api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{Ownership: p.Ownership, Name: p.Name})
	if err != nil {
		return nil, err
	}
	var out []cloudstack.Cluster
	for _, c := range list {
		if strings.EqualFold(c.Name, p.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

// findLostCreate looks for the cluster of a create whose answer was lost:
// one not among known and matching every parameter. It looks a few times
// while none matches; the caller's cancellation stops the waits, and then
// a single look runs on a detached context.
func (e *Engine) findLostCreate(ctx context.Context, p cloudstack.CreateClusterParams, known map[string]bool, sendErr error) (*cloudstack.Cluster, error) {
	rechecks := e.opts.LostCreateRechecks
	if rechecks == nil {
		rechecks = defaultLostCreateRechecks
	}
	lookCtx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		lookCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), createReadTimeout)
		defer cancel()
		rechecks = nil
	}
	var matching []cloudstack.Cluster
	var others []Candidate
	for attempt := 0; ; attempt++ {
		list, err := e.sameName(lookCtx, p)
		if err != nil {
			return nil, &LostCreateError{Name: p.Name, Err: sendErr, LookupErr: err}
		}
		matching, others = nil, nil
		for _, c := range list {
			if known[c.ID] {
				continue
			}
			if mismatch := CreateMismatch(c, p); len(mismatch) > 0 {
				others = append(others, Candidate{Cluster: c, Mismatch: mismatch})
			} else {
				matching = append(matching, c)
			}
		}
		if len(matching) > 0 || attempt >= len(rechecks) || !cloudstack.Sleep(ctx, rechecks[attempt]) {
			break
		}
	}
	if len(matching) == 1 {
		e.logf(ctx, "adopted the cluster made by a create whose answer was lost", map[string]any{
			"cluster_id": matching[0].ID, "error": sendErr.Error()})
		return &matching[0], nil
	}
	return nil, &LostCreateError{Name: p.Name, Err: sendErr, Matching: matching, Others: others}
}

// CreateMismatch lists how a cluster differs from the parameters that
// would have created it; empty when every one matches (the ones
// listKubernetesClusters reports: name, zone, version, offerings, node
// counts, network when given, key pair, owner, description when given).
func CreateMismatch(c cloudstack.Cluster, p cloudstack.CreateClusterParams) []string {
	var out []string
	diff := func(what, got, want string) {
		if got != want {
			out = append(out, fmt.Sprintf("%s %q, not %q", what, got, want))
		}
	}
	count := func(what string, got, want int64) {
		if got != want {
			out = append(out, fmt.Sprintf("%d %s, not %d", got, what, want))
		}
	}
	diff("name", c.Name, p.Name)
	diff("zone", c.ZoneID, p.ZoneID)
	diff("Kubernetes version", c.KubernetesVersionID, p.KubernetesVersionID)
	if p.ServiceOfferingID != "" {
		diff("service offering", c.ServiceOfferingID, p.ServiceOfferingID)
	}
	for _, role := range []string{"control", "worker", "etcd"} {
		if want, ok := p.NodeOfferings[role]; ok {
			got := map[string]string{"control": c.ControlOfferingID, "worker": c.WorkerOfferingID, "etcd": c.EtcdOfferingID}[role]
			diff(role+" offering", got, want)
		}
	}
	count("control nodes", c.ControlNodes, max(p.ControlNodes, 1))
	count("etcd nodes", c.EtcdNodes, p.EtcdNodes)
	count("workers", c.Size, p.Size)
	if p.NetworkID != "" {
		diff("network", c.NetworkID, p.NetworkID)
	}
	diff("key pair", c.Keypair, p.Keypair)
	if p.Description != "" {
		diff("description", c.Description, p.Description)
	}
	if p.Account != "" && !strings.EqualFold(c.Account, p.Account) {
		diff("account", c.Account, p.Account)
	}
	if p.DomainID != "" {
		diff("domain", c.DomainID, p.DomainID)
	}
	diff("project", c.ProjectID, p.ProjectID)
	return out
}

// createFinished is the done test of WaitSettled for a create in progress.
func createFinished(state string) bool {
	return state != clusterstate.Created && clusterstate.Settled(state)
}

// failedState reports whether a cluster in this state failed to come up.
func failedState(state string) bool {
	return state == clusterstate.Error || state == clusterstate.Alert
}

// awaitCreate waits until the cluster is up. It returns nil with
// res.Outcome CreateDone when it is, nil with another outcome when the
// wait ended early and the cluster is kept, or the error of a failed create.
func (e *Engine) awaitCreate(ctx context.Context, req CreateRequest, res *CreateResult, jobID string) error {
	id := res.ClusterID
	var waitErr error
	if jobID != "" {
		if _, waitErr = e.wait(ctx, "createKubernetesCluster", jobID); waitErr == nil {
			return nil
		}
	}
	if ctx.Err() != nil {
		return e.createCutShort(ctx, req, res, waitErr)
	}
	var c *cloudstack.Cluster
	var err error
	if cloudstack.IsJobFailure(waitErr) {
		// Confirm the failure on the cluster itself.
		c, err = e.api.GetKubernetesCluster(ctx, id)
		if err == nil && !createFinished(c.State) {
			c, err = e.WaitSettled(ctx, id, createFinished)
		}
	} else {
		// No job to follow (an adopted cluster), or its outcome is
		// unknown: watch the cluster's state instead.
		c, err = e.WaitSettled(ctx, id, createFinished)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return e.createCutShort(ctx, req, res, cmpErr(waitErr, err))
	case cloudstack.IsNotFound(err):
		return &CreateFailedError{ClusterID: id, Err: cmpErr(waitErr, err), Gone: true}
	case err != nil && cloudstack.IsJobFailure(waitErr):
		return &CreateFailedError{ClusterID: id, Err: waitErr, ReadErr: err}
	case err != nil:
		res.Outcome, res.WaitErr, res.ReadErr = CreateUnconfirmed, cmpErr(waitErr, err), err
		return nil
	}
	switch {
	case failedState(c.State):
		cause := waitErr
		if cause == nil {
			cause = fmt.Errorf("the cluster ended in state %s", c.State)
		}
		return e.deleteFailedCreate(ctx, req, c, cause)
	case c.State == clusterstate.Running || c.State == clusterstate.Stopped:
		// Up, whatever the job said: never condemn a healthy cluster.
		res.WaitErr = waitErr
		return nil
	default:
		return &CreateFailedError{ClusterID: id, State: c.State, Err: cmpErr(waitErr, fmt.Errorf("the cluster ended in state %s", c.State)),
			Gone: c.State == clusterstate.Destroyed}
	}
}

// cmpErr is the first non-nil error.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// createCutShort reads the cluster of a create whose wait the caller cut
// short, on a detached, bounded context: healthy or still being created,
// it is kept with the outcome that says what happened; failed, it is kept
// (no delete is started after an interrupt) and reported failed.
func (e *Engine) createCutShort(ctx context.Context, req CreateRequest, res *CreateResult, waitErr error) error {
	res.Outcome = CreateTimedOut
	if errors.Is(ctx.Err(), context.Canceled) {
		res.Outcome = CreateInterrupted
	}
	res.WaitErr = cmpErr(waitErr, ctx.Err())
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createReadTimeout)
	defer cancel()
	obs, err := e.Observe(rctx, res.ClusterID, req.Then.Intent)
	switch {
	case cloudstack.IsNotFound(err):
		return &CreateFailedError{ClusterID: res.ClusterID, Err: res.WaitErr, Gone: true, CutShort: true}
	case err != nil:
		res.ReadErr = err
	case failedState(obs.Cluster.State):
		return &CreateFailedError{ClusterID: res.ClusterID, State: obs.Cluster.State,
			Err: fmt.Errorf("the cluster ended in state %s", obs.Cluster.State), CutShort: true}
	default:
		res.Observation = obs
	}
	e.logf(ctx, "the wait for the create was cut short; keeping the cluster", map[string]any{
		"cluster_id": res.ClusterID, "outcome": res.Outcome.String()})
	return nil
}

// deleteFailedCreate deletes a cluster read and found failed, on a context
// detached from the caller's, and says whether it worked.
func (e *Engine) deleteFailedCreate(ctx context.Context, req CreateRequest, c *cloudstack.Cluster, cause error) error {
	timeout := req.DeleteTimeout
	if timeout <= 0 {
		timeout = cleanupTimeout
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	e.logf(ctx, "deleting the cluster of a failed create", map[string]any{"cluster_id": c.ID, "state": c.State})
	rep, err := e.Delete(dctx, c.ID, req.Then.Intent)
	failed := &CreateFailedError{ClusterID: c.ID, State: c.State, Err: cause, Report: rep}
	switch {
	case err == nil:
		failed.Deleted = true
	case cloudstack.IsNotFound(err):
		failed.Gone = true
	default:
		failed.DeleteErr = err
	}
	return failed
}

// setUp runs the steps after the create and records the cluster as it is
// at the end.
func (e *Engine) setUp(ctx context.Context, req CreateRequest, res *CreateResult) {
	then := req.Then
	then.Size = nil
	rep, err := e.Update(ctx, res.ClusterID, then)
	if err != nil && retrySetUp(ctx, err) {
		e.logf(ctx, "a step after the create failed; trying once more", map[string]any{"cluster_id": res.ClusterID, "error": err.Error()})
		again, err2 := e.Update(ctx, res.ClusterID, then)
		rep.Steps = append(rep.Steps, again.Steps...)
		rep.Cluster, rep.Final, rep.Admin = again.Cluster, again.Final, again.Admin
		if err2 == nil {
			res.Healed = append(res.Healed, err)
		}
		err = err2
	}
	res.Report = rep
	res.Observation, res.ReadErr = e.endObservation(ctx, res.ClusterID, rep, then.Intent)
	if err != nil && res.Observation != nil && setUpMet(res.Observation, then) {
		// The end state shows nothing of the failure: report what is true.
		res.Healed = append(res.Healed, err)
		err = nil
	}
	res.SetupErr = err
}

// retrySetUp reports whether a failed step after the create is worth one
// more try: not a job failure (CloudStack refused it and would again), not
// a hazard or an inconsistent VM map (only a person can change those), and
// not the end of the caller's time.
func retrySetUp(ctx context.Context, err error) bool {
	var hazard *HazardError
	var bad *vmmap.Inconsistency
	return ctx.Err() == nil && !cloudstack.IsJobFailure(err) && !errors.As(err, &hazard) && !errors.As(err, &bad) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// setUpMet reports whether the cluster shows what the steps after the
// create were to do: its rules in the provider's layout, the autoscaler
// and the state asked for.
func setUpMet(o *Observation, then UpdateRequest) bool {
	c := &o.Cluster
	if !o.RulesRead || !o.RulesInSync || o.Inconsistency != nil {
		return false
	}
	if then.Stopped != (c.State == clusterstate.Stopped) || (!then.Stopped && c.State != clusterstate.Running) {
		return false
	}
	want := then.Autoscaling
	if (want != nil) != c.AutoscalingEnabled {
		return false
	}
	return want == nil || (want.MinSize == c.MinSize && want.MaxSize == c.MaxSize)
}

// endObservation is the cluster as the update left it, read again when the
// update did not end with a read; on a detached context when the caller's
// is over.
func (e *Engine) endObservation(ctx context.Context, id string, rep Report, in Intent) (*Observation, error) {
	if rep.Final != nil {
		obs := ObservationOf(rep.Final)
		if rep.Cluster != nil {
			obs.Cluster = *rep.Cluster
			obs.Inconsistency = InconsistentMap(rep.Cluster)
		}
		return obs, nil
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), createReadTimeout)
		defer cancel()
	}
	return e.Observe(ctx, id, in)
}
