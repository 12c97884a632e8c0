package wire

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // CloudStack's request signature is HMAC-SHA1.
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
)

// AuthFailureText is the 401 CloudStack answers for any credential problem; it
// never says which part was wrong.
const AuthFailureText = "unable to verify user credentials and/or request signature"

// expiresLayouts are the forms DateUtil.parseTZDateString accepts, plus the
// RFC 3339 "Z" form clients send.
var expiresLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05-0700",
	"2006-01-02T15:04:05.000-0700",
	"2006-01-02T15:04:05Z0700",
}

// VerifySignature checks a request the way ApiServer.verifyRequest does and
// returns the user the api key belongs to. now is the real time: expires is
// set by the client's clock, not the simulated one.
func VerifySignature(form url.Values, secretFor func(apiKey string) (string, bool), now time.Time) bool {
	apiKey := FirstValueFold(form, "apikey")
	signature := FirstValueFold(form, "signature")
	if apiKey == "" || signature == "" {
		return false
	}
	secret, ok := secretFor(apiKey)
	if !ok {
		return false
	}
	if FirstValueFold(form, "signatureversion") == "3" {
		expires, ok := parseExpires(FirstValueFold(form, "expires"))
		if !ok || !now.Before(expires) {
			return false
		}
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(canonicalQuery(form)))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return subtle.ConstantTimeCompare([]byte(want), []byte(signature)) == 1
}

// canonicalQuery is the lowercased, sorted name=URLEncoder(value) string
// that is signed. The first value of each name is used.
func canonicalQuery(form url.Values) string {
	names := make([]string, 0, len(form))
	for name := range form {
		if strings.EqualFold(name, "signature") {
			continue
		}
		names = append(names, name)
	}
	slices.SortFunc(names, javaCompare)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		value := ""
		if vs := form[name]; len(vs) > 0 {
			value = vs[0]
		}
		parts = append(parts, name+"="+strings.ReplaceAll(javaURLEncode(value), "+", "%20"))
	}
	return strings.ToLower(strings.Join(parts, "&"))
}

// javaCompare orders strings like Java's String.compareTo (UTF-16 code units).
func javaCompare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// javaURLEncode encodes like java.net.URLEncoder.encode(s, "UTF-8"): letters,
// digits and ".-*_" stay, space becomes "+", everything else (including "~")
// becomes %XX of its UTF-8 bytes.
func javaURLEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func parseExpires(v string) (time.Time, bool) {
	for _, layout := range expiresLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// FirstValueFold returns the first value of a parameter whose name matches
// case-insensitively.
func FirstValueFold(form url.Values, name string) string {
	if vs, ok := form[name]; ok && len(vs) > 0 {
		return vs[0]
	}
	for k, vs := range form {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}
