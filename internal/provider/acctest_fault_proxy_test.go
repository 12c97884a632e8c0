package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fault proxy of the acceptance tests: it sits between the provider
// and the simulator and breaks the next calls of the commands it is armed
// for, as networks, gateways and impatient clients do.

// fault is what the proxy does to one call.
type fault int

const (
	// hangUpUnsent closes the connection without an answer; CloudStack
	// never sees the call.
	hangUpUnsent fault = iota + 1
	// hangUpAfterRun lets CloudStack run the call, then closes the
	// connection without the answer.
	hangUpAfterRun
	// hangUpRunLate closes the connection at once and hands CloudStack the
	// call lateDelay later, after the provider stopped looking for it.
	hangUpRunLate
	// holdUnsent holds the call until the client gives up
	// (request_timeout); CloudStack never sees it.
	holdUnsent
	// holdAfterRun lets CloudStack run the call and holds the answer until
	// the client gives up.
	holdAfterRun
	// errorIn200 answers HTTP 200 with CloudStack's error object, as some
	// gateways do.
	errorIn200
)

// held tells whether the client waits for its own timeout.
func (f fault) held() bool { return f == holdUnsent || f == holdAfterRun }

// lateDelay is how long a late call waits before reaching CloudStack: far
// longer than the provider looks for a lost create in tests (150 ms), so
// that a slow machine cannot make the late create look timely.
const lateDelay = 3 * time.Second

// holdLimit bounds a held call in case the client never gives up, so that
// closing the proxy never hangs a test.
const holdLimit = 30 * time.Second

// faultProxy is the proxy. It listens on its own loopback address, which
// it can stop and resume.
type faultProxy struct {
	t      *testing.T
	target *url.URL

	mu       sync.Mutex
	faults   map[string][]fault             // command -> faults of its next calls, in order
	instead  map[string]func()              // command -> run instead of its next call, whose answer is lost
	after    map[string]func()              // command -> run after its next answered call
	rewrites map[string]func([]byte) []byte // command -> rewrites every answer
	refuse   string                         // command after whose next answer the proxy stops listening
	held     map[string]int                 // command -> calls held since the last disarm
	calls    map[string]int                 // command -> calls seen since the last disarm

	addr string
	ln   net.Listener
	srv  *http.Server
	wg   sync.WaitGroup
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, target: &url.URL{Scheme: u.Scheme, Host: u.Host}, faults: map[string][]fault{},
		instead: map[string]func(){}, after: map[string]func(){}, rewrites: map[string]func([]byte) []byte{},
		held: map[string]int{}, calls: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(func() {
		p.mu.Lock()
		_ = p.srv.Close()
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// URL is the API URL to give the provider.
func (p *faultProxy) URL() string { return "http://" + p.addr + "/client/api" }

func (p *faultProxy) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(p.handle), ReadHeaderTimeout: 10 * time.Second}
	p.mu.Lock()
	p.ln, p.srv = ln, srv
	p.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// arm queues f for the next n calls of the command, after what is queued.
func (p *faultProxy) arm(command string, f fault, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := strings.ToLower(command)
	for range n {
		p.faults[key] = append(p.faults[key], f)
	}
}

// rearm drops every fault and count, then arms f for the next n calls of
// each command.
func (p *faultProxy) rearm(f fault, n int, commands ...string) {
	p.disarm()
	for _, c := range commands {
		p.arm(c, f, n)
	}
}

// disarm drops the pending faults and the counts.
func (p *faultProxy) disarm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.faults)
	clear(p.held)
	clear(p.calls)
}

// insteadOfNext runs f instead of the next call of the command, whose
// answer is then lost (somebody else's create, for instance).
func (p *faultProxy) insteadOfNext(command string, f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.instead[strings.ToLower(command)] = f
}

// afterNext runs f once after the next answered call of the command.
func (p *faultProxy) afterNext(command string, f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.after[strings.ToLower(command)] = f
}

// rewrite changes every answer to the command.
func (p *faultProxy) rewrite(command string, f func([]byte) []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rewrites[strings.ToLower(command)] = f
}

// refuseAfterNext makes the connections after the next call of the command
// refused: that call is answered on a connection that is then closed, and
// the proxy stops listening until resume.
func (p *faultProxy) refuseAfterNext(command string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.srv.SetKeepAlivesEnabled(false)
	p.refuse = strings.ToLower(command)
}

