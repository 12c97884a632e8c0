package cloudstack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Client implements API on top of cloudstack-go's synchronous client. It is
// safe for concurrent use.
type Client struct {
	apiURL         string
	apiKey         string
	secretKey      string
	httpGetOnly    bool
	requestTimeout time.Duration
	retry          RetryPolicy
	pageSize       int
	transport      http.RoundTripper
	jar            http.CookieJar
}

var _ API = (*Client)(nil)

// callOpts describes how one command may be handled.
type callOpts struct {
	// read marks idempotent commands (list, get, query): they are retried on
	// transient errors. Everything else runs exactly once.
	read bool
	// raw means the caller decodes the response body itself, so a decoding
	// error from cloudstack-go's own structs on a 200 response is ignored.
	raw bool
}

// attemptResult carries fn's outcome out of the goroutine in attempt.
type attemptResult[T any] struct {
	val T
	ex  exchange
	err error
	// wrote is set when a request was written on a connection.
	wrote bool
	// abandoned is set when the caller's context ended before fn returned:
	// what the request went through is then not known.
	abandoned bool
}

// delivery says how far the attempt's request got (see Delivery).
func (r attemptResult[T]) delivery() Delivery {
	switch {
	case r.ex.status != 0:
		return DeliveryAnswered
	case r.abandoned || r.wrote:
		return DeliverySentUnanswered
	case r.ex.method == "" || neverSent(r.err):
		// The transport never got the request, or connecting failed.
		return DeliveryNotSent
	default:
		return DeliverySentUnanswered
	}
}

// call runs one API command. fn makes exactly one cloudstack-go call on the
// client it is given; call adds the context, timeout, retries, error
// classification and logging. The returned exchange holds the raw response.
func call[T any](ctx context.Context, c *Client, command string, opts callOpts,
	fn func(cs *csgo.CloudStackClient) (T, error),
) (T, exchange, error) {
	var zero T
	ctx = c.logContext(ctx, command)
	maxAttempts := 1
	if opts.read {
		maxAttempts = c.retry.MaxAttempts
	}
	for attempt := 1; ; attempt++ {
		start := time.Now()
		res := attempt1(ctx, c, fn)
		if res.err != nil && opts.raw && res.ex.status == http.StatusOK && isDecodeError(res.err) {
			res.err = nil
		}
		if res.err == nil && res.ex.status == http.StatusOK && errorInOKResponse(res.ex.body) != nil {
			// Taken as success, the error object would read as an empty
			// result: a list with nothing, a cluster "not found".
			res.err = errOKWithErrorObject
		}
		fields := map[string]any{
			"attempt":     attempt,
			"duration_ms": time.Since(start).Milliseconds(),
			"http_method": res.ex.method,
			"http_status": res.ex.status,
		}
		if res.err == nil {
			tflog.Debug(ctx, "CloudStack API call succeeded", fields)
			return res.val, res.ex, nil
		}
		cerr := c.toError(command, res.ex, res.err)
		cerr.Delivery = res.delivery()
		if cerr.Delivery != DeliveryAnswered && ctx.Err() == nil && errors.Is(res.err, context.DeadlineExceeded) {
			// The caller's context is alive, so the deadline that passed is
			// the per-request timeout: say so, and keep it apart from the
			// caller's own deadline.
			cerr.Err = &requestTimeoutError{after: c.requestTimeout, err: cerr.Err}
		}
		fields["error"] = cerr.Error()
		fields["delivery"] = cerr.Delivery.String()
		fields["error_kind"] = cerr.Kind().String()
		tflog.Debug(ctx, "CloudStack API call failed", fields)

		if attempt >= maxAttempts || cerr.Kind() != KindTransient || ctx.Err() != nil {
			return zero, res.ex, cerr
		}
		delay := c.retry.backoff(attempt, res.ex.retryAfter)
		tflog.Debug(ctx, "retrying CloudStack API read after a transient error", map[string]any{
			"attempt": attempt, "delay_ms": delay.Milliseconds(),
		})
		if !Sleep(ctx, delay) {
			return zero, res.ex, &Error{
				Command: command,
				Text:    fmt.Sprintf("stopped retrying after %d attempts (last error: %s)", attempt, cerr.Error()),
				Err:     ctx.Err(),
			}
		}
	}
}

