package clusterops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// expiringCtx is a context whose deadline passes when the test says so,
// at an exact point of an operation rather than after a guessed time.
type expiringCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiringCtx(parent context.Context) *expiringCtx {
	return &expiringCtx{Context: parent, done: make(chan struct{})}
}

func (c *expiringCtx) expire() { c.once.Do(func() { close(c.done) }) }

func (c *expiringCtx) Done() <-chan struct{} { return c.done }

func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// hookAPI lets a test act right after, or instead of, some API calls.
type hookAPI struct {
	API
	afterScale          func()
	afterDeleteFirewall func()
	deleteFirewall      func(ctx context.Context, id string) (cloudstack.AsyncRef, error)
	failFirewallLists   atomic.Bool
	// While queued, cluster reads answer queuedCluster, the cluster as it
	// was before the call: its job waits in the executor's queue. The
	// first poll of a job ends the queue.
	queued        atomic.Bool
	queuedCluster *cloudstack.Cluster
}

func (h *hookAPI) GetKubernetesCluster(ctx context.Context, id string) (*cloudstack.Cluster, error) {
	if h.queued.Load() {
		c := *h.queuedCluster
		return &c, nil
	}
	return h.API.GetKubernetesCluster(ctx, id)
}

func (h *hookAPI) QueryAsyncJob(ctx context.Context, jobID string) (cloudstack.JobStatus, error) {
	h.queued.Store(false)
	return h.API.QueryAsyncJob(ctx, jobID)
}

func (h *hookAPI) ScaleKubernetesCluster(ctx context.Context, p cloudstack.ScaleClusterParams) (cloudstack.AsyncRef, error) {
	ref, err := h.API.ScaleKubernetesCluster(ctx, p)
	if h.afterScale != nil {
		h.afterScale()
	}
	return ref, err
}

func (h *hookAPI) DeleteFirewallRule(ctx context.Context, id string) (cloudstack.AsyncRef, error) {
	if h.deleteFirewall != nil {
		return h.deleteFirewall(ctx, id)
	}
	ref, err := h.API.DeleteFirewallRule(ctx, id)
	if h.afterDeleteFirewall != nil {
		h.afterDeleteFirewall()
	}
	return ref, err
}

func (h *hookAPI) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	if h.failFirewallLists.Load() {
		return nil, errors.New("injected listFirewallRules failure")
	}
	return h.API.ListFirewallRules(ctx, p)
}

func (e *testEnv) hookedEngine(h *hookAPI) *Engine {
	h.API = e.API
	return New(h, Options{Wait: fastWait})
}

