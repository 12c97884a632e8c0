package cloudstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedQuerier answers polls from a script; after the script it repeats
// the last answer. block makes every poll wait for ctx.
type scriptedQuerier struct {
	mu     sync.Mutex
	script []pollAnswer
	polls  int
	block  bool
	// afterPoll, when set, runs after each poll with the poll count.
	afterPoll func(n int)
}

type pollAnswer struct {
	status JobStatus
	err    error
}

func (q *scriptedQuerier) QueryAsyncJob(ctx context.Context, jobID string) (JobStatus, error) {
	q.mu.Lock()
	q.polls++
	n := q.polls
	q.mu.Unlock()
	if q.afterPoll != nil {
		defer q.afterPoll(n)
	}
	if q.block {
		<-ctx.Done()
		return JobStatus{}, &Error{Command: "queryAsyncJobResult", Err: ctx.Err()}
	}
	a := q.script[min(n, len(q.script))-1]
	a.status.JobID = jobID
	return a.status, a.err
}

// expiringContext is a context whose deadline a test passes by hand, so
// that what happens before it does not depend on the machine's speed.
type expiringContext struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiringContext() *expiringContext {
	return &expiringContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiringContext) expire() { c.once.Do(func() { close(c.done) }) }

func (c *expiringContext) Done() <-chan struct{} { return c.done }

func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (q *scriptedQuerier) pollCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.polls
}

var fastWait = WaitOptions{Unit: time.Millisecond, MaxInterval: 3 * time.Millisecond, Command: "scaleKubernetesCluster"}

func pending() pollAnswer { return pollAnswer{status: JobStatus{Status: JobPending}} }

func TestWaitForJobSuccess(t *testing.T) {
	t.Parallel()
	result := json.RawMessage(`{"kubernetescluster":{"id":"c-1","name":"prod","state":"Running","size":"2","controlnodes":1,` +
		`"virtualmachines":[{"id":"vm-e","isetcdnode":true},{"id":"vm-c"}]}}`)
	q := &scriptedQuerier{script: []pollAnswer{pending(), pending(), pending(),
		{status: JobStatus{Status: JobSucceeded, Result: result}}}}

	raw, err := WaitForJob(t.Context(), q, "job-1", fastWait)
	if err != nil {
		t.Fatalf("WaitForJob: %v", err)
	}
	if q.pollCount() != 4 {
		t.Errorf("polls = %d, want 4", q.pollCount())
	}
	cl, err := DecodeClusterJobResult(raw)
	if err != nil {
		t.Fatalf("DecodeClusterJobResult: %v", err)
	}
	if cl.ID != "c-1" || cl.Size != 2 || cl.ControlNodes != 1 || len(cl.VirtualMachines) != 2 ||
		cl.VirtualMachines[0].IsEtcdNode || !cl.VirtualMachines[1].IsEtcdNode { // no created times or names: by id, vm-c, vm-e
		t.Errorf("cluster = %+v", cl)
	}
}

func TestWaitForJobFailure530(t *testing.T) {
	t.Parallel()
	const text = `Scaling failed for Kubernetes cluster KubernetesCluster {"id":12,"name":"prod","uuid":"c0ffee00-0000-4000-8000-000000000012"}, unable to update network rules`
	result, _ := json.Marshal(map[string]any{"errorcode": 530, "errortext": text})
	q := &scriptedQuerier{script: []pollAnswer{pending(), {status: JobStatus{Status: JobFailed, ResultCode: 530, Result: result}}}}

	_, err := WaitForJob(t.Context(), q, "job-1", fastWait)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T)", err, err)
	}
	if e.ErrorCode != 530 || e.Text != text || e.Kind() != KindBusiness || e.Command != "scaleKubernetesCluster" {
		t.Fatalf("got %+v kind %v", e, e.Kind())
	}
	if !strings.Contains(err.Error(), "unable to update network rules") {
		t.Errorf("message: %s", err)
	}
}

func TestWaitForJobFailureShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		status   JobStatus
		wantCode int
		wantCS   int
		wantText string
	}{
		{"with cserrorcode", JobStatus{Status: JobFailed, ResultCode: 530,
			Result: json.RawMessage(`{"uuidList":[],"errorcode":530,"cserrorcode":4250,"errortext":"boom"}`)}, 530, 4250, "boom"},
		{"431 escaping the wrapper", JobStatus{Status: JobFailed, ResultCode: 431,
			Result: json.RawMessage(`{"errorcode":431,"errortext":"Unable to find cluster"}`)}, 431, 0, "Unable to find cluster"},
		{"text result", JobStatus{Status: JobFailed, ResultCode: 530, Result: json.RawMessage(`"plain failure"`)}, 530, 0, "plain failure"},
		{"no result", JobStatus{Status: JobFailed, ResultCode: 530}, 530, 0, "async job job-1 failed without an error text"},
	}
	for _, tc := range cases {
		q := &scriptedQuerier{script: []pollAnswer{{status: tc.status}}}
		_, err := WaitForJob(t.Context(), q, "job-1", fastWait)
		e := ParseError(err)
		if e == nil || e.ErrorCode != tc.wantCode || e.CSErrorCode != tc.wantCS || e.Text != tc.wantText {
			t.Errorf("%s: %+v", tc.name, e)
		}
	}
}

