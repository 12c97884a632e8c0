// Package wire is the simulator's side of CloudStack's HTTP API format,
// below every area of the simulator: a request's parameters as the API
// layer hands them to a command (Params), the error responses and their
// codes (APIError, ApiErrorCode and CSExceptionErrorCode), the failures a
// job reports (ServerError, JavaException), the JSON envelope and the
// request signature (VerifySignature). It imports nothing of the simulator.
package wire
