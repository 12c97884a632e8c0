package clusterops

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// createAPI lets a create test replace the create call or act after it.
type createAPI struct {
	API
	create      func(ctx context.Context, p cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error)
	afterCreate func()
	// failFirewallCreates fails that many createFirewallRule calls.
	failFirewallCreates atomic.Int32
	versions            []cloudstack.KubernetesVersion
	// pollErr answers every poll of the create job.
	pollErr   error
	createJob atomic.Value
}

func (a *createAPI) CreateKubernetesCluster(ctx context.Context, p cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
	if a.create != nil {
		return a.create(ctx, p)
	}
	ref, err := a.API.CreateKubernetesCluster(ctx, p)
	a.createJob.Store(ref.JobID)
	if a.afterCreate != nil {
		a.afterCreate()
	}
	return ref, err
}

func (a *createAPI) QueryAsyncJob(ctx context.Context, jobID string) (cloudstack.JobStatus, error) {
	if a.pollErr != nil && a.createJob.Load() == jobID {
		return cloudstack.JobStatus{}, a.pollErr
	}
	return a.API.QueryAsyncJob(ctx, jobID)
}

func (a *createAPI) CreateFirewallRule(ctx context.Context, p cloudstack.CreateFirewallRuleParams) (cloudstack.AsyncRef, error) {
	if a.failFirewallCreates.Add(-1) >= 0 {
		return cloudstack.AsyncRef{}, &cloudstack.Error{Command: "createFirewallRule", HTTPStatus: 503, Text: "HTTP 503 Service Unavailable"}
	}
	return a.API.CreateFirewallRule(ctx, p)
}

func (a *createAPI) ListKubernetesSupportedVersions(ctx context.Context, zoneID string) ([]cloudstack.KubernetesVersion, error) {
	if a.versions != nil {
		return a.versions, nil
	}
	return a.API.ListKubernetesSupportedVersions(ctx, zoneID)
}

// lostAnswer is the error of a create whose request was sent and not
// answered.
var lostAnswer = &cloudstack.Error{Command: "createKubernetesCluster", Err: errors.New("EOF"), Delivery: cloudstack.DeliverySentUnanswered}

func (e *testEnv) createEngine(a *createAPI) *Engine {
	a.API = e.API
	return New(a, Options{Wait: fastWait, LostCreateRechecks: []time.Duration{time.Millisecond, time.Millisecond}, UnknownOutcomeWait: time.Second})
}

// createRequest is a create of one control node, etcd etcd nodes and one
// worker with the seeded zone, offering, version and key pair.
func (e *testEnv) createRequest(name string, etcd int64) CreateRequest {
	return CreateRequest{Params: cloudstack.CreateClusterParams{Name: name, ZoneID: e.Info.ZoneID,
		KubernetesVersionID: e.Info.KubernetesVersions["1.33.13"], ServiceOfferingID: e.Info.ServiceOfferingID,
		ControlNodes: 1, EtcdNodes: etcd, Size: 1, Keypair: e.Info.Keypair}}
}

// liveNamed returns the ids of the live clusters named name.
func (e *testEnv) liveNamed(name string) []string {
	var out []string
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed && c.Name == name {
			out = append(out, c.ID)
		}
	}
	return out
}

func TestCreateRefusesTwin(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	first := env.createClusterWith(cloudstack.CreateClusterParams{Name: "Twin", Size: 1})
	env.Sim.ResetCallCounts()

	_, err := env.createEngine(&createAPI{}).Create(env.ctx(), env.createRequest("twin", 0))
	var taken *NameTakenError
	if !errors.As(err, &taken) || len(taken.Clusters) != 1 || taken.Clusters[0].ID != first {
		t.Fatalf("Create = %v, want a NameTakenError naming %s", err, first)
	}
	if !strings.Contains(err.Error(), first) {
		t.Errorf("the error does not name the cluster: %v", err)
	}
	if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 0 {
		t.Errorf("createKubernetesCluster was sent %d times, want never", n)
	}
}

