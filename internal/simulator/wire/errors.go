package wire

import "fmt"

// HTTP-style API error codes (ApiErrorCode) and CloudStack exception codes
// (CSExceptionErrorCode) the simulator answers with.
const (
	CodeUnauthorized  = 401
	CodeParamError    = 431
	CodeUnsupported   = 432
	CodeInternalError = 530
	CodePermission    = 531
	CodeCapacity      = 533
	CodeRuleConflict  = 537

	CSCloudRuntime       = 4250
	CSInsufficientAddr   = 4320
	CSInvalidParameter   = 4350
	CSRuleConflict       = 4360
	CSPermissionDenied   = 4365
	CSServerAPIException = 9999
)

// APIError is a CloudStack error response: HTTP status = code.
type APIError struct {
	Code   int
	CSCode int // 0 omits cserrorcode
	Text   string
}

func (e *APIError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Text) }

// InvalidParam is InvalidParameterValueException as the API layer reports it
// outside a job: 431.
func InvalidParam(format string, args ...any) *APIError {
	return &APIError{Code: CodeParamError, CSCode: CSInvalidParameter, Text: fmt.Sprintf(format, args...)}
}

// InternalError is a CloudRuntimeException wrapped as INTERNAL_ERROR: 530.
func InternalError(format string, args ...any) *APIError {
	return &APIError{Code: CodeInternalError, CSCode: CSCloudRuntime, Text: fmt.Sprintf(format, args...)}
}

// PermissionDenied is PermissionDeniedException: 531.
func PermissionDenied(format string, args ...any) *APIError {
	return &APIError{Code: CodePermission, CSCode: CSPermissionDenied, Text: fmt.Sprintf(format, args...)}
}

// InsufficientAddressCapacity is InsufficientAddressCapacityException:
// 533, as a job reports a network without a free guest address.
func InsufficientAddressCapacity(format string, args ...any) *APIError {
	return &APIError{Code: CodeCapacity, CSCode: CSInsufficientAddr, Text: fmt.Sprintf(format, args...)}
}

// WithContext prefixes an error's text with what the CKS operation was
// doing. CKS workers wrap every failure in a CloudRuntimeException, which
// the job reports as 530 (BaseCmd wraps it in INTERNAL_ERROR), so the
// original codes stay only in
// the text.
func (e *APIError) WithContext(what string) *APIError {
	return &APIError{Code: CodeInternalError, CSCode: CSCloudRuntime, Text: what + ": " + e.Text}
}

// RuleConflict is NetworkRuleConflictException: 537.
func RuleConflict(text string) *APIError {
	return &APIError{Code: CodeRuleConflict, CSCode: CSRuleConflict, Text: text}
}

// MissingParam is the API layer's check of required parameters.
func MissingParam(command, name string) *APIError {
	return &APIError{Code: CodeParamError, CSCode: CSServerAPIException,
		Text: fmt.Sprintf("Unable to execute API command %s due to missing parameter %s", LowerCommand(command), name)}
}

// EntityNotFound is the API layer's answer to an id parameter that does not
// resolve (or is not a UUID).
func EntityNotFound(name, value string) *APIError {
	return &APIError{Code: CodeParamError, CSCode: CSInvalidParameter,
		Text: fmt.Sprintf("Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", name, value)}
}

// BadValue is a parameter that does not parse as its declared type.
func BadValue(command, name, value string) *APIError {
	return &APIError{Code: CodeParamError, CSCode: CSServerAPIException,
		Text: fmt.Sprintf("Unable to execute API command %s due to invalid value. Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", LowerCommand(command), name, value)}
}

// ServerError is a failure message as the management server words it
// (capitalised, sentence-like); jobs report it verbatim.
type ServerError struct{ Msg string }

func (e *ServerError) Error() string { return e.Msg }

// ServerErr formats a ServerError.
func ServerErr(format string, args ...any) error {
	return &ServerError{Msg: fmt.Sprintf(format, args...)}
}

// CSErrorFor picks the CloudStack exception code a fault-injected error
// code would normally carry.
func CSErrorFor(code int) int {
	switch code {
	case CodeParamError:
		return CSInvalidParameter
	case CodeInternalError:
		return CSCloudRuntime
	case CodeRuleConflict:
		return CSRuleConflict
	case CodePermission:
		return CSPermissionDenied
	case CodeUnauthorized:
		return 0
	default:
		return CSServerAPIException
	}
}

// JavaException is a Java exception a CKS worker does not catch (a
// NullPointerException, an IllegalArgumentException): the job dispatcher,
// ApiAsyncJobDispatcher.runJob, fails the job with 530 and the exception's
// message, and no state transition happens.
type JavaException struct {
	// Class is the exception's class; empty means
	// java.lang.NullPointerException.
	Class string
	Msg   string
}

func (e *JavaException) Error() string { return e.Msg }

// ClassName is the exception's class as the job log names it.
func (e *JavaException) ClassName() string {
	if e.Class == "" {
		return "java.lang.NullPointerException"
	}
	return e.Class
}
