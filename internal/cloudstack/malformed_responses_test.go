package cloudstack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Malformed API responses: what a broken management server, a proxy or a
// half-closed connection sends instead of CloudStack's JSON. For list, get,
// create and job-query calls each must give a clear *Error (it names the
// command and says what was wrong), never a panic, never a success, and
// never an error that reads as "not found" (the provider drops a resource
// from state on not found).

// malformedBody is one bad response; %s stands for the lowercased command.
type malformedBody struct {
	name   string
	status int
	body   string
	// want is a fragment of the error text.
	want string
}

var malformedBodies = []malformedBody{
	{"truncated JSON", 200, `{"%sresponse":{"count":1,"items":[{"id":"c-1","na`, "decod"},
	{"truncated error envelope", 530, `{"%sresponse":{"uuidList":[],"errorcode":530,"cserror`, "HTTP 530"},
	{"wrong types: the response is a list", 200, `{"%sresponse":[1,2,3]}`, "decod"},
	{"wrong types: the response is a string", 200, `{"%sresponse":"ok"}`, "decod"},
	{"HTML error page from a proxy", 502, "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>", "HTTP 502"},
	{"HTML login page with status 200", 200, "<!DOCTYPE html><html><body>CloudStack login</body></html>", "decod"},
	{"empty body", 200, "", "decod"},
	{"empty body with an error status", 503, "", "HTTP 503"},
	{"JSON null", 200, "null", "null"},
	{"200 with an error object", 200, `{"%sresponse":{"uuidList":[],"errorcode":530,"cserrorcode":4250,"errortext":"Internal error executing command"}}`,
		"Internal error executing command"},
	{"200 with a bare error object", 200, `{"errorcode":530,"errortext":"Internal error executing command"}`, "Internal error executing command"},
}

// malformedCall is one client method and the command it sends.
type malformedCall struct {
	command string
	mutates bool
	run     func(ctx context.Context, c *Client) error
	// waits marks the job waiter, which retries transient (5xx) answers
	// until its context ends and then says it gave up.
	waits bool
}

var malformedCalls = []malformedCall{
	{"listKubernetesClusters", false, func(ctx context.Context, c *Client) error {
		_, err := c.ListKubernetesClusters(ctx, ListClustersParams{ListAll: true})
		return err
	}, false},
	{"listKubernetesClusters", false, func(ctx context.Context, c *Client) error {
		_, err := c.GetKubernetesCluster(ctx, "6f1c9a52-3d1e-4a8b-9d2c-8b1e2f3a4b5c")
		return err
	}, false},
	{"listVirtualMachines", false, func(ctx context.Context, c *Client) error {
		_, err := c.ListVirtualMachines(ctx, ListVMsParams{ListAll: true})
		return err
	}, false},
	{"listFirewallRules", false, func(ctx context.Context, c *Client) error {
		_, err := c.ListFirewallRules(ctx, ListRulesParams{ListAll: true})
		return err
	}, false},
	{"listKubernetesSupportedVersions", false, func(ctx context.Context, c *Client) error {
		_, err := c.ListKubernetesSupportedVersions(ctx, "zone-1")
		return err
	}, false},
	{"getKubernetesClusterConfig", false, func(ctx context.Context, c *Client) error {
		_, err := c.GetKubernetesClusterConfig(ctx, "c-1")
		return err
	}, false},
	{"createKubernetesCluster", true, func(ctx context.Context, c *Client) error {
		_, err := c.CreateKubernetesCluster(ctx, CreateClusterParams{Name: "c", ZoneID: "z", KubernetesVersionID: "v",
			ServiceOfferingID: "o", Size: 1})
		return err
	}, false},
	{"createFirewallRule", true, func(ctx context.Context, c *Client) error {
		_, err := c.CreateFirewallRule(ctx, CreateFirewallRuleParams{IPAddressID: "ip-1", Protocol: "tcp", StartPort: 2222, EndPort: 2223})
		return err
	}, false},
	{"queryAsyncJobResult", false, func(ctx context.Context, c *Client) error {
		_, err := c.QueryAsyncJob(ctx, "job-1")
		return err
	}, false},
	{"queryAsyncJobResult", false, func(ctx context.Context, c *Client) error {
		_, err := WaitForJob(ctx, c, "job-1", WaitOptions{Unit: time.Millisecond, MaxInterval: 2 * time.Millisecond})
		return err
	}, true},
}

