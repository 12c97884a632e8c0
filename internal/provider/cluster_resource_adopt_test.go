package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// lossyProxy sits between the provider and the simulator and interferes
// with the next createKubernetesCluster calls: it closes the connection
// without an answer after forwarding the request (the cluster is created),
// before (it is not), or at once while forwarding it later (the cluster
// appears after the provider stopped looking); it lets somebody else create
// a cluster instead; it acts after a create that was answered; and it can
// stop listening right after the check the provider makes before a create,
// so that the create's connection is refused.
type lossyProxy struct {
	t       *testing.T
	target  *url.URL
	forward atomic.Int64 // calls to forward, then drop the answer
	drop    atomic.Int64 // calls to drop before forwarding
	late    atomic.Int64 // calls to drop at once and forward after lateDelay
	// instead runs instead of forwarding the next create, whose answer is
	// then lost.
	instead atomic.Pointer[func()]
	// after runs once after the next create that was answered.
	after atomic.Pointer[func()]
	// refuse stops the proxy listening after the next listKubernetesClusters.
	refuse atomic.Bool
	// rewrite, when set, rewrites the answer to every call of its command.
	rewrite atomic.Pointer[answerRewrite]

	mu   sync.Mutex
	addr string
	ln   net.Listener
	srv  *http.Server
	wg   sync.WaitGroup
}

