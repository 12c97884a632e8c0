package cloudstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// Defaults for WaitOptions.
const (
	// DefaultJobInitialInterval is the wait before the first poll, and the
	// base of every later interval.
	DefaultJobInitialInterval = 750 * time.Millisecond
	// DefaultJobIntervalGrowth is how much the interval grows per square
	// root of a second of elapsed time: 1.1 s at 1 s, 1.9 s at 10 s, 2.3 s
	// at 20 s, 3.5 s at 1 min.
	DefaultJobIntervalGrowth = 350 * time.Millisecond
	// DefaultJobMaxInterval caps the interval, which it reaches after
	// about 2.5 min: a 10-60 min CKS job is polled every 5 s.
	DefaultJobMaxInterval = 5 * time.Second
	// DefaultJobMultiplier was the factor of the geometric schedule used
	// before the interval grew with elapsed time. It is no default any more:
	// set WaitOptions.Multiplier for a geometric schedule.
	DefaultJobMultiplier       = 1.5
	DefaultJobProgressInterval = 30 * time.Second
)

// JobQuerier polls an async job once. *Client implements it.
type JobQuerier interface {
	QueryAsyncJob(ctx context.Context, jobID string) (JobStatus, error)
}

// WaitOptions tunes WaitForJob. Zero values take the defaults above. The
// overall limit is the context's deadline: give it the operation's timeout.
//
// A job ends anywhere in a poll interval, so the wait from its end to the
// poll that sees it is half the interval on average, and the polls are the
// integral of one over the interval. cloudstack-go's GetAsyncJobResult
// sleeps 1 s, 2 s, 3 s, … (15 s at most): its interval grows like √(2t).
// The default interval, InitialInterval + IntervalGrowth·√t, grows the same
// way from a floor, so whatever the job's length between 1 and 21 s it
// waits about 0.4 times as long as cloudstack-go after the job ends, with
// at most 1.9 times its polls.
type WaitOptions struct {
	// Command names the command that started the job (e.g.
	// "scaleKubernetesCluster"); it labels errors and logs.
	Command string
	// InitialInterval is the wait before the first poll and the base of
	// every later interval.
	InitialInterval time.Duration
	// IntervalGrowth is how much the interval grows per square root of a
	// second of elapsed time: the wait after a poll at elapsed time t is
	// InitialInterval + IntervalGrowth·√(t/1s), capped by MaxInterval.
	IntervalGrowth time.Duration
	// MaxInterval caps the wait between polls.
	MaxInterval time.Duration
	// Multiplier, when above 1, replaces IntervalGrowth by a geometric
	// schedule: each interval is the previous one times Multiplier.
	Multiplier float64
	// ProgressInterval is how often an Info progress line is logged.
	ProgressInterval time.Duration
}

func (o WaitOptions) withDefaults() WaitOptions {
	if o.InitialInterval <= 0 {
		o.InitialInterval = DefaultJobInitialInterval
	}
	if o.IntervalGrowth <= 0 {
		o.IntervalGrowth = DefaultJobIntervalGrowth
	}
	if o.MaxInterval <= 0 {
		o.MaxInterval = DefaultJobMaxInterval
	}
	if o.MaxInterval < o.InitialInterval {
		o.MaxInterval = o.InitialInterval
	}
	if o.Multiplier < 1 {
		o.Multiplier = 0
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultJobProgressInterval
	}
	if o.Command == "" {
		o.Command = "queryAsyncJobResult"
	}
	return o
}

// NextInterval is the wait before the next poll of a wait that has run for
// elapsed, whose last wait was previous (0 before the first poll).
func (o WaitOptions) NextInterval(elapsed, previous time.Duration) time.Duration {
	o = o.withDefaults()
	if previous <= 0 {
		return o.InitialInterval
	}
	var next time.Duration
	if o.Multiplier > 1 {
		next = time.Duration(float64(previous) * o.Multiplier)
	} else {
		next = o.InitialInterval + time.Duration(float64(o.IntervalGrowth)*math.Sqrt(max(elapsed, 0).Seconds()))
	}
	return min(max(next, o.InitialInterval), o.MaxInterval)
}

// Schedule returns when the wait polls, measured from its start, up to the
// first poll at or after until, for polls that take no time.
func (o WaitOptions) Schedule(until time.Duration) []time.Duration {
	var out []time.Duration
	at, interval := time.Duration(0), time.Duration(0)
	for {
		interval = o.NextInterval(at, interval)
		at += interval
		out = append(out, at)
		if at >= until {
			return out
		}
	}
}

// WaitForJob polls jobID until it finishes and returns its jobresult.
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
	interval := opts.NextInterval(0, 0)
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
		interval = opts.NextInterval(time.Since(start), interval)
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