func TestMalformedResponsesGiveClearErrors(t *testing.T) {
	t.Parallel()
	for i, call := range malformedCalls {
		for _, mb := range malformedBodies {
			t.Run(fmt.Sprintf("%s#%d/%s", call.command, i, mb.name), func(t *testing.T) {
				t.Parallel()
				fake := newFakeCloudStack(t)
				body := mb.body
				if strings.Contains(body, "%s") {
					body = fmt.Sprintf(body, strings.ToLower(call.command))
				}
				fake.handle(call.command, func(*http.Request, url.Values) (int, string) { return mb.status, body })
				c := newTestClient(t, fake.start().URL)

				// The job waiter retries transient poll errors until its
				// context ends, then names the last one.
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				defer cancel()
				err := runWithoutPanic(t, func() error { return call.run(ctx, c) })
				want := mb.want
				if call.waits && mb.status >= 500 && mb.status < 530 {
					want = "gave up waiting for async job job-1"
				}
				expectClearError(t, err, call.command, want)
				if call.mutates {
					if n := fake.callCount(call.command); n != 1 {
						t.Errorf("%s was sent %d times; a mutation must be sent once", call.command, n)
					}
				}
			})
		}
	}
}

// A job result that does not match what the job's command returns: the
// created cluster's id cannot be read, which must be an error too.
func TestMalformedJobResults(t *testing.T) {
	t.Parallel()
	results := []struct{ name, body, want string }{
		{"job status of the wrong type", `{"queryasyncjobresultresponse":{"jobid":"job-1","jobstatus":"done"}}`, "decod"},
		{"failed job with a malformed result", `{"queryasyncjobresultresponse":{"jobid":"job-1","jobstatus":2,"jobresultcode":530,"jobresult":"boom"}}`, "error 530: boom"},
	}
	for _, r := range results {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeCloudStack(t)
			fake.handle("queryAsyncJobResult", func(*http.Request, url.Values) (int, string) { return 200, r.body })
			c := newTestClient(t, fake.start().URL)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			err := runWithoutPanic(t, func() error {
				_, err := WaitForJob(ctx, c, "job-1", WaitOptions{Unit: time.Millisecond, MaxInterval: 2 * time.Millisecond})
				return err
			})
			if err == nil {
				t.Fatal("a malformed job result was taken as success")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the waiter polled a malformed job until its deadline instead of failing: %v", err)
			}
			if !strings.Contains(err.Error(), r.want) {
				t.Errorf("error %q does not mention %q", err, r.want)
			}
		})
	}
}

// runWithoutPanic turns a panic into a test failure with the stack's cause.
func runWithoutPanic(t *testing.T, fn func() error) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic on a malformed response: %v", p)
		}
	}()
	return fn()
}

// expectClearError checks that err is an *Error that names the command,
// holds want, does not read as "not found" and leaks no credential.
func expectClearError(t *testing.T, err error, command, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("a malformed response was taken as success")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %q is not a *cloudstack.Error", err, err)
	}
	msg := err.Error()
	if e.Command != command || !strings.Contains(msg, command) {
		t.Errorf("error %q does not name the command %s (Command %q)", msg, command, e.Command)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("error %q does not say %q", msg, want)
	}
	if IsNotFound(err) {
		t.Errorf("a malformed response reads as not found, which would drop the object from state: %q", msg)
	}
	for _, secret := range []string{testAPIKey, testSecretKey, "signature="} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q leaks %q", msg, secret)
		}
	}
}
