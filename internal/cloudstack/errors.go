package cloudstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Kind says what a caller can do about an error.
type Kind int

const (
	// KindOther is any error the other kinds do not cover.
	KindOther Kind = iota
	// KindNotFound means the object does not exist (431 "entity does not
	// exist", or an empty list when asking by id).
	KindNotFound
	// KindConflict is a network rule conflict (537).
	KindConflict
	// KindAuth means the credentials or the request signature were refused (401).
	KindAuth
	// KindBusiness is CloudStack's internal error (530), which CKS uses for
	// nearly every validation and job failure.
	KindBusiness
	// KindTransient covers transport errors, timeouts, 429 and HTTP 5xx
	// errors below 530 (CloudStack's own 53x codes are not transient).
	KindTransient
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case KindNotFound:
		return "not_found"
	case KindConflict:
		return "conflict"
	case KindAuth:
		return "auth"
	case KindBusiness:
		return "business"
	case KindTransient:
		return "transient"
	default:
		return "other"
	}
}

// ErrNotFound marks an *Error built by this package for a lookup by id that
// matched nothing. Test with IsNotFound, which also recognises CloudStack's 431.
var ErrNotFound = errors.New("not found")

// Error is every error this package returns. Its message never contains the
// API key, the secret key or the request signature.
type Error struct {
	// Command is the CloudStack API command, e.g. "scaleKubernetesCluster".
	Command string
	// ErrorCode is CloudStack's errorcode (431, 530, 537, …), 0 if none.
	ErrorCode int
	// CSErrorCode is CloudStack's cserrorcode (4350, 4250, …), 0 if none.
	CSErrorCode int
	// Text is CloudStack's errortext or our own explanation.
	Text string
	// HTTPStatus is the HTTP status of the response, 0 if none arrived.
	HTTPStatus int
	// Err is the underlying Go error, with secrets removed.
	Err error
	// Delivery says how far the request got when no answer came (see
	// DeliveryOf, which also covers answered calls).
	Delivery Delivery
	// JobID is the async job the error is about, when it came from
	// waiting for one (WaitForJob).
	JobID string
	// JobFailed marks the failure of the job itself: queryAsyncJobResult
	// answered jobstatus 2. Every other error of WaitForJob (a poll that
	// failed, the end of the caller's deadline) leaves the job's outcome
	// unknown. Test with IsJobFailure.
	JobFailed bool
}

// Error formats the error without secrets.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("CloudStack API")
	if e.Command != "" {
		b.WriteString(" ")
		b.WriteString(e.Command)
	}
	switch {
	case e.ErrorCode != 0:
		fmt.Fprintf(&b, ": error %d", e.ErrorCode)
		if e.CSErrorCode != 0 {
			fmt.Fprintf(&b, " (cserrorcode %d)", e.CSErrorCode)
		}
		if e.Text != "" {
			b.WriteString(": ")
			b.WriteString(e.Text)
		}
	case e.Text != "":
		b.WriteString(": ")
		b.WriteString(e.Text)
		if e.Err != nil && !errors.Is(e.Err, ErrNotFound) {
			b.WriteString(": ")
			b.WriteString(e.Err.Error())
		}
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(": unknown error")
	}
	if e.HTTPStatus == 0 && e.ErrorCode == 0 && (e.Delivery == DeliveryNotSent || e.Delivery == DeliverySentUnanswered) {
		b.WriteString(" (")
		b.WriteString(e.Delivery.Explain())
		b.WriteString(")")
	}
	return redactSecrets(b.String())
}

// Unwrap returns the underlying error so errors.Is works with context errors.
func (e *Error) Unwrap() error { return e.Err }

// Kind classifies the error.
func (e *Error) Kind() Kind {
	if e == nil {
		return KindOther
	}
	if errors.Is(e.Err, ErrNotFound) {
		return KindNotFound
	}
	code := e.ErrorCode
	if code == 0 {
		code = e.HTTPStatus
	}
	switch {
	case code == 431:
		if strings.Contains(strings.ToLower(e.Text), "entity does not exist") {
			return KindNotFound
		}
		return KindOther
	case code == 537:
		return KindConflict
	case code == http.StatusUnauthorized:
		return KindAuth
	case code == 530:
		return KindBusiness
	case code == http.StatusTooManyRequests:
		return KindTransient
	case code >= 500 && code < 530:
		return KindTransient
	case code != 0 && code != http.StatusOK:
		return KindOther
	}
	if e.Err != nil && isTransientTransportError(e.Err) {
		return KindTransient
	}
	return KindOther
}

