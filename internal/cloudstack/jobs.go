package cloudstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Job statuses reported by queryAsyncJobResult.
const (
	JobPending   = 0
	JobSucceeded = 1
	JobFailed    = 2
)

// JobQuerier polls an async job once. *Client implements it.
type JobQuerier interface {
	QueryAsyncJob(ctx context.Context, jobID string) (JobStatus, error)
}

// WaitOptions tunes WaitForJob. Zero values take the defaults in
// schedule.go. The overall limit is the context's deadline: give it the
// operation's timeout.
type WaitOptions struct {
	// Command names the command that started the job (e.g.
	// "scaleKubernetesCluster"); it labels errors and logs.
	Command string
	// Unit is the schedule's time unit, one second by default: the waits
	// are those of cloudstack-go's schedule (sleeps of 1, 2, 3, … up to 15
	// units), split into parts. Tests shorten it to run the same schedule
	// faster.
	Unit time.Duration
	// MaxInterval caps the wait between polls; zero means 5 units.
	MaxInterval time.Duration
	// ProgressInterval is how often an Info progress line is logged.
	ProgressInterval time.Duration
}

func (o WaitOptions) withDefaults() WaitOptions {
	if o.Unit <= 0 {
		o.Unit = DefaultJobUnit
	}
	if o.MaxInterval <= 0 {
		o.MaxInterval = defaultJobMaxUnits * o.Unit
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultJobProgressInterval
	}
	if o.Command == "" {
		o.Command = "queryAsyncJobResult"
	}
	return o
}

// WaitForJob polls jobID until it finishes and returns its jobresult. It
// polls at once, then at the instants of the schedule in schedule.go,
// counted from its start: never later than cloudstack-go's GetAsyncJobResult
// sees a job end, whatever its length.
//
// Only a job that CloudStack reports as failed (jobstatus 2) gives a job
// failure: an *Error parsed from its jobresult, usually of KindBusiness
// (530), with JobFailed set (see IsJobFailure). A failed poll says nothing
// about the job, so poll errors are retried until ctx ends: HTTP 5xx, 530
// from queryAsyncJobResult itself, 429, an error object in a 200 answer and
// transport errors alike. Three poll errors cannot be cured by polling
// again, and end the wait at once with the job's outcome unknown: 401 (the
// credentials are refused, and every poll sends the same), 431 and 432 (the
// server does not take the job id: it does not know the job, or no longer
// keeps it), and an HTTP 200 answer that is not a job result at all (not a
// CloudStack API, which the same URL would answer again).
//
// When ctx is cancelled or its deadline passes, WaitForJob returns at once
// with an *Error that wraps ctx.Err() and names the last poll error; the job
// itself keeps running in CloudStack. Every error but a job failure has
// JobID set and JobFailed false: IsJobOutcomeUnknown reports it, and a
// caller must read the object the job works on before concluding anything.
func WaitForJob(ctx context.Context, q JobQuerier, jobID string, opts WaitOptions) (json.RawMessage, error) {
	opts = opts.withDefaults()
	ctx = tflog.SetField(ctx, "cloudstack_job_id", jobID)
	start := time.Now()
	lastProgress := start
	// The first poll is at once, as cloudstack-go's; every later one at the
	// schedule's next instant counted from start, however long a poll took.
	interval := time.Duration(0)
	polls := 0
	var lastErr error

	for {
		if !Sleep(ctx, interval) {
			return nil, waitAbortedError(ctx, opts.Command, jobID, time.Since(start), polls, lastErr)
		}
		st, err := q.QueryAsyncJob(ctx, jobID)
		polls++
		elapsed := time.Since(start)
		switch {
		case err != nil && ctx.Err() != nil:
			// The poll died with the context; the error worth reporting is
			// the last one a poll really met, if any.
			return nil, waitAbortedError(ctx, opts.Command, jobID, elapsed, polls, lastErr)
		case err != nil && pollErrorIsFinal(err):
			return nil, &Error{Command: opts.Command, JobID: jobID, Err: err, Text: fmt.Sprintf(
				"stopped polling async job %s after %d polls, because polling again cannot succeed: the job's outcome is "+
					"unknown, and it may still be running in CloudStack", jobID, polls)}
		case err != nil:
			lastErr = err
			tflog.Debug(ctx, "async job poll failed; will retry", map[string]any{
				"polls": polls, "elapsed_ms": elapsed.Milliseconds(), "error": err.Error(),
			})
		default:
			lastErr = nil
			tflog.Trace(ctx, "async job polled", map[string]any{
				"polls": polls, "elapsed_ms": elapsed.Milliseconds(), "jobstatus": st.Status,
			})
			switch st.Status {
			case JobSucceeded:
				tflog.Debug(ctx, "async job succeeded", map[string]any{
					"command": opts.Command, "polls": polls, "elapsed_ms": elapsed.Milliseconds(),
				})
				return st.Result, nil
			case JobFailed:
				return nil, jobFailureError(opts.Command, jobID, st)
			}
		}
		if time.Since(lastProgress) >= opts.ProgressInterval {
			lastProgress = time.Now()
			tflog.Info(ctx, "still waiting for CloudStack async job", map[string]any{
				"command": opts.Command, "polls": polls, "elapsed": elapsed.Round(time.Second).String(),
			})
		}
		interval = opts.NextInterval(time.Since(start))
	}
}