// resume listens again on the same address, keep-alives on.
func (p *faultProxy) resume() {
	p.mu.Lock()
	p.refuse = ""
	old := p.srv
	p.mu.Unlock()
	_ = old.Close()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("listening again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

// heldAndRetried returns the commands whose call was held and that were
// then sent again, and the commands held but never sent again.
func (p *faultProxy) heldAndRetried() (retried, abandoned []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, n := range p.held {
		if p.calls[c] > n {
			retried = append(retried, c)
		} else {
			abandoned = append(abandoned, c)
		}
	}
	sort.Strings(retried)
	sort.Strings(abandoned)
	return retried, abandoned
}

// callPlan is what the proxy does to one call.
type callPlan struct {
	fault   fault
	instead func()
	rewrite func([]byte) []byte
	refuse  bool
}

// take decides what to do to a call of the command and counts it.
func (p *faultProxy) take(key string) callPlan {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[key]++
	var pl callPlan
	if f, ok := p.instead[key]; ok {
		delete(p.instead, key)
		return callPlan{instead: f}
	}
	if queue := p.faults[key]; len(queue) > 0 {
		pl.fault, p.faults[key] = queue[0], queue[1:]
		if pl.fault.held() {
			p.held[key]++
		}
		return pl
	}
	if p.refuse == key {
		p.refuse = ""
		pl.refuse = true
	}
	pl.rewrite = p.rewrites[key]
	return pl
}

// takeAfter returns, once, what runs after an answered call.
func (p *faultProxy) takeAfter(key string) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.after[key]
	delete(p.after, key)
	return f
}

func (p *faultProxy) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	command := r.URL.Query().Get("command")
	if form, err := url.ParseQuery(string(body)); err == nil && form.Get("command") != "" {
		command = form.Get("command")
	}
	key := strings.ToLower(command)
	rp := httputil.NewSingleHostReverseProxy(p.target)
	pl := p.take(key)
	switch {
	case pl.instead != nil:
		pl.instead()
		hangUp(w)
	case pl.fault != 0:
		p.inject(pl.fault, key, w, r, body, rp)
	case pl.refuse:
		p.answerThenRefuse(w, r, rp)
	case pl.rewrite != nil:
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		writeRecorded(w, rec, pl.rewrite(rec.Body.Bytes()))
	default:
		rp.ServeHTTP(w, r)
		if f := p.takeAfter(key); f != nil {
			f()
		}
	}
}

// inject does a fault to a call.
func (p *faultProxy) inject(f fault, key string, w http.ResponseWriter, r *http.Request, body []byte, rp *httputil.ReverseProxy) {
	switch f {
	case hangUpUnsent:
		hangUp(w)
	case hangUpAfterRun:
		rp.ServeHTTP(httptest.NewRecorder(), r)
		hangUp(w)
	case hangUpRunLate:
		hangUp(w)
		late := r.Clone(context.WithoutCancel(r.Context()))
		late.Body = io.NopCloser(bytes.NewReader(body))
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			time.Sleep(lateDelay)
			rp.ServeHTTP(httptest.NewRecorder(), late)
		}()
	case errorIn200:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = fmt.Fprintf(w, `{"%sresponse":{"uuidList":[],"errorcode":530,"cserrorcode":9999,"errortext":"Injected error object in an HTTP 200 answer"}}`, key)
	case holdUnsent, holdAfterRun:
		if f == holdAfterRun {
			// CloudStack runs the command even though the client goes away.
			rp.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithoutCancel(r.Context())))
		}
		select {
		case <-r.Context().Done():
		case <-time.After(holdLimit):
		}
	}
}

// answerThenRefuse answers the call, having closed the listener first so
// that the client cannot dial the next call while it is still open (the
// kernel would accept that connection, then reset it). A connection the
// client's transport dialed ahead of need and keeps idle, still in the
// listener's backlog, is reset by that close; the pause lets the transport
// see the reset and drop it before the next call picks it.
func (p *faultProxy) answerThenRefuse(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	rec := httptest.NewRecorder()
	rp.ServeHTTP(rec, r)
	p.mu.Lock()
	_ = p.ln.Close()
	p.mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	writeRecorded(w, rec, rec.Body.Bytes())
}

// writeRecorded sends a recorded answer with body, which may differ from
// the recorded one.
func writeRecorded(w http.ResponseWriter, rec *httptest.ResponseRecorder, body []byte) {
	for k, v := range rec.Header() {
		if !strings.EqualFold(k, "Content-Length") {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// hangUp closes the client's connection without writing a response.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("the test server does not support hijacking")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