// One HTTP 530 from queryAsyncJobResult itself is a failed poll, not a
// failed job: the cluster comes up and nothing is deleted.
func TestCreatePollErrorIsNotJobFailure(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	env.Sim.FailNextCalls("queryAsyncJobResult", 1, 530, "Injected failure of queryAsyncJobResult")

	res, err := env.createEngine(&createAPI{}).Create(env.ctx(), env.createRequest("poll", 0))
	if err != nil || res.Outcome != CreateDone || res.SetupErr != nil {
		t.Fatalf("Create = %+v, %v", res, err)
	}
	if res.Observation == nil || res.Observation.Cluster.State != "Running" || !res.Observation.RulesInSync {
		t.Fatalf("observation = %+v", res.Observation)
	}
	counts := env.Sim.CallCounts()
	if counts["deleteKubernetesCluster"] != 0 || counts["queryAsyncJobResult"] < 2 {
		t.Errorf("calls = %v: want the poll retried and nothing deleted", counts)
	}
	if ids := env.liveNamed("poll"); len(ids) != 1 || ids[0] != res.ClusterID {
		t.Errorf("live clusters = %v, want %s", ids, res.ClusterID)
	}
}

// A poll refused for good (401) leaves the job's outcome unknown: the
// engine watches the cluster's state instead, and keeps it when it comes
// up; when it ends in Error, it is read so, then deleted.
func TestCreatePollRefusedWatchesTheCluster(t *testing.T) {
	t.Parallel()
	refused := &cloudstack.Error{Command: "queryAsyncJobResult", ErrorCode: 401, HTTPStatus: 401, Text: "unable to verify user credentials"}
	for _, fail := range []bool{false, true} {
		env := newEnv(t, simulator.Profile42211)
		if fail {
			if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
				t.Fatal(err)
			}
		}
		res, err := env.createEngine(&createAPI{pollErr: refused}).Create(env.ctx(), env.createRequest("refused", 0))
		var failed *CreateFailedError
		switch {
		case !fail && (err != nil || res.Outcome != CreateDone || res.Observation == nil || res.Observation.Cluster.State != "Running"):
			t.Errorf("healthy: Create = %+v, %v; want the cluster kept", res, err)
		case fail && (!errors.As(err, &failed) || !failed.Deleted || failed.State != "Error"):
			t.Errorf("failed: Create = %v; want it read in Error and deleted", err)
		}
	}
}

// A failed create job: the cluster is read, found in Error and deleted.
func TestCreateJobFailureDeletesConfirmedFailure(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
		t.Fatal(err)
	}
	_, err := env.createEngine(&createAPI{}).Create(env.ctx(), env.createRequest("failing", 0))
	var failed *CreateFailedError
	if !errors.As(err, &failed) || !failed.Deleted || failed.Kept() || !cloudstack.IsJobFailure(err) {
		t.Fatalf("Create = %v (%+v), want a deleted failed create", err, failed)
	}
	if failed.State != "Error" && failed.State != "Alert" {
		t.Errorf("state = %q, want the failure confirmed by a read", failed.State)
	}
	if ids := env.liveNamed("failing"); len(ids) != 0 {
		t.Errorf("live clusters = %v, want none", ids)
	}
}

