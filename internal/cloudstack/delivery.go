package cloudstack

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// Delivery says how far a failed API request got. It decides what a caller
// may conclude about a command that changes something: a request that was
// never sent changed nothing, one that was sent and not answered may have
// been carried out, and one that was answered with an error says so.
type Delivery int

const (
	// DeliveryUnknown is an error that says nothing about a request: nil,
	// or an error that did not come from sending one.
	DeliveryUnknown Delivery = iota
	// DeliveryNotSent means the request never left the client: the
	// connection was refused, the host name did not resolve, the TLS
	// handshake failed, or the request could not be built. CloudStack did
	// not receive it.
	DeliveryNotSent
	// DeliverySentUnanswered means the request was written (or may have
	// been) and no answer came: the per-request timeout ran out, the
	// connection was reset or closed, or the caller stopped waiting.
	// CloudStack may have carried it out.
	DeliverySentUnanswered
	// DeliveryAnswered means an HTTP answer came, and it was an error:
	// CloudStack's error object, or a status from something in front of it.
	DeliveryAnswered
)

// String names the delivery for logs.
func (d Delivery) String() string {
	switch d {
	case DeliveryNotSent:
		return "not_sent"
	case DeliverySentUnanswered:
		return "sent_unanswered"
	case DeliveryAnswered:
		return "answered"
	default:
		return "unknown"
	}
}

// Explain is a clause for messages: what the delivery means for the command.
func (d Delivery) Explain() string {
	switch d {
	case DeliveryNotSent:
		return "the request was never sent, so CloudStack did not receive it"
	case DeliverySentUnanswered:
		return "the request was sent but no answer came, so CloudStack may have carried it out"
	case DeliveryAnswered:
		return "CloudStack answered with an error"
	default:
		return "it is not known whether CloudStack received the request"
	}
}

// DeliveryOf classifies a failed call by what is known about its request.
// Errors of this package carry the classification made when the call
// failed; for other errors it is derived from the error itself, assuming
// the worst (sent, unanswered) unless the error proves the request never
// left.
func DeliveryOf(err error) Delivery {
	if err == nil {
		return DeliveryUnknown
	}
	var e *Error
	if errors.As(err, &e) {
		switch {
		case e.HTTPStatus != 0 || e.ErrorCode != 0:
			return DeliveryAnswered
		case e.Delivery != DeliveryUnknown:
			return e.Delivery
		}
		err = e.Err
		if err == nil {
			return DeliveryUnknown
		}
	}
	switch {
	case neverSent(err):
		return DeliveryNotSent
	case errors.Is(err, ErrRequestTimeout) || isTransientTransportError(err):
		return DeliverySentUnanswered
	}
	return DeliveryUnknown
}

// neverSent reports whether err proves that a request was not written: it
// failed while connecting (dial, name resolution, TLS handshake, proxy
// CONNECT), before any byte of the request could leave. Callers must also
// know that no request was written (a TLS alert can arrive later too).
func neverSent(err error) bool {
	if errors.Is(err, errRequestNotBuilt) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	return isTLSFailure(err)
}

// errRequestNotBuilt marks a request that failed before the transport got
// it (cloudstack-go or the re-signing could not build it).
var errRequestNotBuilt = errors.New("the request could not be built")

// ErrRequestTimeout marks a call whose single HTTP request ran out of the
// client's per-request timeout (Config.RequestTimeout). It is not the
// caller's deadline: errors.Is(err, context.DeadlineExceeded) is false for
// it, so that an operation's own timeout and a slow request are told apart.
var ErrRequestTimeout = errors.New("request timeout")

// requestTimeoutError is the error of a request that ran out of the
// per-request timeout.
type requestTimeoutError struct {
	after time.Duration
	err   error
}

func (e *requestTimeoutError) Error() string {
	return fmt.Sprintf("no answer within the per-request timeout of %s (%v)", e.after, e.err)
}

// Is makes errors.Is(err, ErrRequestTimeout) true; the underlying
// context.DeadlineExceeded is deliberately not exposed.
func (e *requestTimeoutError) Is(target error) bool { return target == ErrRequestTimeout }

// IsRequestTimeout reports whether err is a call that ran out of the
// per-request timeout (not the caller's deadline).
func IsRequestTimeout(err error) bool { return errors.Is(err, ErrRequestTimeout) }
