package simulator

import "fmt"

// HTTP-style API error codes (ApiErrorCode) and CloudStack exception codes
// (CSExceptionErrorCode) the simulator answers with.
const (
	codeUnauthorized  = 401
	codeParamError    = 431
	codeUnsupported   = 432
	codeInternalError = 530
	codePermission    = 531
	codeCapacity      = 533
	codeRuleConflict  = 537

	csCloudRuntime       = 4250
	csInsufficientAddr   = 4320
	csInvalidParameter   = 4350
	csRuleConflict       = 4360
	csPermissionDenied   = 4365
	csServerAPIException = 9999
)

// apiError is a CloudStack error response: HTTP status = code.
type apiError struct {
	code   int
	csCode int // 0 omits cserrorcode
	text   string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d: %s", e.code, e.text) }

// invalidParam is InvalidParameterValueException as the API layer reports it
// outside a job: 431.
func invalidParam(format string, args ...any) *apiError {
	return &apiError{code: codeParamError, csCode: csInvalidParameter, text: fmt.Sprintf(format, args...)}
}

// internalError is a CloudRuntimeException wrapped as INTERNAL_ERROR: 530.
func internalError(format string, args ...any) *apiError {
	return &apiError{code: codeInternalError, csCode: csCloudRuntime, text: fmt.Sprintf(format, args...)}
}

// permissionDenied is PermissionDeniedException: 531.
func permissionDenied(format string, args ...any) *apiError {
	return &apiError{code: codePermission, csCode: csPermissionDenied, text: fmt.Sprintf(format, args...)}
}

// insufficientAddressCapacity is InsufficientAddressCapacityException:
// 533, as a job reports a network without a free guest address.
func insufficientAddressCapacity(format string, args ...any) *apiError {
	return &apiError{code: codeCapacity, csCode: csInsufficientAddr, text: fmt.Sprintf(format, args...)}
}

// withContext prefixes an error's text with what the CKS operation was
// doing. CKS workers wrap every failure in a CloudRuntimeException, which
// the job reports as 530 (BaseCmd wraps it in INTERNAL_ERROR), so the
// original codes stay only in
// the text.
func (e *apiError) withContext(what string) *apiError {
	return &apiError{code: codeInternalError, csCode: csCloudRuntime, text: what + ": " + e.text}
}

// ruleConflict is NetworkRuleConflictException: 537.
func ruleConflict(text string) *apiError {
	return &apiError{code: codeRuleConflict, csCode: csRuleConflict, text: text}
}

// missingParam is the API layer's check of required parameters.
func missingParam(command, name string) *apiError {
	return &apiError{code: codeParamError, csCode: csServerAPIException,
		text: fmt.Sprintf("Unable to execute API command %s due to missing parameter %s", lowerCommand(command), name)}
}

// entityNotFound is the API layer's answer to an id parameter that does not
// resolve (or is not a UUID).
func entityNotFound(name, value string) *apiError {
	return &apiError{code: codeParamError, csCode: csInvalidParameter,
		text: fmt.Sprintf("Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", name, value)}
}

// badValue is a parameter that does not parse as its declared type.
func badValue(command, name, value string) *apiError {
	return &apiError{code: codeParamError, csCode: csServerAPIException,
		text: fmt.Sprintf("Unable to execute API command %s due to invalid value. Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", lowerCommand(command), name, value)}
}

// serverError is a failure message as the management server words it
// (capitalised, sentence-like); jobs report it verbatim.
type serverError struct{ msg string }

func (e *serverError) Error() string { return e.msg }

// serverErr formats a serverError.
func serverErr(format string, args ...any) error {
	return &serverError{msg: fmt.Sprintf(format, args...)}
}

// cserrorFor picks the CloudStack exception code a fault-injected error
// code would normally carry.
func cserrorFor(code int) int {
	switch code {
	case codeParamError:
		return csInvalidParameter
	case codeInternalError:
		return csCloudRuntime
	case codeRuleConflict:
		return csRuleConflict
	case codePermission:
		return csPermissionDenied
	case codeUnauthorized:
		return 0
	default:
		return csServerAPIException
	}
}

// javaException is a Java exception a CKS worker does not catch (a
// NullPointerException, an IllegalArgumentException): the job dispatcher,
// ApiAsyncJobDispatcher.runJob, fails the job with 530 and the exception's
// message, and no state transition happens.
type javaException struct {
	// class is the exception's class; empty means
	// java.lang.NullPointerException.
	class string
	msg   string
}

func (e *javaException) Error() string { return e.msg }

// className is the exception's class as the job log names it.
func (e *javaException) className() string {
	if e.class == "" {
		return "java.lang.NullPointerException"
	}
	return e.class
}
