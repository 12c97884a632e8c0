package wire

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // CloudStack signs with HMAC-SHA1.
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"
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
	if !VerifySignature(base(""), secrets, now) {
		t.Fatal("good signature without expiry rejected")
	}
	if !VerifySignature(base("2026-09-12T03:15:00Z"), secrets, now) {
		t.Fatal("good signature with future expiry rejected")
	}
	if !VerifySignature(base("2026-09-12T03:15:00+0000"), secrets, now) {
		t.Fatal("expires in yyyy-MM-dd'T'HH:mm:ssZ form rejected")
	}
	if VerifySignature(base("2026-09-12T02:59:59Z"), secrets, now) {
		t.Fatal("expired request accepted")
	}
	if VerifySignature(base("yesterday"), secrets, now) {
		t.Fatal("unparseable expires accepted")
	}
	noExpires := base("")
	noExpires.Set("signatureversion", "3")
	noExpires.Set("signature", signWith("SECRET", canonicalQuery(noExpires)))
	if VerifySignature(noExpires, secrets, now) {
		t.Fatal("signatureversion=3 without expires accepted")
	}
	tampered := base("")
	tampered.Set("command", "listAccounts")
	if VerifySignature(tampered, secrets, now) {
		t.Fatal("tampered request accepted")
	}
	unknown := base("")
	unknown.Set("apiKey", "OTHER")
	if VerifySignature(unknown, secrets, now) {
		t.Fatal("unknown api key accepted")
	}
}