// lateDelay is how long a late create waits before reaching CloudStack:
// far longer than the provider looks for a lost create in tests (150 ms),
// so that a slow machine cannot make the late create look timely.
const lateDelay = 3 * time.Second

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{t: t, target: &url.URL{Scheme: u.Scheme, Host: u.Host}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(func() {
		p.mu.Lock()
		if p.srv != nil {
			_ = p.srv.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// URL is the API URL to give the provider.
func (p *lossyProxy) URL() string { return "http://" + p.addr + "/client/api" }

func (p *lossyProxy) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(p.handle), ReadHeaderTimeout: 10 * time.Second}
	p.mu.Lock()
	p.ln, p.srv = ln, srv
	p.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// refuseAfterCheck makes the create's connection refused: the check before
// the create is answered on a connection that is then closed, and the
// proxy stops listening until resume.
func (p *lossyProxy) refuseAfterCheck() {
	p.mu.Lock()
	p.srv.SetKeepAlivesEnabled(false)
	p.mu.Unlock()
	p.refuse.Store(true)
}

// resume listens again on the same address, keep-alives on.
func (p *lossyProxy) resume() {
	p.refuse.Store(false)
	p.mu.Lock()
	old := p.srv
	p.mu.Unlock()
	_ = old.Close()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("listening again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *lossyProxy) handle(w http.ResponseWriter, r *http.Request) {
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
	rp := httputil.NewSingleHostReverseProxy(p.target)
	if rw := p.rewrite.Load(); rw != nil && strings.EqualFold(command, rw.command) {
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		writeRecorded(w, rec, rw.rewrite(rec.Body.Bytes()))
		return
	}
	if strings.EqualFold(command, "listKubernetesClusters") && p.refuse.CompareAndSwap(true, false) {
		// The listener closes before the answer goes out, so the client
		// cannot dial the create while it is still open (the kernel would
		// accept that connection, then reset it). A connection the client's
		// transport dialed ahead of need and keeps idle, still in the
		// listener's backlog, is reset by that close; the pause lets the
		// transport see the reset and drop it before the create picks it.
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		p.mu.Lock()
		_ = p.ln.Close()
		p.mu.Unlock()
		time.Sleep(200 * time.Millisecond)
		writeRecorded(w, rec, rec.Body.Bytes())
		return
	}
	if !strings.EqualFold(command, "createKubernetesCluster") {
		rp.ServeHTTP(w, r)
		return
	}
	if f := p.instead.Swap(nil); f != nil {
		(*f)()
		hangUp(w)
		return
	}
	switch {
	case p.drop.Add(-1) >= 0:
		hangUp(w)
	case p.forward.Add(-1) >= 0:
		rp.ServeHTTP(httptest.NewRecorder(), r)
		hangUp(w)
	case p.late.Add(-1) >= 0:
		hangUp(w)
		late := r.Clone(context.WithoutCancel(r.Context()))
		late.Body = io.NopCloser(bytes.NewReader(body))
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			time.Sleep(lateDelay)
			rp.ServeHTTP(httptest.NewRecorder(), late)
		}()
	default:
		rp.ServeHTTP(w, r)
		if f := p.after.Swap(nil); f != nil {
			(*f)()
		}
	}
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

// answerRewrite changes the answers to one command.
type answerRewrite struct {
	command string
	rewrite func([]byte) []byte
}

// onNextCreate sets a function run instead of the next create.
func (p *lossyProxy) onNextCreate(f func()) { p.instead.Store(&f) }

// afterNextCreate sets a function run after the next answered create.
func (p *lossyProxy) afterNextCreate(f func()) { p.after.Store(&f) }

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

// lossyClusterConfig is cks_cluster.test named name with size workers,
// through the proxy.
func (p *lossyProxy) lossyClusterConfig(env *simEnv, name string, size int) string {
	return fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
}

resource "cks_cluster" "test" {
  name                  = %q
  zone_id               = %q
  service_offering_id   = %q
  kubernetes_version_id = %q
  size                  = %d
}
`, p.URL(), env.Info.APIKey, env.Info.SecretKey, name, env.Info.ZoneID, env.Info.ServiceOfferingID,
		env.VersionID("1.33.13"), size)
}

// config is the cluster "adopted" of one worker through the proxy.
func (p *lossyProxy) config(env *simEnv) string {
	return p.lossyClusterConfig(env, "adopted", 1)
}

// importSteps import the cluster whose id *id holds (known only once the
// test runs) into cks_cluster.test with an import block, as the error's
// hint shows, and check that the state then holds it.
func importSteps(config string, id *string) []resource.TestStep {
	return []resource.TestStep{{
		Config: config + `
variable "import_id" {
  type = string
}

import {
  to = cks_cluster.test
  id = var.import_id
}
`,
		ConfigVariables: tfconfig.Variables{"import_id": lazyString{id}},
		Check: func(s *terraform.State) error {
			if got, err := clusterID(s); err != nil || got != *id {
				return fmt.Errorf("state holds %s (%v), want the imported %s", got, err, *id)
			}
			return nil
		},
	}}
}

// lazyString is a Terraform variable whose value is read when the step
// writes its variables, after the earlier steps set it.
type lazyString struct{ v *string }

func (l lazyString) MarshalJSON() ([]byte, error) { return json.Marshal(*l.v) }

// createOutOfBand creates a cluster named name with size workers through
// the API, as somebody else (or a lost create) would, and waits for it.
func (e *simEnv) createOutOfBand(t *testing.T, name string, size int64) string {
	t.Helper()
	ctx := context.Background()
	api := e.API
	ref, err := api.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{Name: name, ZoneID: e.Info.ZoneID,
		KubernetesVersionID: e.VersionID("1.33.13"), ServiceOfferingID: e.Info.ServiceOfferingID, ControlNodes: 1, Size: size})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Errorf("creating cluster %s out of band: %v", name, err)
	}
	return ref.ID
}

// liveIDs are the ids of the live clusters named name.
func (e *simEnv) liveIDs(name string) []string {
	var out []string
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed && c.Name == name {
			out = append(out, c.ID)
		}
	}
	return out
}

// TestAccCluster_lostCreateResponseAdopted loses the response of a create
// that CloudStack executed. The provider does not send the create again: it
// finds the one new cluster with that name whose every create parameter
// matches, waits for it and adopts it.
func TestAccCluster_lostCreateResponseAdopted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			PreConfig: func() { proxy.forward.Store(1) },
			Config:    proxy.config(env),
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("state", knownvalue.StringExact("Running")),
				expectAttr("nodes", nodeRoles("control", "worker")),
			},
			Check: func(s *terraform.State) error {
				id, err := clusterID(s)
				if err != nil {
					return err
				}
				d := env.Sim.DumpState()
				if len(d.Clusters) != 1 || d.Clusters[0].ID != id {
					return fmt.Errorf("want exactly the adopted cluster %s, the simulator has %+v", id, d.Clusters)
				}
				if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 1 {
					return fmt.Errorf("createKubernetesCluster was sent %d times, want once", n)
				}
				return nil
			},
		}},
	})
}

// TestAccCluster_lostCreateRequestNotRetried loses a create request before
// it reaches CloudStack. The provider finds no such cluster and fails
// clearly instead of retrying; the next apply creates the cluster.
func TestAccCluster_lostCreateRequestNotRetried(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { proxy.drop.Store(1) },
				Config:    proxy.config(env),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "adopted" got no answer`,
					"the request was sent but no answer came", `no cluster named "adopted" appeared`, "The create was not sent again"),
			},
			{
				PreConfig: func() {
					if n := env.liveClusters(); n != 0 {
						t.Fatalf("%d clusters exist after the lost request, want 0", n)
					}
				},
				Config: proxy.config(env),
				Check: func(*terraform.State) error {
					if n := env.liveClusters(); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_lostCreateOthersClusterNotAdopted: the create's answer is
// lost and it never ran, while somebody else created a cluster of the same
// name, zone and owner, with two workers. That cluster is not the one this
// create asked for: the provider names it, says how it differs and asks to
// import it rather than adopting it (which would have destroyed somebody
// else's cluster at the next apply). Importing it then works.
func TestAccCluster_lostCreateOthersClusterNotAdopted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	var theirs string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig: func() {
					proxy.onNextCreate(func() { theirs = env.createOutOfBand(t, "shared", 2) })
				},
				Config: proxy.lossyClusterConfig(env, "shared", 1),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "shared" got no answer`,
					"differ from the create's parameters, so none is adopted", "2 workers, not 1", "The create was not sent again",
					"terraform import <this resource's address>", "import {"),
			},
		}, importSteps(proxy.lossyClusterConfig(env, "shared", 2), &theirs)...),
	})
	if ids := env.liveIDs("shared"); len(ids) != 0 {
		t.Errorf("clusters left: %v", ids)
	}
}

// TestAccCluster_existingNameRefused: a cluster of the same name exists that
// no state knows about (made by a create whose answer was lost and that
// appeared late, or by a Terraform killed during create). The provider
// refuses to create a twin, names the cluster on the name attribute and shows
// how to import it; the import works.
func TestAccCluster_existingNameRefused(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	var existing string
	config := func(name string) string {
		return env.clusterHCL(name, fmt.Sprintf("  kubernetes_version_id = %q\n  size = 1\n", env.VersionID("1.33.13")))
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig: func() {
					existing = env.createOutOfBand(t, "Twin", 1)
					env.Sim.ResetCallCounts()
				},
				Config: config("twin"),
				ExpectError: errorFragments("Cluster Name Already Taken", `a Kubernetes cluster named "twin" already exists`,
					"so no other was created", "terraform import <this resource's address>", "import {", "create_before_destroy"),
			},
		}, importSteps(config("Twin"), &existing)...),
	})
	if n := env.Sim.CallCounts()["createKubernetesCluster"]; n != 0 {
		t.Errorf("the provider sent createKubernetesCluster %d times, want never", n)
	}
}

// TestAccCluster_lateCreateNotDuplicated: the create's answer is lost and
// CloudStack makes the cluster only after the provider stopped looking for
// it. The apply fails saying so; the next apply finds the cluster and refuses
// to create a second one, asking to import it.
func TestAccCluster_lateCreateNotDuplicated(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	var late string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: append([]resource.TestStep{
			{
				PreConfig:   func() { proxy.late.Store(1) },
				Config:      proxy.config(env),
				ExpectError: errorFragments("Unable to Create Cluster", `no cluster named "adopted" appeared`, "The create was not sent again"),
			},
			{
				PreConfig: func() {
					deadline := time.Now().Add(10 * time.Second)
					for len(env.liveIDs("adopted")) == 0 && time.Now().Before(deadline) {
						time.Sleep(50 * time.Millisecond)
					}
					ids := env.liveIDs("adopted")
					if len(ids) != 1 {
						t.Fatalf("the late create made %v", ids)
					}
					late = ids[0]
				},
				Config:      proxy.config(env),
				ExpectError: errorFragments("Cluster Name Already Taken", `named "adopted" already exists`, "terraform import"),
			},
		}, importSteps(proxy.config(env), &late)...),
	})
}

// TestAccCluster_createConnectionRefused: the create's connection is refused.
// The request was never sent, so nothing was created, and the error says so
// instead of calling the answer lost; the provider does not look for a
// cluster. The next apply creates it.
func TestAccCluster_createConnectionRefused(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.Sim.ResetCallCounts()
					proxy.refuseAfterCheck()
				},
				Config: proxy.config(env),
				ExpectError: errorFragments("Unable to Create Cluster", `createKubernetesCluster for "adopted" was never sent, so nothing was created`,
					"connection refused", "Check api_url"),
			},
			{
				PreConfig: func() {
					counts := env.Sim.CallCounts()
					if counts["createKubernetesCluster"] != 0 || counts["listKubernetesClusters"] != 1 {
						t.Fatalf("calls %v: want the check before the create only", counts)
					}
					proxy.resume()
				},
				Config: proxy.config(env),
				Check: func(*terraform.State) error {
					if n := env.liveClusters(); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// expectUntainted fails when cks_cluster.test is tainted.
func expectUntainted(s *terraform.State) error {
	rs, ok := s.RootModule().Resources[clusterAddr]
	if !ok {
		return fmt.Errorf("%s is not in state", clusterAddr)
	}
	if rs.Primary.Tainted {
		return fmt.Errorf("cluster %s is tainted although it is healthy", rs.Primary.ID)
	}
	return nil
}
