package simulator

import (
	"errors"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Java command classes reported in queryAsyncJobResult's cmd field.
const (
	cmdPkgKubernetes = "org.apache.cloudstack.api.command.user.kubernetes.cluster."
	cmdPkgFirewall   = "org.apache.cloudstack.api.command.user.firewall."
)

// jobRun is a running job's handle on the simulator. Job code runs with
// s.mu held; step releases it while the job "works".
type jobRun struct {
	s     *Simulator
	job   *model.Job
	op    string // operation name for step fault injection, e.g. "scale-down"
	steps int    // expected number of steps, to spread JobDuration
	// started is when the job began, for holdUntilDue.
	started time.Time
}

// errShutdown ends jobs when the simulator closes.
var errShutdown = errors.New("the management server is shutting down")

// stepFailure is a failure injected at a named job step.
type stepFailure struct {
	op, step string
	message  string
}

func (f *stepFailure) Error() string { return "injected failure at " + f.op + "." + f.step }

// step marks a checkpoint of the job: the lock is released for a share of
// the job duration, then an injected failure for op.name, if any, is
// returned.
func (jr *jobRun) step(name string) error {
	s := jr.s
	steps := max(jr.steps, 1)
	d := s.opts.JobDuration / time.Duration(steps)
	s.unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.closing:
			t.Stop()
		}
	}
	s.lock()
	select {
	case <-s.closing:
		return errShutdown
	default:
	}
	if msg, ok := s.faults.TakeJobFailure(jr.op, name); ok {
		return &stepFailure{op: jr.op, step: name, message: msg}
	}
	return nil
}

// failText is the job's error text for a failure at a step: an injected
// failure's own message when it has one, else the server's message for that
// step.
func failText(err error, natural string) string {
	var sf *stepFailure
	if errors.As(err, &sf) && sf.message != "" {
		return sf.message
	}
	if errors.Is(err, errShutdown) {
		return errShutdown.Error()
	}
	return natural
}

// holdUntilDue keeps a job that took fewer steps than expected from
// completing before JobDuration has passed since it began, so that every
// job takes JobDuration, as benchmarks at a uniform job time need. Its
// changes are already visible, as on a real server whose job result is
// written after them.
func (jr *jobRun) holdUntilDue() {
	s := jr.s
	left := time.Until(jr.started.Add(s.opts.JobDuration))
	if left <= 0 {
		return
	}
	s.unlock()
	s.sleep(left)
	s.lock()
}

// sleep waits d, or until Close; it reports whether d passed.
func (s *Simulator) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closing:
		return false
	}
}

// startJob records an async job and runs it in the background. The job
// goroutine waits for s.mu, so the API response is written before the job
// makes its first change. Callers hold s.mu.
func (s *Simulator) startJob(c *caller, cmdClass, instanceType, instanceID string, steps int,
	run func(jr *jobRun) (any, *wire.APIError)) *model.Job {
	j := &model.Job{InternalID: s.st.NextID("job"), ID: s.newUUID(), Cmd: cmdClass, AccountID: c.account.ID,
		UserID: c.user.ID, InstanceType: instanceType, InstanceID: instanceID, Created: s.now()}
	s.st.Jobs = append(s.st.Jobs, j)
	s.jobs.Add(1)
	go func() {
		defer s.jobs.Done()
		if !s.sleep(s.opts.JobQueueDelay) {
			return
		}
		s.lock()
		defer s.unlock()
		jr := &jobRun{s: s, job: j, steps: steps, started: time.Now()}
		result, err := run(jr)
		jr.holdUntilDue()
		j.Completed = s.now()
		if err != nil {
			j.Status = model.JobFailed
			j.ResultCode = err.Code
			// ApiAsyncJobDispatcher.runJob serializes an ExceptionResponse:
			// uuidList (empty), errorcode and errortext.
			j.Result = map[string]any{"uuidList": []string{}, "errorcode": err.Code, "errortext": err.Text}
			return
		}
		j.Status = model.JobSucceeded
		j.Result = result
	}()
	return j
}

// clusterJob starts the job of a command on an existing cluster and returns
// the command's response, the job id. Callers hold s.mu.
func (s *Simulator) clusterJob(c *caller, cl *model.Cluster, cmdClass string, steps int,
	run func(jr *jobRun) (any, *wire.APIError)) (map[string]any, *wire.APIError) {
	j := s.startJob(c, cmdPkgKubernetes+cmdClass, "KubernetesCluster", cl.ID, steps, run)
	return map[string]any{"jobid": j.ID}, nil
}

// renderJob is the queryAsyncJobResult response.
func (s *Simulator) renderJob(j *model.Job) map[string]any {
	out := map[string]any{
		"jobid":           j.ID,
		"accountid":       j.AccountID,
		"userid":          j.UserID,
		"cmd":             j.Cmd,
		"created":         wire.CSTime(j.Created),
		"jobstatus":       j.Status,
		"jobprocstatus":   0,
		"jobresultcode":   j.ResultCode,
		"jobinstancetype": j.InstanceType,
		"jobinstanceid":   j.InstanceID,
	}
	if a := s.st.Account(j.AccountID); a != nil {
		out["account"] = a.Name
		out["domainid"] = a.DomainID
		out["domainpath"] = "ROOT"
	}
	if j.Status != model.JobPending {
		out["completed"] = wire.CSTime(j.Completed)
		out["jobresulttype"] = "object"
		out["jobresult"] = j.Result
	}
	return out
}

// cmdListAsyncJobs is ListAsyncJobsCmd (QueryManagerImpl.searchForAsyncJobs):
// the jobs of the caller's account, or with listall every account's for an
// admin, oldest first.
func cmdListAsyncJobs(s *Simulator, c *caller, p wire.Params) (map[string]any, *wire.APIError) {
	scope, err := s.listScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, j := range s.st.Jobs {
		if scope(j.AccountID) {
			items = append(items, s.renderJob(j))
		}
	}
	return s.listBody(p, "asyncjobs", items)
}

func cmdQueryAsyncJobResult(s *Simulator, c *caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("jobid"); err != nil {
		return nil, err
	}
	j, err := wire.ResolveParam(p, "jobid", s.st.Job)
	if err != nil {
		return nil, err
	}
	if err := s.checkAccess(c, j.AccountID, "async job "+j.ID); err != nil {
		return nil, err
	}
	return s.renderJob(j), nil
}
