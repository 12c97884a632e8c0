package cloudstack

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func zonesHandler() commandHandler {
	return okJSON("listZones", map[string]any{
		"count": 1,
		"zone":  []map[string]any{{"id": "z1", "name": "zone one"}},
	})
}

func createFirewallHandler() commandHandler {
	return okJSON("createFirewallRule", map[string]any{"id": "fw-1", "jobid": "job-1"})
}

func TestSigningVerifiesForGETAndPOST(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	fake.handle("createFirewallRule", createFirewallHandler())
	c := newTestClient(t, fake.start().URL)

	zones, err := c.ListZones(t.Context())
	if err != nil {
		t.Fatalf("ListZones: %v", err)
	}
	if len(zones) != 1 || zones[0].ID != "z1" || zones[0].Name != "zone one" {
		t.Fatalf("zones = %+v", zones)
	}
	ref, err := c.CreateFirewallRule(t.Context(), CreateFirewallRuleParams{
		IPAddressID: "ip-1", Protocol: "tcp", StartPort: 2222, EndPort: 2224, CIDRList: []string{"0.0.0.0/0", "10.0.0.0/8"},
	})
	if err != nil {
		t.Fatalf("CreateFirewallRule: %v", err)
	}
	if ref != (AsyncRef{ID: "fw-1", JobID: "job-1"}) {
		t.Fatalf("ref = %+v", ref)
	}
	if got := fake.recorded("listZones")[0].method; got != http.MethodGet {
		t.Errorf("listZones method = %s, want GET", got)
	}
	create := fake.recorded("createFirewallRule")[0]
	if create.method != http.MethodPost {
		t.Errorf("createFirewallRule method = %s, want POST", create.method)
	}
	if got := create.params.Get("cidrlist"); got != "0.0.0.0/0,10.0.0.0/8" {
		t.Errorf("cidrlist = %q", got)
	}
	if got := create.params.Get("startport") + "-" + create.params.Get("endport"); got != "2222-2224" {
		t.Errorf("ports = %s", got)
	}
}

func TestSigningHTTPGetOnlySendsMutationsAsGET(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("createFirewallRule", createFirewallHandler())
	c := newTestClient(t, fake.start().URL, func(cfg *Config) { cfg.HTTPGetOnly = true })

	if _, err := c.CreateFirewallRule(t.Context(), CreateFirewallRuleParams{IPAddressID: "ip-1", Protocol: "tcp"}); err != nil {
		t.Fatalf("CreateFirewallRule: %v", err)
	}
	if got := fake.recorded("createFirewallRule")[0].method; got != http.MethodGet {
		t.Errorf("method = %s, want GET", got)
	}
}

// Values with characters that Go and Java escape differently must still
// verify: '*' (cloudstack-go fixes it) and '~' (this package re-signs).
func TestSigningSpecialCharacters(t *testing.T) {
	t.Parallel()
	for _, getOnly := range []bool{false, true} {
		fake := newFakeCloudStack(t)
		fake.handle("createKubernetesCluster", okJSON("createKubernetesCluster", map[string]any{"id": "c-1", "jobid": "j-1"}))
		c := newTestClient(t, fake.start().URL, func(cfg *Config) { cfg.HTTPGetOnly = getOnly })
		p := CreateClusterParams{
			Name:                "k8s cluster*01",
			Description:         "café ~ (test) +plus &amp; 100% /path?x=y",
			ZoneID:              "z-1",
			KubernetesVersionID: "v-1",
			NodeOfferings:       map[string]string{"worker": "off-w", "control": "off-c", "etcd": "off-e"},
			ControlNodes:        1,
			EtcdNodes:           3,
			Size:                2,
		}
		ref, err := c.CreateKubernetesCluster(t.Context(), p)
		if err != nil {
			t.Fatalf("getOnly=%v: CreateKubernetesCluster: %v", getOnly, err)
		}
		if ref != (AsyncRef{ID: "c-1", JobID: "j-1"}) {
			t.Fatalf("ref = %+v", ref)
		}
		got := fake.recorded("createKubernetesCluster")[0].params
		if got.Get("description") != p.Description || got.Get("name") != p.Name {
			t.Errorf("values changed on the wire: %q %q", got.Get("name"), got.Get("description"))
		}
		if got.Has("serviceofferingid") {
			t.Errorf("empty serviceofferingid was sent")
		}
		if got.Get("nodeofferings[0].node") != "control" || got.Get("nodeofferings[0].offering") != "off-c" ||
			got.Get("nodeofferings[2].node") != "worker" {
			t.Errorf("nodeofferings encoding: %v", got)
		}
		if got.Get("etcdnodes") != "3" || got.Get("controlnodes") != "1" || got.Get("size") != "2" {
			t.Errorf("counts: %v", got)
		}
	}
}

func TestSigningTildeNeedsResign(t *testing.T) {
	t.Parallel()
	v := url.Values{"name": {"a~b"}, "signature": {"x"}}
	if !needsResign(v) {
		t.Fatal("a value with ~ must be re-signed")
	}
	if needsResign(url.Values{"name": {"a*b c"}, "signature": {"~"}}) {
		t.Fatal("only parameter values other than the signature matter")
	}
	if got, want := serverSignature(v, "s"), javaSignatureForTest(v, "s"); got != want {
		t.Fatalf("serverSignature = %s, test verifier = %s", got, want)
	}
}

func TestSigningBadSecretIsAuthError(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("listZones", zonesHandler())
	c := newTestClient(t, fake.start().URL, func(cfg *Config) { cfg.SecretKey = "wrong-secret-value" })

	_, err := c.ListZones(t.Context())
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	if e.Kind() != KindAuth || !IsAuth(err) || e.HTTPStatus != http.StatusUnauthorized || e.ErrorCode != http.StatusUnauthorized {
		t.Fatalf("kind=%v status=%d code=%d", e.Kind(), e.HTTPStatus, e.ErrorCode)
	}
	if e.Command != "listZones" {
		t.Errorf("command = %q", e.Command)
	}
	msg := err.Error()
	if !strings.Contains(msg, "unable to verify user credentials and/or request signature") {
		t.Errorf("message lacks the server text: %s", msg)
	}
	for _, secret := range []string{"wrong-secret-value", testAPIKey, "signature="} {
		if strings.Contains(msg, secret) {
			t.Errorf("message contains %q: %s", secret, msg)
		}
	}
	if n := fake.callCount("listZones"); n != 1 {
		t.Errorf("a 401 was retried: %d calls", n)
	}
}