// NewNotFoundError is the error for a lookup by id that matched nothing.
func NewNotFoundError(command, what, id string) *Error {
	return &Error{Command: command, Text: fmt.Sprintf("%s %s does not exist", what, id), Err: ErrNotFound}
}

// KindOf classifies any error; errors not from this package are parsed first.
func KindOf(err error) Kind {
	if err == nil {
		return KindOther
	}
	return ParseError(err).Kind()
}

// IsNotFound reports whether err means that the object does not exist.
func IsNotFound(err error) bool { return err != nil && KindOf(err) == KindNotFound }

// IsAddressReleased reports whether err is CloudStack refusing to list the
// rules of a public IP that is no longer allocated: FirewallManagerImpl.
// listFirewallRules and RulesManagerImpl.listPortForwardingRules answer 431
// "Ip address id=<id> not ready for firewall rules yet" (or "port
// forwarding rules") for an IP whose state is not Allocated
// (IPAddressVO.readyToUse), such as a VPC cluster's IP its destroy released.
// Releasing an IP revokes every rule on it.
func IsAddressReleased(err error) bool {
	if err == nil {
		return false
	}
	e := ParseError(err)
	code := e.ErrorCode
	if code == 0 {
		code = e.HTTPStatus
	}
	text := strings.ToLower(e.Text)
	return code == 431 && strings.Contains(text, "ip address") && strings.Contains(text, "not ready for")
}

// IsConflict reports whether err is a network rule conflict (537).
func IsConflict(err error) bool { return err != nil && KindOf(err) == KindConflict }

// IsTransient reports whether retrying the same read may succeed.
func IsTransient(err error) bool { return err != nil && KindOf(err) == KindTransient }

// IsAuth reports whether CloudStack refused the credentials (401).
func IsAuth(err error) bool { return err != nil && KindOf(err) == KindAuth }

// IsJobFailure reports whether err is the failure of an async job itself
// (jobstatus 2), as WaitForJob returns it. A failed poll, or a wait that
// ended before the job did, is not a job failure: the job's outcome is
// unknown then (see IsJobOutcomeUnknown).
func IsJobFailure(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.JobFailed
}

// IsJobOutcomeUnknown reports whether err ended a wait for an async job
// without learning how the job ended: the caller's deadline or
// cancellation, or a poll error that repeating cannot cure.
func IsJobOutcomeUnknown(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.JobID != "" && !e.JobFailed
}

var (
	// cloudstack-go formats HTTP errors as this (CSError.Error).
	csErrorPattern = regexp.MustCompile(`(?s)CloudStack API error (\d+) \(CSExceptionErrorCode: (\d+)\): (.*)`)
	// cloudstack-go's GetAsyncJobResult formats failed jobs as this.
	undefinedErrorPrefix = "Undefined error: "
	// Request parameters that must never show in a message.
	secretParamPattern = regexp.MustCompile(`(?i)\b(apikey|signature|secretkey|secret_key|api_key|dockerregistrypassword)=[^&\s"']*`)
)

// ParseError turns any error from cloudstack-go, net/http or this package into
// an *Error. It understands cloudstack-go's "CloudStack API error %d
// (CSExceptionErrorCode: %d): %s" text, its "Undefined error: {json}" job
// failure text, raw JSON error envelopes, *url.Error, net errors and context
// errors. It returns nil for a nil error. Command is left empty unless err is
// already an *Error.
func ParseError(err error) *Error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	e := &Error{Err: sanitizeError(err)}
	msg := err.Error()
	// The JSON forms come first: a failed job's errortext may itself quote
	// cloudstack-go's "CloudStack API error" format.
	if rest, ok := strings.CutPrefix(msg, undefinedErrorPrefix); ok {
		if p := parseErrorObject([]byte(rest)); p != nil {
			p.Err = e.Err
			return p
		}
	}
	if trimmed := strings.TrimSpace(msg); strings.HasPrefix(trimmed, "{") {
		if p := parseErrorJSON([]byte(trimmed)); p != nil {
			p.Err = e.Err
			return p
		}
	}
	if m := csErrorPattern.FindStringSubmatch(msg); m != nil {
		e.ErrorCode, _ = strconv.Atoi(m[1])
		e.CSErrorCode, _ = strconv.Atoi(m[2])
		e.Text = strings.TrimSpace(m[3])
		return e
	}
	return e
}