func TestWaitForJobRetriesTransientPollErrors(t *testing.T) {
	t.Parallel()
	q := &scriptedQuerier{script: []pollAnswer{
		{err: &Error{Command: "queryAsyncJobResult", HTTPStatus: 503, Text: "HTTP 503"}},
		pending(),
		{err: &Error{Command: "queryAsyncJobResult", Err: context.DeadlineExceeded}},
		{status: JobStatus{Status: JobSucceeded, Result: json.RawMessage(`{"success":true}`)}},
	}}
	raw, err := WaitForJob(t.Context(), q, "job-1", fastWait)
	if err != nil || string(raw) != `{"success":true}` {
		t.Fatalf("raw=%s err=%v", raw, err)
	}
}

func TestWaitForJobStopsOnPermanentPollError(t *testing.T) {
	t.Parallel()
	permanent := &Error{Command: "queryAsyncJobResult", ErrorCode: 431, Text: "Unable to execute API command queryasyncjobresult due to invalid value"}
	q := &scriptedQuerier{script: []pollAnswer{{err: permanent}, pending()}}
	_, err := WaitForJob(t.Context(), q, "job-1", fastWait)
	if !errors.Is(err, permanent) || q.pollCount() != 1 {
		t.Fatalf("err=%v polls=%d", err, q.pollCount())
	}
}

func TestWaitForJobDeadline(t *testing.T) {
	t.Parallel()
	q := &scriptedQuerier{script: []pollAnswer{pending()}}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()

	_, err := WaitForJob(ctx, q, "job-7", fastWait)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Text, "job-7") || !strings.Contains(e.Text, "may still be running") {
		t.Fatalf("err = %v", err)
	}
	if q.pollCount() < 2 {
		t.Errorf("polls = %d, expected several within the deadline", q.pollCount())
	}
}

// A cancel must end the wait promptly both while sleeping between polls
// and while a poll is in flight.
func TestWaitForJobCancellation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		q    *scriptedQuerier
		opts WaitOptions
	}{
		{"sleeping", &scriptedQuerier{script: []pollAnswer{pending()}}, WaitOptions{Unit: time.Hour}},
		{"polling", &scriptedQuerier{block: true}, WaitOptions{Unit: time.Millisecond}},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := WaitForJob(ctx, tc.q, "job-1", tc.opts)
			errc <- err
		}()
		if tc.q.block {
			for tc.q.pollCount() == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		cancelled := time.Now()
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: err = %v", tc.name, err)
			}
		case <-time.After(30 * time.Second):
			// Far below the hour the sleeping case would otherwise wait,
			// and the polling case's querier never answers at all.
			t.Fatalf("%s: WaitForJob ignored the cancel at %s", tc.name, cancelled.Format(time.TimeOnly))
		}
	}
}

func TestWaitOptionsDefaults(t *testing.T) {
	t.Parallel()
	o := WaitOptions{}.withDefaults()
	if o.Unit != time.Second || o.MaxInterval != 5*time.Second || o.ProgressInterval != 30*time.Second ||
		o.Command != "queryAsyncJobResult" {
		t.Fatalf("defaults = %+v", o)
	}
	// The cap is 5 units unless set.
	if o := (WaitOptions{Unit: time.Millisecond}).withDefaults(); o.MaxInterval != 5*time.Millisecond {
		t.Errorf("MaxInterval at 1 ms units = %v", o.MaxInterval)
	}
}