// pollErrorIsFinal reports whether a queryAsyncJobResult error would come
// back on every later poll (see WaitForJob).
func pollErrorIsFinal(err error) bool {
	e := ParseError(err)
	code := e.ErrorCode
	if code == 0 {
		code = e.HTTPStatus
	}
	switch {
	case e.Kind() == KindAuth, code == 431, code == 432:
		return true
	case e.HTTPStatus == http.StatusOK && e.ErrorCode == 0:
		// A 200 answer that does not decode: not a CloudStack API.
		return true
	}
	return false
}

func waitAbortedError(ctx context.Context, command, jobID string, elapsed time.Duration, polls int, lastErr error) *Error {
	verb := "gave up waiting"
	if errors.Is(ctx.Err(), context.Canceled) {
		verb = "stopped waiting (cancelled)"
	}
	text := fmt.Sprintf("%s for async job %s after %s and %d polls; the job's outcome is unknown: it may still be running in CloudStack",
		verb, jobID, elapsed.Round(time.Millisecond), polls)
	if lastErr != nil {
		text += " (last poll error: " + lastErr.Error() + ")"
	}
	return &Error{Command: command, JobID: jobID, Text: text, Err: ctx.Err()}
}

// jobFailureError builds the error of a job that ended with status 2. Its
// jobresult is normally {"errorcode":530,"errortext":"…"}; a text result
// (jobresulttype "text") is used as is.
func jobFailureError(command, jobID string, st JobStatus) *Error {
	e := parseErrorObject(st.Result)
	if e == nil {
		e = &Error{Text: jobResultText(st.Result)}
	}
	if e.ErrorCode == 0 {
		e.ErrorCode = st.ResultCode
	}
	if e.Text == "" {
		e.Text = fmt.Sprintf("async job %s failed without an error text", jobID)
	}
	e.Command = command
	e.JobID = jobID
	e.JobFailed = true
	return e
}

func jobResultText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// DecodeClusterJobResult decodes the {"kubernetescluster":{…}} result of a
// create, start, scale or upgrade job.
func DecodeClusterJobResult(raw json.RawMessage) (*Cluster, error) {
	var wrapper struct {
		Cluster *Cluster `json:"kubernetescluster"`
	}
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return nil, fmt.Errorf("decoding Kubernetes cluster job result: %w", err)
	}
	if wrapper.Cluster == nil {
		return nil, fmt.Errorf("decoding Kubernetes cluster job result: no kubernetescluster object in %s", truncate(string(raw), 200))
	}
	return wrapper.Cluster, nil
}

// DecodeCreatedID returns the id of the object in a create job's result,
// e.g. {"firewallrule":{"id":"…",…}}, or of a bare {"id":"…"} object.
func DecodeCreatedID(raw json.RawMessage) (string, error) {
	var direct struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &direct); err == nil && direct.ID != "" {
		return direct.ID, nil
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return "", fmt.Errorf("decoding job result: %w", err)
	}
	for _, inner := range wrapper {
		var obj struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(inner, &obj) == nil && obj.ID != "" {
			return obj.ID, nil
		}
	}
	return "", fmt.Errorf("decoding job result: no object id in %s", truncate(string(raw), 200))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