func TestCreateJobFailureDeleteFails(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	for _, f := range [][2]string{{"create", "nodes-ready"}, {"delete", "vms"}} {
		if err := env.Sim.FailJobStep(f[0], f[1], 1, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err := env.createEngine(&createAPI{}).Create(env.ctx(), env.createRequest("failing", 0))
	var failed *CreateFailedError
	if !errors.As(err, &failed) || failed.Deleted || !failed.Kept() || failed.DeleteErr == nil {
		t.Fatalf("Create = %v (%+v), want a failed create kept because the delete failed", err, failed)
	}
}

// The create ran but its answer was lost: the one new cluster that
// matches every parameter is adopted, and the create is not sent again.
func TestCreateLostAnswerAdopted(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := &createAPI{}
	a.create = func(ctx context.Context, p cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
		if _, err := a.API.CreateKubernetesCluster(ctx, p); err != nil {
			t.Errorf("create: %v", err)
		}
		return cloudstack.AsyncRef{}, lostAnswer
	}
	res, err := env.createEngine(a).Create(env.ctx(), env.createRequest("lost", 0))
	if err != nil || !res.Adopted || res.Outcome != CreateDone || res.Observation == nil || res.Observation.Cluster.State != "Running" {
		t.Fatalf("Create = %+v, %v", res, err)
	}
	if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
		t.Errorf("createKubernetesCluster was sent %d times, want once", n)
	}
}

// The create never ran, and somebody else made a cluster of the same
// name meanwhile: it differs, so it is named and not adopted.
func TestCreateLostAnswerOthersClusterNotAdopted(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := &createAPI{}
	var theirs string
	a.create = func(context.Context, cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
		theirs = env.createClusterWith(cloudstack.CreateClusterParams{Name: "shared", Size: 2})
		return cloudstack.AsyncRef{}, lostAnswer
	}
	_, err := env.createEngine(a).Create(env.ctx(), env.createRequest("shared", 0))
	var lost *LostCreateError
	if !errors.As(err, &lost) || len(lost.Others) != 1 || lost.Others[0].Cluster.ID != theirs || len(lost.Matching) != 0 {
		t.Fatalf("Create = %v, want a LostCreateError naming %s", err, theirs)
	}
	if !strings.Contains(err.Error(), theirs) || !strings.Contains(err.Error(), "2 workers, not 1") {
		t.Errorf("the error does not name the candidate and how it differs: %v", err)
	}
	if ids := env.liveNamed("shared"); len(ids) != 1 || ids[0] != theirs {
		t.Errorf("live clusters = %v, want only %s, untouched", ids, theirs)
	}
}

// Two new clusters match every parameter: which one the create made
// cannot be told, so neither is adopted.
func TestCreateLostAnswerTwoMatches(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := &createAPI{}
	a.create = func(ctx context.Context, p cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
		for range 2 {
			if _, err := a.API.CreateKubernetesCluster(ctx, p); err != nil {
				t.Errorf("create: %v", err)
			}
		}
		return cloudstack.AsyncRef{}, lostAnswer
	}
	_, err := env.createEngine(a).Create(env.ctx(), env.createRequest("double", 0))
	var lost *LostCreateError
	if !errors.As(err, &lost) || len(lost.Matching) != 2 || len(lost.Candidates()) != 2 {
		t.Fatalf("Create = %v, want a LostCreateError with two matches", err)
	}
}

// A create that was never sent made nothing; the engine does not look for
// a cluster (and says so).
func TestCreateNotSent(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := &createAPI{create: func(context.Context, cloudstack.CreateClusterParams) (cloudstack.AsyncRef, error) {
		return cloudstack.AsyncRef{}, &cloudstack.Error{Command: "createKubernetesCluster",
			Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), Delivery: cloudstack.DeliveryNotSent}
	}}
	env.Sim.ResetCallCounts()
	_, err := env.createEngine(a).Create(env.ctx(), env.createRequest("unsent", 0))
	var notSent *CreateNotSentError
	if !errors.As(err, &notSent) || !strings.Contains(err.Error(), "never sent") {
		t.Fatalf("Create = %v, want CreateNotSentError", err)
	}
	if n := env.Sim.CallCounts()["listKubernetesClusters"]; n != 1 {
		t.Errorf("listKubernetesClusters sent %d times, want only the check before the create", n)
	}
}