// The caller's deadline passes while the scale job runs on: the engine
// waits for the scale to end, then still repairs the rules and restores
// the user forward the scale deleted.
func TestScaleOutlivingDeadlineStillRestores(t *testing.T) {
	t.Parallel()
	env := newEnvWithJobs(t, simulator.Profile42211, 100*time.Millisecond)
	c, _ := env.collateralCluster("deadline-scale")
	ctx := newExpiringCtx(env.ctx())
	h := &hookAPI{afterScale: ctx.expire}

	rep, err := env.hookedEngine(h).Scale(ctx, c.ID, 1, Intent{MoveUserRules: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Scale = %v, want the deadline of its wait\n%s", err, rep)
	}
	moved := rep.StepsOf(StepMoved)
	if len(moved) != 2 || !strings.HasPrefix(moved[1].Message, "re-created user port forward 2224→8080") {
		t.Fatalf("moved steps = %+v\n%s", moved, rep)
	}
	got := map[int]string{}
	for _, pf := range env.ForwardsOn(c.IPAddressID) {
		got[pf.PublicPort] = fmt.Sprintf("%d %s", pf.PrivatePort, pf.VirtualMachineID)
	}
	control, worker := vmNamed(c, "-control-"), vmNamed(env.Cluster(c.ID), "-node-")
	want := map[int]string{2222: "22 " + control, 2223: "22 " + worker, 2224: "8080 " + control}
	if !maps.Equal(got, want) {
		t.Errorf("forwards = %v, want %v", got, want)
	}
	if rep.Cluster == nil || rep.Cluster.State != "Running" || rep.Cluster.Size != 1 {
		t.Errorf("report cluster = %+v, want Running size 1 read after the scale", rep.Cluster)
	}
	env.assertSafe(c.ID)
}

// The deadline passes right after the scale call, while the job still
// waits in the management server's queue: the cluster reads Running with
// both workers, as before the call. The engine must wait for the job, not
// take the unchanged cluster for a finished scale, and restore the user
// forward only once the scale has deleted it.
func TestScaleOutlivingDeadlineWaitsForTheQueuedJob(t *testing.T) {
	t.Parallel()
	env := newEnvWithJobs(t, simulator.Profile42211, 100*time.Millisecond)
	c, fwdID := env.collateralCluster("queued-scale")
	ctx := newExpiringCtx(env.ctx())
	h := &hookAPI{queuedCluster: env.Cluster(c.ID)}
	h.afterScale = func() {
		h.queued.Store(true)
		ctx.expire()
	}

	rep, err := env.hookedEngine(h).Scale(ctx, c.ID, 1, Intent{MoveUserRules: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Scale = %v, want the deadline of its wait\n%s", err, rep)
	}
	wentOn := func(s Step) bool {
		return strings.Contains(s.Message, "went on") && strings.Contains(s.Message, "succeeded")
	}
	if !slices.ContainsFunc(rep.StepsOf(StepScaled), wentOn) {
		t.Errorf("the report does not say how the job ended:\n%s", rep)
	}
	if rep.Cluster == nil || rep.Cluster.Size != 1 || rep.Cluster.State != "Running" {
		t.Errorf("report cluster = %+v, want Running size 1, read after the job", rep.Cluster)
	}
	moved := rep.StepsOf(StepMoved)
	if len(moved) != 2 || !strings.HasPrefix(moved[1].Message, "re-created user port forward 2224→8080") {
		t.Fatalf("moved steps = %+v\n%s", moved, rep)
	}
	var restored bool
	for _, pf := range env.ForwardsOn(c.IPAddressID) {
		if pf.PublicPort == 2224 && pf.PrivatePort == 8080 {
			restored = pf.ID != fwdID
		}
	}
	if !restored {
		t.Errorf("the user forward 2224→8080 was not re-created after the scale deleted it:\n%s", rep)
	}
	env.assertSafe(c.ID)
}

// When the rules cannot be read after the scale, every recorded user rule
// is named in a blocked step, so the warning tells the user what to check.
func TestScaleUnrestoredRulesAreNamed(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	c, fwdID := env.collateralCluster("unrestored")
	h := &hookAPI{}
	h.afterScale = func() { h.failFirewallLists.Store(true) }

	rep, err := env.hookedEngine(h).Scale(env.ctx(), c.ID, 1, Intent{MoveUserRules: true})
	if err == nil || !strings.Contains(err.Error(), "injected listFirewallRules failure") {
		t.Fatalf("Scale = %v, want the failure to read the rules after the scale\n%s", err, rep)
	}
	var named bool
	for _, st := range rep.StepsOf(StepBlocked) {
		if strings.Contains(st.Message, "user port forward 2224→8080") && strings.Contains(st.Message, fwdID) &&
			st.PreviousRuleID == fwdID {
			named = true
		}
	}
	if !named || !slices.ContainsFunc(rep.Warnings(), func(w string) bool { return strings.Contains(w, fwdID) }) {
		t.Errorf("no blocked step names the recorded forward %s:\n%s", fwdID, rep)
	}
}

// The deadline passes right after the first delete of the hardening: the
// etcd SSH range that replaces the deleted rules is still created.
func TestSyncDeadlineBetweenDeleteAndCreate(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createCluster("deadline-sync", 3, 1)
	ctx := newExpiringCtx(env.ctx())
	h := &hookAPI{afterDeleteFirewall: ctx.expire}

	rep, err := env.hookedEngine(h).Sync(ctx, id, Intent{})
	if err != nil {
		t.Fatalf("Sync = %v, want the plan finished past the deadline\n%s", err, rep)
	}
	if n := rep.StepsOf(StepHardened); len(n) != 4 {
		t.Errorf("hardened steps = %+v, want three deletes and the range", n)
	}
	env.assertHardened(id)
}

// The deadline passes during the removal of the leftover rules: the
// cleanup still finishes and the delete succeeds.
func TestDeleteCleanupOutlivesDeadline(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("deadline-delete", env.Info.IsolatedNetworkID, 3, 1)
	ipID := env.Cluster(id).IPAddressID
	ctx := newExpiringCtx(env.ctx())
	h := &hookAPI{afterDeleteFirewall: ctx.expire}

	rep, err := env.hookedEngine(h).Delete(ctx, id, Intent{})
	if err != nil {
		t.Fatalf("Delete: %v\n%s", err, rep)
	}
	if removed := rep.StepsOf(StepRemoved); len(removed) != 3 {
		t.Errorf("removed %d rules, want the 3 etcd firewall rules:\n%s", len(removed), rep)
	}
	for _, fw := range env.FirewallRulesOn(ipID) {
		if fw.StartPort >= 50000 {
			t.Errorf("etcd firewall rule %d (%s) left behind", fw.StartPort, fw.ID)
		}
	}
}

// Leftover rules that cannot be deleted do not fail a delete that
// succeeded: each is a blocked step naming its id, for the warning.
func TestDeleteCleanupFailureIsAWarning(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	id := env.createClusterIn("delete-cleanup-fails", env.Info.IsolatedNetworkID, 3, 1)
	ipID := env.Cluster(id).IPAddressID
	var etcdIDs []string
	for _, fw := range env.FirewallRulesOn(ipID) {
		if fw.StartPort >= 50000 {
			etcdIDs = append(etcdIDs, fw.ID)
		}
	}
	h := &hookAPI{deleteFirewall: func(context.Context, string) (cloudstack.AsyncRef, error) {
		return cloudstack.AsyncRef{}, errors.New("injected deleteFirewallRule failure")
	}}

	rep, err := env.hookedEngine(h).Delete(env.ctx(), id, Intent{})
	if err != nil {
		t.Fatalf("Delete = %v, want nil: the cluster is gone\n%s", err, rep)
	}
	if _, err := env.API.GetKubernetesCluster(env.ctx(), id); !cloudstack.IsNotFound(err) {
		t.Fatalf("cluster after Delete: %v, want not found", err)
	}
	var blocked []string
	for _, st := range rep.StepsOf(StepBlocked) {
		if !strings.Contains(st.Message, st.RuleID) || !strings.Contains(st.Message, "delete it yourself") {
			t.Errorf("blocked step %+v does not name its rule", st)
		}
		blocked = append(blocked, st.RuleID)
	}
	slices.Sort(blocked)
	slices.Sort(etcdIDs)
	if len(etcdIDs) != 3 || !slices.Equal(blocked, etcdIDs) {
		t.Errorf("blocked rules = %v, want the etcd firewall rules %v:\n%s", blocked, etcdIDs, rep)
	}
	if len(rep.Warnings()) != 3 {
		t.Errorf("warnings = %q, want one per leftover rule", rep.Warnings())
	}
}
