// Errors as the server answers them: every refusal and failure is an
// OpenAI-shaped error object, {"error": {"message", "type", "param",
// "code"}}, which every OpenAI client library reads and raises as its own
// error type. Messages say what is wrong and how to fix it; they never hold
// a credential, and a failed run's message is the runtime's user-facing one
// (the technical cause goes to the log).

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/runtime"
)

// The error types of the error objects, as OpenAI names its own.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typePermission     = "permission_error"
	typeNotFound       = "not_found_error"
	typeRateLimit      = "rate_limit_error"
	typeServer         = "server_error"
	typeTimeout        = "timeout_error"
	typeUpstream       = "upstream_error"
)

// The kinds of errors the errors_total metric counts.
const (
	kindAuth          = "unauthorized"
	kindInvalid       = "invalid_request"
	kindBodyTooLarge  = "body_too_large"
	kindHistory       = "history_too_long"
	kindNotFound      = "not_found"
	kindUnknownAgent  = "unknown_agent"
	kindQueueFull     = "queue_full"
	kindQueueTimeout  = "queue_timeout"
	kindDeadline      = "deadline"
	kindDisconnected  = "client_disconnected"
	kindShutdown      = "shutdown"
	kindIdentity      = "identity"
	kindConfig        = "config"
	kindToolBinding   = "tool_binding"
	kindToolCall      = "tool_call"
	kindInvalidOutput = "invalid_output"
	kindInternal      = "internal"
	kindMethod        = "method_not_allowed"
	kindOrigin        = "origin_refused"
	kindHost          = "host_refused"
	kindMediaType     = "unsupported_media_type"
	kindReadTimeout   = "read_timeout"
	kindLLMPrefix     = "llm_"
	statusClientGone  = 499 // the client closed the connection (nginx's code), for logs and metrics
	defaultRetryAfter = time.Second
)

// apiError is a refusal or failure, answered as an OpenAI error object.
type apiError struct {
	// Status is the HTTP status.
	Status int
	// Type, Param and Code are the error object's fields ("" is null).
	Type, Param, Code string
	// Message says what is wrong and how to fix it.
	Message string
	// Kind is the label of the errors_total metric.
	Kind string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter time.Duration
	// Header holds more headers to send (WWW-Authenticate, Allow).
	Header http.Header
}

// Error returns the message.
func (e *apiError) Error() string { return e.Message }

// errorBody is the JSON of an error object.
type errorBody struct {
	Error errorObject `json:"error"`
}

// errorObject is OpenAI's error object.
type errorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// object returns the error's JSON object.
func (e *apiError) object() errorObject {
	o := errorObject{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		o.Param = &e.Param
	}
	if e.Code != "" {
		o.Code = &e.Code
	}
	return o
}

// writeError answers with the error object.
func writeError(w http.ResponseWriter, e *apiError) {
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	writeJSON(w, e.Status, errorBody{e.object()})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"the answer could not be encoded","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// invalid returns a 400 error about param.
func invalid(param, code, format string, a ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: typeInvalidRequest, Param: param, Code: code,
		Message: fmt.Sprintf(format, a...), Kind: kindInvalid}
}

// misconfigured is the message of the errors of the server's
// configuration.
const misconfigured = "The assistant is not set up correctly. Please contact support."

// runError returns the error answered for a run that failed with err:
// the runtime's user-facing message, the status that fits its cause, and
// its kind; for a client that went away, the status 499 (nothing is
// answered then, but the outcome is logged and counted).
func runError(err error) *apiError {
	msg := runtime.UserMessage(err)
	var (
		le *runtime.LLMError
		ce *runtime.ConfigError
		pe *runtime.PrepareError
		te *runtime.ToolError
		ve *runtime.ValidationError
		oe *runtime.OutputError
	)
	switch {
	case errors.As(err, &ce) && errors.As(ce, &le):
		// A model key the model's server refuses (401, 403) is a
		// ConfigError wrapping its LLMError: the operator's to fix, not
		// the caller's, and no failure of the model.
		return &apiError{Status: http.StatusInternalServerError, Type: typeServer, Code: "misconfigured", Kind: kindConfig, Message: msg}
	case errors.As(err, &le):
		e := &apiError{Status: http.StatusBadGateway, Type: typeUpstream, Code: "model_error", Kind: kindLLMPrefix + string(le.Kind), Message: msg}
		switch le.Kind {
		case runtime.LLMTimeout:
			e.Status, e.Type, e.Code = http.StatusGatewayTimeout, typeTimeout, "model_timeout"
		case runtime.LLMRateLimit:
			e.Status, e.Code, e.RetryAfter = http.StatusServiceUnavailable, "model_rate_limited", 5*time.Second
		}
		return e
	case errors.As(err, &oe):
		// The model's answer never matched the agent's result type: a
		// failure of the model, which the caller may try again.
		return &apiError{Status: http.StatusBadGateway, Type: typeUpstream, Code: "invalid_output", Kind: kindInvalidOutput, Message: msg}
	case errors.Is(err, errShutdown):
		return &apiError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "shutting_down", Kind: kindShutdown,
			Message: "The server is shutting down and stopped this request. Please try again.", RetryAfter: defaultRetryAfter}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{Status: http.StatusGatewayTimeout, Type: typeTimeout, Code: "timeout", Kind: kindDeadline,
			Message: "That request took too long. Please try a simpler query."}
	case errors.Is(err, context.Canceled):
		return &apiError{Status: statusClientGone, Type: typeInvalidRequest, Code: "client_disconnected", Kind: kindDisconnected,
			Message: "the client closed the connection; the run was cancelled"}
	case errors.As(err, &pe):
		return &apiError{Status: http.StatusForbidden, Type: typePermission, Code: "missing_identity_claims", Kind: kindIdentity,
			Message: "Your credentials do not give the values this agent needs: " + identityProblems(pe) +
				". Ask the server's operator for a key (or token) whose identity has them."}
	case errors.As(err, &ce):
		return &apiError{Status: http.StatusInternalServerError, Type: typeServer, Code: "misconfigured", Kind: kindConfig, Message: msg}
	case errors.As(err, &te):
		return &apiError{Status: http.StatusInternalServerError, Type: typeServer, Code: "tool_unavailable", Kind: kindToolBinding, Message: msg}
	case errors.As(err, &ve):
		return &apiError{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "invalid_history", Kind: kindInvalid,
			Message: ve.Error()}
	}
	return &apiError{Status: http.StatusInternalServerError, Type: typeServer, Kind: kindInternal, Message: msg}
}

// runError returns the error answered for a run that failed with err (see
// runError): without credentials, missing injected values are the
// server's configuration's fault, not the caller's.
func (s *Server) runError(err error) *apiError {
	e := runError(err)
	if e.Kind == kindIdentity && s.auth == nil {
		return &apiError{Status: http.StatusInternalServerError, Type: typeServer, Code: "misconfigured", Kind: kindConfig, Message: misconfigured}
	}
	return e
}

// identityProblems names the injected parameters a run had no valid value
// for, and why.
func identityProblems(pe *runtime.PrepareError) string {
	var parts []string
	for _, p := range pe.Problems {
		var ie *runtime.InjectionError
		if errors.As(p, &ie) && ie.Tool != "" {
			parts = append(parts, fmt.Sprintf("%s (%s, for the tool %s): %s", ie.Param, ie.Type, ie.Tool,
				strings.Replace(ie.Message, "the host gave no value", "no value", 1)))
			continue
		}
		parts = append(parts, p.Error())
	}
	return strings.Join(parts, "; ")
}
