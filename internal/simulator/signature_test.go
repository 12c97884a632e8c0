package simulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

func assertAuthFailure(t *testing.T, status int, body []byte) {
	t.Helper()
	if status != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401: %s", status, body)
	}
	var env map[string]map[string]any
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("401 body %q: %v", body, err)
	}
	inner := env["listzonesresponse"]
	if inner["errorcode"] != float64(401) || inner["errortext"] != wire.AuthFailureText {
		t.Fatalf("401 body %s", body)
	}
}

func TestSignatureOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})

	// Good request through cloudstack-go, GET and POST.
	if _, err := e.cs.Zone.ListZones(e.cs.Zone.NewListZonesParams()); err != nil {
		t.Fatalf("signed GET: %v", err)
	}
	r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams("0b6f4a5e-0000-4000-8000-000000000000"))
	if err == nil || !strings.Contains(err.Error(), "CloudStack API error 431") {
		t.Fatalf("signed POST for an unknown id: %+v %v (want a 431, proving the signature passed)", r, err)
	}

	// A value with "~" and "*": Java's URLEncoder rules.
	status, body := signedGet(t, e.info.APIURL, e.info.APIKey, e.info.SecretKey, "listZones",
		url.Values{"keyword": {"sim*zone"}}, time.Now().Add(time.Minute))
	if status != 200 {
		t.Fatalf("keyword with *: HTTP %d %s", status, body)
	}

	// Bad secret.
	bad := cloudstack.NewClient(e.info.APIURL, e.info.APIKey, "wrong-secret", false)
	_, err = bad.Zone.ListZones(bad.Zone.NewListZonesParams())
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), wire.AuthFailureText) {
		t.Fatalf("bad secret: %v", err)
	}
	status, body = signedGet(t, e.info.APIURL, e.info.APIKey, "wrong-secret", "listZones", nil, time.Now().Add(time.Minute))
	assertAuthFailure(t, status, body)

	// Expired.
	status, body = signedGet(t, e.info.APIURL, e.info.APIKey, e.info.SecretKey, "listZones", nil, time.Now().Add(-time.Minute))
	assertAuthFailure(t, status, body)

	// Unknown api key and an unsigned request.
	status, body = signedGet(t, e.info.APIURL, "no-such-key", e.info.SecretKey, "listZones", nil, time.Now().Add(time.Minute))
	assertAuthFailure(t, status, body)
	resp, err := http.Get(e.info.APIURL + "?command=listZones&response=json&apiKey=" + url.QueryEscape(e.info.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	unsigned, _ := io.ReadAll(resp.Body)
	assertAuthFailure(t, resp.StatusCode, unsigned)
}
