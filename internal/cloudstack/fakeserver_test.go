package cloudstack

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testAPIKey    = "AK-test-0123456789"
	testSecretKey = "SK-very-secret-9876543210"
)

// commandHandler answers one command; it returns the HTTP status and body.
type commandHandler func(r *http.Request, params url.Values) (int, string)

// fakeCloudStack is a minimal CloudStack API endpoint that checks request
// signatures the way ApiServer.verifyRequest does.
type fakeCloudStack struct {
	t        *testing.T
	apiKey   string
	secret   string
	mu       sync.Mutex
	handlers map[string]commandHandler
	calls    map[string]int
	requests []recordedRequest
	// failures are statuses returned, in order, before a command's handler runs.
	failures map[string][]int
}

type recordedRequest struct {
	command string
	method  string
	params  url.Values
}

func newFakeCloudStack(t *testing.T) *fakeCloudStack {
	t.Helper()
	return &fakeCloudStack{
		t:        t,
		apiKey:   testAPIKey,
		secret:   testSecretKey,
		handlers: map[string]commandHandler{},
		calls:    map[string]int{},
		failures: map[string][]int{},
	}
}

// start serves f over plain HTTP on loopback.
func (f *fakeCloudStack) start() *httptest.Server {
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	return srv
}

func (f *fakeCloudStack) handle(command string, h commandHandler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[command] = h
}

func (f *fakeCloudStack) failNext(command string, statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[command] = append(f.failures[command], statuses...)
}

func (f *fakeCloudStack) callCount(command string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[command]
}

func (f *fakeCloudStack) recorded(command string) []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []recordedRequest
	for _, r := range f.requests {
		if r.command == command {
			out = append(out, r)
		}
	}
	return out
}

// ServeHTTP implements http.Handler.
func (f *fakeCloudStack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	params := r.Form
	command := params.Get("command")

	f.mu.Lock()
	f.calls[command]++
	f.requests = append(f.requests, recordedRequest{command: command, method: r.Method, params: params})
	var failure int
	if q := f.failures[command]; len(q) > 0 {
		failure, f.failures[command] = q[0], q[1:]
	}
	h := f.handlers[command]
	f.mu.Unlock()

	if reason := f.verify(params); reason != "" {
		f.t.Logf("fake CloudStack refused %s: %s", command, reason)
		writeCSError(w, command, http.StatusUnauthorized, 0, "unable to verify user credentials and/or request signature")
		return
	}
	if failure != 0 {
		if failure == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		http.Error(w, http.StatusText(failure), failure)
		return
	}
	if h == nil {
		writeCSError(w, command, 432, 9999, "The given command does not exist or it is not available for the user")
		return
	}
	status, body := h(r, params)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// verify returns why the request's signature is refused, or "".
func (f *fakeCloudStack) verify(params url.Values) string {
	if params.Get("apiKey") != f.apiKey {
		return "unknown api key"
	}
	if params.Get("response") != "json" {
		return "response is not json"
	}
	if params.Get("signatureversion") == "3" {
		exp, err := time.Parse("2006-01-02T15:04:05Z", params.Get("expires"))
		if err != nil {
			return "bad expires"
		}
		if exp.Before(time.Now()) {
			return "expired"
		}
	}
	want := javaSignatureForTest(params, f.secret)
	if !hmac.Equal([]byte(want), []byte(params.Get("signature"))) {
		return "signature mismatch"
	}
	return ""
}

// javaSignatureForTest re-implements the server's check independently of
// the production code: sorted names, java.net.URLEncoder values with '+'
// replaced by %20, lowercased, HMAC-SHA1, base64.
func javaSignatureForTest(params url.Values, secret string) string {
	names := make([]string, 0, len(params))
	for name := range params {
		if name != "signature" {
			names = append(names, name)
		}
	}
	sort.Strings(names) // the same order as Java's String.compareTo for ASCII names
	pairs := make([]string, 0, len(names))
	for _, name := range names {
		pairs = append(pairs, name+"="+strings.ReplaceAll(javaURLEncoderForTest(params.Get(name)), "+", "%20"))
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(strings.Join(pairs, "&"))))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// javaURLEncoderForTest follows the java.net.URLEncoder documentation:
// alphanumerics and ".-*_" stay, space becomes '+', every other UTF-8 byte
// becomes %XY with upper-case hex.
func javaURLEncoderForTest(s string) string {
	const keep = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_"
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func writeCSError(w http.ResponseWriter, command string, code, csCode int, text string) {
	inner := map[string]any{"uuidList": []string{}, "errorcode": code, "errortext": text}
	if csCode != 0 {
		inner["cserrorcode"] = csCode
	}
	body, _ := json.Marshal(map[string]any{strings.ToLower(command) + "response": inner})
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// envelope wraps an object the way ApiResponseSerializer does.
func envelope(command string, inner any) string {
	body, err := json.Marshal(map[string]any{strings.ToLower(command) + "response": inner})
	if err != nil {
		panic(err)
	}
	return string(body)
}

// okJSON answers 200 with the given envelope contents.
func okJSON(command string, inner any) commandHandler {
	return func(*http.Request, url.Values) (int, string) { return http.StatusOK, envelope(command, inner) }
}

// newTestClient returns a Client for srvURL with fast retries.
func newTestClient(t *testing.T, srvURL string, mutate ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		APIURL:         srvURL,
		APIKey:         testAPIKey,
		SecretKey:      testSecretKey,
		RequestTimeout: 10 * time.Second,
		Retry:          RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}