// An interrupt (cancel) or the deadline while CloudStack creates: the
// cluster is read on a detached context and kept, with the outcome named
// after what happened.
func TestCreateCutShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want CreateOutcome
	}{{"interrupted", CreateInterrupted}, {"timed out", CreateTimedOut}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnvWithJobs(t, simulator.Profile42211, 300*time.Millisecond)
			var ctx context.Context
			a := &createAPI{}
			if tc.want == CreateInterrupted {
				c, cancel := context.WithCancel(env.ctx())
				ctx, a.afterCreate = c, cancel
			} else {
				ex := newExpiringCtx(env.ctx())
				ctx, a.afterCreate = ex, ex.expire
			}
			res, err := env.createEngine(a).Create(ctx, env.createRequest("cut", 0))
			if err != nil || res.Outcome != tc.want || res.Observation == nil || res.WaitErr == nil {
				t.Fatalf("Create = %+v, %v; want outcome %v with the cluster read", res, err, tc.want)
			}
			if s := res.Observation.Cluster.State; s == "Error" || s == "Alert" {
				t.Errorf("state %s", s)
			}
			if n := env.Sim.CallCounts()["deleteKubernetesCluster"]; n != 0 {
				t.Errorf("deleteKubernetesCluster sent %d times after an interrupted create", n)
			}
		})
	}
}

// A step after the create that CloudStack refuses (the autoscaler above
// cloud.kubernetes.cluster.max.size) fails no create: the cluster is kept,
// and the result says what failed and what the cluster is.
func TestCreateSetUpFailureKeepsCluster(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	req := env.createRequest("autoscaled", 0)
	req.Then.Autoscaling = &Autoscaling{MinSize: 1, MaxSize: 10}
	res, err := env.createEngine(&createAPI{}).Create(env.ctx(), req)
	if err != nil || res.Outcome != CreateDone || res.SetupErr == nil || !cloudstack.IsJobFailure(res.SetupErr) {
		t.Fatalf("Create = %+v, %v; want a kept cluster with the autoscaler's job failure", res, err)
	}
	if !strings.Contains(res.SetupErr.Error(), "Maximum cluster size can not exceed 10") || len(res.Healed) != 0 {
		t.Errorf("setup error %v, healed %v", res.SetupErr, res.Healed)
	}
	if o := res.Observation; o == nil || o.Cluster.AutoscalingEnabled || o.Cluster.State != "Running" {
		t.Errorf("observation = %+v, want the running cluster without the autoscaler", o)
	}
	if n := env.Sim.CallCounts()["scaleKubernetesCluster"]; n != 1 {
		t.Errorf("scaleKubernetesCluster sent %d times: a refused job is not retried", n)
	}
}

// A rule step that fails once and succeeds when tried again leaves no
// error: the result reports what is true at the end.
func TestCreateSetUpHealed(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	a := &createAPI{}
	a.failFirewallCreates.Store(1)
	res, err := env.createEngine(a).Create(env.ctx(), env.createRequest("healed", 1))
	if err != nil || res.SetupErr != nil || len(res.Healed) != 1 {
		t.Fatalf("Create = %+v, %v; want the rule step healed", res, err)
	}
	if !strings.Contains(res.Healed[0].Error(), "HTTP 503") || res.Observation == nil || !res.Observation.RulesInSync {
		t.Errorf("healed %v, observation %+v", res.Healed, res.Observation)
	}
}

