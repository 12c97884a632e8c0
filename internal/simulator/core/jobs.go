package core

import (
	"errors"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// JobRun is a running job's handle on the runtime. Job code runs with the
// lock held; Step releases it while the job "works".
type JobRun struct {
	r   *Runtime
	Job *model.Job
	// Op is the operation name for step fault injection, e.g. "scale-down".
	Op string
	// Steps is the expected number of steps, to spread JobDuration.
	Steps int
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

// Step marks a checkpoint of the job: the lock is released for a share of
// the job duration, then an injected failure for Op.name, if any, is
// returned.
func (jr *JobRun) Step(name string) error {
	r := jr.r
	steps := max(jr.Steps, 1)
	d := r.Opts.JobDuration / time.Duration(steps)
	r.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.closing:
			t.Stop()
		}
	}
	r.Lock()
	select {
	case <-r.closing:
		return errShutdown
	default:
	}
	if msg, ok := r.Faults.TakeJobFailure(jr.Op, name); ok {
		return &stepFailure{op: jr.Op, step: name, message: msg}
	}
	return nil
}

// FailText is the job's error text for a failure at a step: an injected
// failure's own message when it has one, else the server's message for that
// step.
func FailText(err error, natural string) string {
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
func (jr *JobRun) holdUntilDue() {
	r := jr.r
	left := time.Until(jr.started.Add(r.Opts.JobDuration))
	if left <= 0 {
		return
	}
	r.Unlock()
	r.Sleep(left)
	r.Lock()
}

// Sleep waits d, or until the simulator closes; it reports whether d
// passed.
func (r *Runtime) Sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.closing:
		return false
	}
}

// StartJob records an async job and runs it in the background. The job
// goroutine waits for the lock, so the API response is written before the
// job makes its first change. Callers hold the lock.
func (r *Runtime) StartJob(c *Caller, cmdClass, instanceType, instanceID string, steps int,
	run func(jr *JobRun) (any, *wire.APIError)) *model.Job {
	j := &model.Job{InternalID: r.DB.NextID("job"), ID: r.NewUUID(), Cmd: cmdClass, AccountID: c.Account.ID,
		UserID: c.User.ID, InstanceType: instanceType, InstanceID: instanceID, Created: r.Now()}
	r.DB.Jobs = append(r.DB.Jobs, j)
	r.Go(func() {
		if !r.Sleep(r.Opts.JobQueueDelay) {
			return
		}
		r.Lock()
		defer r.Unlock()
		jr := &JobRun{r: r, Job: j, Steps: steps, started: time.Now()}
		result, err := run(jr)
		jr.holdUntilDue()
		j.Completed = r.Now()
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
	})
	return j
}