// attempt1 makes one try with a fresh cloudstack-go client bound to ctx.
// cloudstack-go's requests carry no context and it sleeps between its own
// retries, so fn runs in a goroutine and a cancelled ctx returns at once;
// the in-flight request is aborted through the transport's context.
func attempt1[T any](ctx context.Context, c *Client, fn func(*csgo.CloudStackClient) (T, error)) attemptResult[T] {
	reqCtx, cancel := context.WithTimeout(ctx, c.requestTimeout)
	defer cancel()
	t := &callTransport{ctx: reqCtx, next: c.transport, secret: c.secretKey}
	cs := csgo.NewClient(c.apiURL, c.apiKey, c.secretKey, true,
		csgo.WithHTTPClient(&http.Client{Transport: t, Jar: c.jar}))
	cs.HTTPGETOnly = c.httpGetOnly

	done := make(chan attemptResult[T], 1)
	go func() {
		val, err := fn(cs)
		// t.ex is only written by requests that fn made, all finished now.
		done <- attemptResult[T]{val: val, ex: t.ex, err: err, wrote: t.wrote.Load()}
	}()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		return attemptResult[T]{err: ctx.Err(), wrote: t.wrote.Load(), abandoned: true}
	}
}

// toError classifies a failed call using the recorded HTTP exchange, which
// is more precise than cloudstack-go's formatted error.
func (c *Client) toError(command string, ex exchange, err error) *Error {
	var e Error
	switch {
	case ex.status != 0 && ex.status != http.StatusOK:
		e = *ParseErrorResponse(ex.status, ex.body)
	case ex.status == http.StatusOK && errorInOKResponse(ex.body) != nil:
		e = *errorInOKResponse(ex.body)
		e.HTTPStatus = http.StatusOK
	default:
		e = *ParseError(err)
		if ex.status == http.StatusOK && e.ErrorCode == 0 && isDecodeError(err) {
			e.HTTPStatus = http.StatusOK
			e.Text = "cannot decode the response; is the API URL a CloudStack API endpoint?"
		}
	}
	e.Command = command
	return &e
}

// errOKWithErrorObject marks a call whose HTTP 200 response holds a
// CloudStack error object; toError reads the error from the body.
var errOKWithErrorObject = errors.New("the HTTP 200 response holds a CloudStack error object")

// errorInOKResponse returns the CloudStack error object that a 200 response
// holds instead of a result, as some gateways and proxies answer, or nil.
func errorInOKResponse(body []byte) *Error {
	if !bytes.Contains(body, []byte(`"errorcode"`)) && !bytes.Contains(body, []byte(`"errortext"`)) {
		return nil // the common case, without parsing a large body twice
	}
	return parseErrorJSON(body)
}

func isDecodeError(err error) bool {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	return errors.As(err, &syntaxErr) || errors.As(err, &typeErr)
}

// backoff is the wait after the given failed attempt: exponential from
// BaseDelay, capped at MaxDelay, with jitter, and at least a server's
// Retry-After when that fits under the cap.
func (p RetryPolicy) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := p.MaxDelay
	if attempt < 30 {
		if exp := p.BaseDelay << (attempt - 1); exp > 0 && exp < p.MaxDelay {
			d = exp
		}
	}
	d = d/2 + jitter(d/2)
	if retryAfter > d {
		d = min(retryAfter, p.MaxDelay)
	}
	return d
}

// jitter returns a random duration in [0, d].
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// Sleep waits d or until ctx is done; it reports whether d elapsed.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// decodeEnvelope unwraps {"<command>response": {...}} into v.
func decodeEnvelope(body []byte, v any) error {
	var envelope map[string]json.RawMessage
	if err := json.Unmarshal(body, &envelope); err != nil {
		return fmt.Errorf("decoding response envelope: %w", err)
	}
	if len(envelope) != 1 {
		return fmt.Errorf("decoding response envelope: expected one top-level key, got %d", len(envelope))
	}
	for _, inner := range envelope {
		if err := json.Unmarshal(inner, v); err != nil {
			return fmt.Errorf("decoding response: %w", err)
		}
	}
	return nil
}
