package cloudstack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// exchange is what one API call saw on the wire. cloudstack-go hides the
// HTTP status and drops fields it does not know, so callTransport keeps both.
type exchange struct {
	// method is set once the transport got the request; empty means the
	// request never reached it.
	method     string
	status     int
	retryAfter time.Duration
	body       []byte
}

// callTransport serves exactly one API call. cloudstack-go builds requests
// without a context, so this transport attaches the call's context (which
// carries cancellation and the request timeout) and records the response.
// It is not shared between goroutines: the call reads ex only after
// cloudstack-go has returned.
type callTransport struct {
	ctx    context.Context
	next   http.RoundTripper
	secret string
	ex     exchange
	// wrote is set when net/http has written (or begun writing) a request
	// on a connection; it is written from the transport's own goroutines,
	// and read also when the call was abandoned.
	wrote atomic.Bool
}

// RoundTrip implements http.RoundTripper.
func (t *callTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { t.wrote.Store(true) }}
	req = req.WithContext(httptrace.WithClientTrace(t.ctx, trace))
	req, err := resignIfNeeded(req, t.secret)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errRequestNotBuilt, err)
	}
	t.ex = exchange{method: req.Method}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.ex.status = resp.StatusCode
	t.ex.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	resp.Body = &recordingBody{ReadCloser: resp.Body, ex: &t.ex}
	return resp, nil
}

// recordingBody copies what cloudstack-go reads into the exchange.
type recordingBody struct {
	io.ReadCloser
	ex *exchange
}

// Read implements io.Reader.
func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.ex.body = append(b.ex.body, p[:n]...)
	return n, err
}

// parseRetryAfter understands the delay-seconds form; dates are ignored.
func parseRetryAfter(v string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || secs <= 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}
