package cloudstack

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// createOnce sends createKubernetesCluster once to c.
func createOnce(ctx context.Context, c *Client) error {
	_, err := c.CreateKubernetesCluster(ctx, CreateClusterParams{Name: "c", ZoneID: "z", KubernetesVersionID: "v",
		ServiceOfferingID: "o", Size: 1})
	return err
}

// closedURL is an API URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/client/api"
}

// A call's failure is classified by what is known about its request:
// never sent, sent and unanswered, or answered with an error.
func TestDeliveryOfCalls(t *testing.T) {
	t.Parallel()
	hangUp := func(w http.ResponseWriter) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Error("the test server cannot hijack")
			return
		}
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
	cases := []struct {
		name string
		// setup returns the client to use and whether the fake must have
		// received the request.
		setup        func(t *testing.T, fake *fakeCloudStack) *Client
		received     bool
		want         Delivery
		wantText     string
		reqTimeout   bool
		callerExpiry bool
	}{
		{name: "connection refused", want: DeliveryNotSent, wantText: "the request was never sent",
			setup: func(t *testing.T, _ *fakeCloudStack) *Client { return newTestClient(t, closedURL(t)) }},
		{name: "no such host", want: DeliveryNotSent, wantText: "no such host",
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				c := newTestClient(t, fake.start().URL)
				c.transport = &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
					return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "cloud.example", IsNotFound: true}}
				}}
				return c
			}},
		{name: "TLS handshake refused", want: DeliveryNotSent, wantText: "certificate",
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				srv := httptest.NewTLSServer(fake)
				t.Cleanup(srv.Close)
				return newTestClient(t, srv.URL)
			}},
		{name: "connection closed after the request", received: true, want: DeliverySentUnanswered, wantText: "may have carried it out",
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				fake.handle("createKubernetesCluster", okJSON("createKubernetesCluster", map[string]any{"id": "c-1", "jobid": "j-1"}))
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					fake.ServeHTTP(httptest.NewRecorder(), r)
					hangUp(w)
				}))
				t.Cleanup(srv.Close)
				return newTestClient(t, srv.URL)
			}},
		{name: "per-request timeout", received: true, want: DeliverySentUnanswered, wantText: "per-request timeout of 50ms", reqTimeout: true,
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				fake.handle("createKubernetesCluster", func(r *http.Request, _ url.Values) (int, string) {
					<-r.Context().Done()
					return 200, "{}"
				})
				return newTestClient(t, fake.start().URL, func(cfg *Config) { cfg.RequestTimeout = 50 * time.Millisecond })
			}},
		{name: "caller's deadline", received: true, want: DeliverySentUnanswered, callerExpiry: true,
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				fake.handle("createKubernetesCluster", func(r *http.Request, _ url.Values) (int, string) {
					<-r.Context().Done()
					return 200, "{}"
				})
				return newTestClient(t, fake.start().URL)
			}},
		{name: "answered with 530", received: true, want: DeliveryAnswered, wantText: "error 530",
			setup: func(t *testing.T, fake *fakeCloudStack) *Client {
				fake.handle("createKubernetesCluster", func(*http.Request, url.Values) (int, string) {
					return 530, `{"createkubernetesclusterresponse":{"errorcode":530,"errortext":"refused"}}`
				})
				return newTestClient(t, fake.start().URL)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeCloudStack(t)
			c := tc.setup(t, fake)
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if tc.callerExpiry {
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			err := createOnce(ctx, c)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if got := DeliveryOf(err); got != tc.want {
				t.Errorf("DeliveryOf = %v, want %v (%v)", got, tc.want, err)
			}
			if tc.wantText != "" && !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %q does not say %q", err, tc.wantText)
			}
			if IsRequestTimeout(err) != tc.reqTimeout {
				t.Errorf("IsRequestTimeout = %v, want %v (%v)", IsRequestTimeout(err), tc.reqTimeout, err)
			}
			if errors.Is(err, context.DeadlineExceeded) != tc.callerExpiry {
				t.Errorf("errors.Is(DeadlineExceeded) = %v, want %v: only the caller's deadline is its deadline (%v)",
					errors.Is(err, context.DeadlineExceeded), tc.callerExpiry, err)
			}
			if got := fake.callCount("createKubernetesCluster"); (got == 1) != tc.received || got > 1 {
				t.Errorf("the server received the create %d times (want received: %v); a mutation is sent once at most", got, tc.received)
			}
		})
	}
}

func TestDeliveryOfOtherErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want Delivery
	}{
		{nil, DeliveryUnknown},
		{errors.New("boom"), DeliveryUnknown},
		{&url.Error{Op: "Post", URL: "http://h", Err: &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}}, DeliveryNotSent},
		{&url.Error{Op: "Post", URL: "http://h", Err: &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}}, DeliverySentUnanswered},
		{&Error{HTTPStatus: 503, Text: "HTTP 503"}, DeliveryAnswered},
		{&Error{ErrorCode: 530, Text: "refused"}, DeliveryAnswered},
		{&Error{Err: context.DeadlineExceeded}, DeliverySentUnanswered},
		{&Error{Err: errors.New("x"), Delivery: DeliveryNotSent}, DeliveryNotSent},
	} {
		if got := DeliveryOf(tc.err); got != tc.want {
			t.Errorf("DeliveryOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