// ParseErrorResponse builds an *Error from an HTTP status and response body.
// It accepts CloudStack's envelope {"<cmd>response":{"errorcode":…}} and a bare
// {"errorcode":…} object. It returns nil for a 200 response that carries no
// error; a non-200 body that is not a CloudStack error gives an *Error that
// names the HTTP status.
func ParseErrorResponse(httpStatus int, body []byte) *Error {
	if e := parseErrorJSON(body); e != nil {
		e.HTTPStatus = httpStatus
		return e
	}
	if httpStatus == http.StatusOK || httpStatus == 0 {
		return nil
	}
	text := fmt.Sprintf("HTTP %d %s", httpStatus, http.StatusText(httpStatus))
	if httpStatus < 500 && httpStatus != http.StatusTooManyRequests {
		text += "; the response is not a CloudStack API error, is the API URL right?"
	}
	return &Error{HTTPStatus: httpStatus, Text: text}
}

// errorFields is the error object CloudStack puts in error envelopes and in
// a failed job's jobresult.
type errorFields struct {
	ErrorCode   *flexInt `json:"errorcode"`
	CSErrorCode flexInt  `json:"cserrorcode"`
	ErrorText   *string  `json:"errortext"`
}

// parseErrorJSON accepts an envelope with one top-level key or a bare error object.
func parseErrorJSON(body []byte) *Error {
	if e := parseErrorObject(body); e != nil {
		return e
	}
	var envelope map[string]json.RawMessage
	// Not JSON, or not an envelope: there is no CloudStack error to report.
	if !decodes(body, &envelope) || len(envelope) != 1 {
		return nil
	}
	for _, inner := range envelope {
		return parseErrorObject(inner)
	}
	return nil
}

// parseErrorObject parses {"errorcode":…,"errortext":…}; nil if it is not one.
func parseErrorObject(body []byte) *Error {
	var f errorFields
	if !decodes(body, &f) {
		return nil
	}
	if f.ErrorCode == nil && f.ErrorText == nil {
		return nil
	}
	e := &Error{CSErrorCode: int(f.CSErrorCode)}
	if f.ErrorCode != nil {
		e.ErrorCode = int(*f.ErrorCode)
	}
	if f.ErrorText != nil {
		e.Text = *f.ErrorText
	}
	return e
}

// decodes reports whether body is JSON that fits v.
func decodes(body []byte, v any) bool {
	return json.Unmarshal(body, v) == nil
}

// isTransientTransportError reports whether a request that failed before a
// CloudStack answer arrived is worth retrying.
func isTransientTransportError(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRequestTimeout) {
		return true
	}
	// TLS failures are configuration problems; retrying cannot fix them.
	if isTLSFailure(err) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTimeout || dnsErr.IsTemporary
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// isTLSFailure reports whether err is a failed TLS handshake: a
// certificate refused, or a peer that does not speak TLS or alerts.
func isTLSFailure(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostnameErr      x509.HostnameError
		certInvalid      x509.CertificateInvalidError
		verifyErr        *tls.CertificateVerificationError
		recordErr        tls.RecordHeaderError
		alertErr         tls.AlertError
	)
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostnameErr) || errors.As(err, &certInvalid) ||
		errors.As(err, &verifyErr) || errors.As(err, &recordErr) || errors.As(err, &alertErr)
}

// sanitizeError removes the query string (apiKey, signature) from URLs in
// *url.Error, which net/http puts in front of every transport error.
func sanitizeError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: redactURL(ue.URL), Err: ue.Err}
	}
	return err
}

// redactURL drops the query and any user info of a URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i]
		}
		return raw
	}
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.User = nil
	return u.String()
}

// redactSecrets masks any apiKey=/signature= (or docker registry password)
// parameter left in a message.
func redactSecrets(s string) string {
	return secretParamPattern.ReplaceAllString(s, "$1=REDACTED")
}
