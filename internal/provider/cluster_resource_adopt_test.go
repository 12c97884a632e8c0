package provider

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// lossyProxy sits between the provider and the simulator and loses the
// response to the next createKubernetesCluster calls: it closes the
// connection without an answer, after forwarding the request (the cluster
// is created) or before (it is not).
type lossyProxy struct {
	server  *httptest.Server
	forward atomic.Int64 // calls to forward, then drop the response
	drop    atomic.Int64 // calls to drop before forwarding
}

func newLossyProxy(t *testing.T, target string) *lossyProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	p.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		if !strings.EqualFold(command, "createKubernetesCluster") {
			rp.ServeHTTP(w, r)
			return
		}
		switch {
		case p.drop.Add(-1) >= 0:
			hangUp(w)
		case p.forward.Add(-1) >= 0:
			rp.ServeHTTP(httptest.NewRecorder(), r)
			hangUp(w)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(p.server.Close)
	return p
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

// config is the cluster configuration with the provider pointing at the proxy.
func (p *lossyProxy) config(t *testing.T, env *simEnv) string {
	return fmt.Sprintf(`
provider "cks" {
  api_url    = %q
  api_key    = %q
  secret_key = %q
}

resource "cks_cluster" "test" {
  name                  = "adopted"
  zone_id               = %q
  service_offering_id   = %q
  kubernetes_version_id = %q
  size                  = 1
}
`, p.server.URL+"/client/api", env.Info.APIKey, env.Info.SecretKey, env.Info.ZoneID, env.Info.ServiceOfferingID, env.VersionID(t, "1.33.13"))
}

// TestAccCluster_lostCreateResponseAdopted loses the response of a create
// that CloudStack executed. The provider does not send the create again: it
// finds the one cluster with that name, zone and owner created in the last
// minutes, waits for it and adopts it.
func TestAccCluster_lostCreateResponseAdopted(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newLossyProxy(t, env.Info.APIURL)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			PreConfig: func() { proxy.forward.Store(1) },
			Config:    proxy.config(t, env),
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
				PreConfig:   func() { proxy.drop.Store(1) },
				Config:      proxy.config(t, env),
				ExpectError: errorFragments("Unable to Create Cluster", "createKubernetesCluster got no answer", `no cluster named "adopted"`, "The create was not sent again"),
			},
			{
				PreConfig: func() {
					if n := env.liveClusters(); n != 0 {
						t.Fatalf("%d clusters exist after the lost request, want 0", n)
					}
				},
				Config: proxy.config(t, env),
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
