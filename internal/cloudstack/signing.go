package cloudstack

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// cloudstack-go signs values escaped by url.QueryEscape, which leaves '~'
// alone, while the server re-encodes them with Java's URLEncoder, which turns
// '~' into %7E. Any value with a '~' (a description, a name) therefore fails
// with 401. resignIfNeeded repairs such requests by signing them again the
// way the server's ApiServer.verifyRequest checks them; other requests are
// left untouched.

// needsResign reports whether cloudstack-go's signature cannot match.
func needsResign(v url.Values) bool {
	for k, vals := range v {
		if k == "signature" {
			continue
		}
		for _, s := range vals {
			if strings.Contains(s, "~") {
				return true
			}
		}
	}
	return false
}

// serverSignature computes the signature the way ApiServer.verifyRequest
// does: names sorted, values Java-URL-encoded with '+' as %20, the whole
// string lowercased, HMAC-SHA1 with the secret, base64.
func serverSignature(v url.Values, secret string) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		if k != "signature" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(javaURLEncode(val))
		}
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(b.String())))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// javaURLEncode encodes like java.net.URLEncoder (UTF-8) followed by the
// server's replacement of '+' with %20.
func javaURLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		default: // a space too: URLEncoder's '+' becomes %20 on the server
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0x0f])
		}
	}
	return b.String()
}

// resignIfNeeded returns req, or a copy with a server-compatible signature
// when cloudstack-go's signature cannot verify. req must already be a copy
// owned by the transport.
func resignIfNeeded(req *http.Request, secret string) (*http.Request, error) {
	switch req.Method {
	case http.MethodGet:
		// An unparsable query is sent as is; the server will say what is wrong.
		if q, perr := url.ParseQuery(req.URL.RawQuery); perr == nil && needsResign(q) {
			q.Set("signature", serverSignature(q, secret))
			u := *req.URL
			u.RawQuery = q.Encode()
			req.URL = &u
		}
		return req, nil
	case http.MethodPost:
		if req.Body == nil || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			return req, nil
		}
		raw, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		form, perr := url.ParseQuery(string(raw))
		if perr == nil && needsResign(form) {
			form.Set("signature", serverSignature(form, secret))
			raw = []byte(form.Encode())
		}
		setBody(req, raw)
		return req, nil
	default:
		return req, nil
	}
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}