func TestDecodeCreatedID(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"firewallrule":{"id":"fw-1","startport":2222}}`: "fw-1",
		`{"id":"x-2"}`: "x-2",
		`{"portforwardingrule":{"id":"pf-3","publicport":"2222"}}`: "pf-3",
	} {
		got, err := DecodeCreatedID(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("%s: %q %v", raw, got, err)
		}
	}
	if _, err := DecodeCreatedID(json.RawMessage(`{"success":true}`)); err == nil {
		t.Errorf("expected an error for a result without id")
	}
	if _, err := DecodeClusterJobResult(json.RawMessage(`{"success":true}`)); err == nil {
		t.Errorf("expected an error for a result without kubernetescluster")
	}
}

// A failed poll is not a failed job: one 530 (or 5xx, or a transport
// error) from queryAsyncJobResult itself is retried, and only jobstatus 2
// is a job failure.
func TestWaitForJobPollErrorIsNotJobFailure(t *testing.T) {
	t.Parallel()
	for _, pollErr := range []error{
		&Error{Command: "queryAsyncJobResult", ErrorCode: 530, HTTPStatus: 530, Text: "Injected failure of queryAsyncJobResult"},
		&Error{Command: "queryAsyncJobResult", HTTPStatus: 200, ErrorCode: 530, Text: "error object in a 200 answer"},
		&Error{Command: "queryAsyncJobResult", HTTPStatus: 502, Text: "HTTP 502"},
		&Error{Command: "queryAsyncJobResult", Err: errors.New("connection reset by peer"), Delivery: DeliverySentUnanswered},
		&Error{Command: "queryAsyncJobResult", ErrorCode: 534, Text: "resource unavailable"},
	} {
		q := &scriptedQuerier{script: []pollAnswer{{err: pollErr}, {err: pollErr}, pending(),
			{status: JobStatus{Status: JobSucceeded, Result: json.RawMessage(`{"kubernetescluster":{"id":"c-1"}}`)}}}}
		raw, err := WaitForJob(t.Context(), q, "job-1", fastWait)
		if err != nil || !strings.Contains(string(raw), "c-1") {
			t.Errorf("after poll error %v: raw=%s err=%v", pollErr, raw, err)
		}
	}
}

// Poll errors until the deadline leave the outcome unknown and name the
// last poll error; they are never a job failure.
func TestWaitForJobPollErrorsUntilDeadline(t *testing.T) {
	t.Parallel()
	pollErr := &Error{Command: "queryAsyncJobResult", ErrorCode: 530, HTTPStatus: 530, Text: "database is busy"}
	ctx := newExpiringContext()
	q := &scriptedQuerier{script: []pollAnswer{{err: pollErr}}, afterPoll: func(n int) {
		if n == 3 {
			ctx.expire() // the deadline passes after the third poll
		}
	}}
	_, err := WaitForJob(ctx, q, "job-9", fastWait)
	if IsJobFailure(err) || !IsJobOutcomeUnknown(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v: want an unknown outcome at the deadline, not a job failure", err)
	}
	for _, want := range []string{"job-9", "outcome is unknown", "last poll error", "database is busy"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if q.pollCount() < 3 {
		t.Errorf("polls = %d, want the poll retried until the deadline", q.pollCount())
	}
}

// 401, 431 and 432 from the poll, and a 200 answer that is not a job
// result, come back on every poll: the wait stops at once, the outcome
// unknown (not a job failure).
func TestWaitForJobFinalPollErrors(t *testing.T) {
	t.Parallel()
	for _, pollErr := range []*Error{
		{Command: "queryAsyncJobResult", ErrorCode: 401, HTTPStatus: 401, Text: "unable to verify user credentials"},
		{Command: "queryAsyncJobResult", ErrorCode: 431, HTTPStatus: 431, Text: "Unable to execute API command queryasyncjobresult due to invalid value"},
		{Command: "queryAsyncJobResult", ErrorCode: 432, HTTPStatus: 432, Text: "The given command does not exist"},
		{Command: "queryAsyncJobResult", HTTPStatus: 200, Text: "cannot decode the response; is the API URL a CloudStack API endpoint?"},
	} {
		q := &scriptedQuerier{script: []pollAnswer{{err: pollErr}, pending()}}
		_, err := WaitForJob(t.Context(), q, "job-2", fastWait)
		if q.pollCount() != 1 || IsJobFailure(err) || !IsJobOutcomeUnknown(err) || !errors.Is(err, pollErr) {
			t.Errorf("poll error %v: polls=%d err=%v", pollErr, q.pollCount(), err)
		}
		if !strings.Contains(fmt.Sprint(err), "outcome is unknown") {
			t.Errorf("error %q does not say the outcome is unknown", err)
		}
	}
}

func TestWaitForJobFailureIsMarked(t *testing.T) {
	t.Parallel()
	result := json.RawMessage(`{"errorcode":530,"errortext":"Failed to deploy"}`)
	q := &scriptedQuerier{script: []pollAnswer{{status: JobStatus{Status: JobFailed, ResultCode: 530, Result: result}}}}
	_, err := WaitForJob(t.Context(), q, "job-3", WaitOptions{Unit: time.Millisecond, Command: "createKubernetesCluster"})
	if !IsJobFailure(err) || IsJobOutcomeUnknown(err) || KindOf(err) != KindBusiness {
		t.Fatalf("err = %v: want a job failure", err)
	}
	if !IsJobFailure(fmt.Errorf("creating: %w", err)) {
		t.Error("a wrapped job failure is not recognised")
	}
}

// Through the real client: an HTTP 530 from queryAsyncJobResult itself
// (CloudStack's own error envelope) is retried like any failed poll.
func TestWaitForJobRetries530FromTheServer(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	var polls atomic.Int32
	fake.handle("queryAsyncJobResult", func(*http.Request, url.Values) (int, string) {
		if polls.Add(1) == 1 {
			return 530, `{"queryasyncjobresultresponse":{"errorcode":530,"cserrorcode":4250,"errortext":"Injected failure"}}`
		}
		return 200, `{"queryasyncjobresultresponse":{"jobid":"job-1","jobstatus":1,"jobresult":{"kubernetescluster":{"id":"c-1"}}}}`
	})
	c := newTestClient(t, fake.start().URL)
	raw, err := WaitForJob(t.Context(), c, "job-1", fastWait)
	if err != nil || !strings.Contains(string(raw), "c-1") || polls.Load() != 2 {
		t.Fatalf("raw=%s err=%v polls=%d", raw, err, polls.Load())
	}
}
