package simulator

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // CloudStack signs with HMAC-SHA1.
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
)

func TestJavaURLEncode(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"abcXYZ019.-*_": "abcXYZ019.-*_",
		"a b":           "a+b",
		"~":             "%7E",
		"a+b":           "a%2Bb",
		"x=y&z":         "x%3Dy%26z",
		"é":             "%C3%A9",
		"/:":            "%2F%3A",
	}
	for in, want := range cases {
		if got := javaURLEncode(in); got != want {
			t.Errorf("javaURLEncode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCanonicalQuery(t *testing.T) {
	t.Parallel()
	form := url.Values{
		"command":   {"listZones"},
		"apiKey":    {"KEY"},
		"name":      {"a b*c~"},
		"Zebra":     {"1"},
		"signature": {"ignored"},
	}
	// Case-sensitive name order puts "Zebra" before "apiKey"; the whole
	// string is then lowercased.
	want := "zebra=1&apikey=key&command=listzones&name=a%20b*c%7e"
	if got := canonicalQuery(form); got != want {
		t.Fatalf("canonicalQuery = %q, want %q", got, want)
	}
}

func signWith(secret, query string) string {
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(query)))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 9, 12, 3, 0, 0, 0, time.UTC)
	secrets := func(k string) (string, bool) { return "SECRET", k == "KEY" }
	base := func(expires string) url.Values {
		v := url.Values{"apiKey": {"KEY"}, "command": {"listZones"}, "response": {"json"}}
		if expires != "" {
			v.Set("signatureversion", "3")
			v.Set("expires", expires)
		}
		v.Set("signature", signWith("SECRET", canonicalQuery(v)))
		return v
	}
	if !verifySignature(base(""), secrets, now) {
		t.Fatal("good signature without expiry rejected")
	}
	if !verifySignature(base("2026-09-12T03:15:00Z"), secrets, now) {
		t.Fatal("good signature with future expiry rejected")
	}
	if !verifySignature(base("2026-09-12T03:15:00+0000"), secrets, now) {
		t.Fatal("expires in yyyy-MM-dd'T'HH:mm:ssZ form rejected")
	}
	if verifySignature(base("2026-09-12T02:59:59Z"), secrets, now) {
		t.Fatal("expired request accepted")
	}
	if verifySignature(base("yesterday"), secrets, now) {
		t.Fatal("unparseable expires accepted")
	}
	noExpires := base("")
	noExpires.Set("signatureversion", "3")
	noExpires.Set("signature", signWith("SECRET", canonicalQuery(noExpires)))
	if verifySignature(noExpires, secrets, now) {
		t.Fatal("signatureversion=3 without expires accepted")
	}
	tampered := base("")
	tampered.Set("command", "listAccounts")
	if verifySignature(tampered, secrets, now) {
		t.Fatal("tampered request accepted")
	}
	unknown := base("")
	unknown.Set("apiKey", "OTHER")
	if verifySignature(unknown, secrets, now) {
		t.Fatal("unknown api key accepted")
	}
}

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
	if inner["errorcode"] != float64(401) || inner["errortext"] != authFailureText {
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
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), authFailureText) {
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