func TestCreateMismatch(t *testing.T) {
	t.Parallel()
	p := cloudstack.CreateClusterParams{Name: "c", ZoneID: "z", KubernetesVersionID: "v", ServiceOfferingID: "o",
		NodeOfferings: map[string]string{"worker": "w"}, ControlNodes: 0, EtcdNodes: 1, Size: 2, Keypair: "k", NetworkID: "n",
		Ownership: cloudstack.Ownership{Account: "acct", DomainID: "d"}}
	c := cloudstack.Cluster{Name: "c", ZoneID: "z", KubernetesVersionID: "v", ServiceOfferingID: "o", WorkerOfferingID: "w",
		ControlNodes: 1, EtcdNodes: 1, Size: 2, Keypair: "k", NetworkID: "n", Account: "ACCT", DomainID: "d"}
	if m := CreateMismatch(c, p); len(m) != 0 {
		t.Fatalf("mismatch = %v, want none", m)
	}
	for _, tc := range []struct {
		change func(*cloudstack.Cluster)
		want   string
	}{
		{func(c *cloudstack.Cluster) { c.Name = "C" }, "name"},
		{func(c *cloudstack.Cluster) { c.ZoneID = "z2" }, "zone"},
		{func(c *cloudstack.Cluster) { c.KubernetesVersionID = "v2" }, "Kubernetes version"},
		{func(c *cloudstack.Cluster) { c.WorkerOfferingID = "w2" }, "worker offering"},
		{func(c *cloudstack.Cluster) { c.ControlNodes = 3 }, "control nodes"},
		{func(c *cloudstack.Cluster) { c.EtcdNodes = 0 }, "etcd nodes"},
		{func(c *cloudstack.Cluster) { c.Size = 3 }, "workers"},
		{func(c *cloudstack.Cluster) { c.NetworkID = "n2" }, "network"},
		{func(c *cloudstack.Cluster) { c.Keypair = "" }, "key pair"},
		{func(c *cloudstack.Cluster) { c.Account = "other" }, "account"},
		{func(c *cloudstack.Cluster) { c.ProjectID = "p" }, "project"},
	} {
		other := c
		tc.change(&other)
		if m := CreateMismatch(other, p); len(m) != 1 || !strings.Contains(m[0], tc.want) {
			t.Errorf("mismatch = %v, want one about %s", m, tc.want)
		}
	}
}

func TestCheckCreate(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	req := env.createRequest("check", 0)
	e := env.createEngine(&createAPI{})
	if probs, err := e.CheckCreate(env.ctx(), req); err != nil || len(probs) != 0 {
		t.Fatalf("without the autoscaler: %v %v", probs, err)
	}
	req.Then.Autoscaling = &Autoscaling{MinSize: 1, MaxSize: 10}
	probs, err := e.CheckCreate(env.ctx(), req)
	if err != nil || len(probs) != 1 || probs[0].Field != FieldAutoscalerMaximum || probs[0].Certain ||
		!strings.Contains(probs[0].Message, "cloud.kubernetes.cluster.max.size") {
		t.Fatalf("max size 10: %+v %v", probs, err)
	}
	a := &createAPI{versions: []cloudstack.KubernetesVersion{{ID: req.Params.KubernetesVersionID, SemanticVersion: "1.33.13"}}}
	req.Then.Autoscaling.MaxSize = 5
	probs, err = env.createEngine(a).CheckCreate(env.ctx(), req)
	if err != nil || len(probs) != 1 || probs[0].Field != FieldAutoscaler || !probs[0].Certain {
		t.Fatalf("version without autoscaler support: %+v %v", probs, err)
	}
}

// A cluster of the same name that another client creates while the create
// runs is reported, and nothing is deleted.
func TestCreateReportsATwinMadeMeanwhile(t *testing.T) {
	t.Parallel()
	env := newEnv(t, simulator.Profile42211)
	var twin string
	a := &createAPI{afterCreate: func() {
		twin = env.createClusterWith(cloudstack.CreateClusterParams{Name: "twinned", Size: 1})
	}}
	res, err := env.createEngine(a).Create(env.ctx(), env.createRequest("twinned", 0))
	if err != nil || res.Outcome != CreateDone {
		t.Fatalf("Create = %+v, %v", res, err)
	}
	if len(res.Twins) != 1 || res.Twins[0].ID != twin || res.ClusterID == twin {
		t.Fatalf("twins %+v, want the other client's %s", res.Twins, twin)
	}
	for _, id := range []string{res.ClusterID, twin} {
		if c := env.Cluster(id); c.State != "Running" {
			t.Errorf("cluster %s is %s, want both kept running", id, c.State)
		}
	}
}
