// The typed errors of a run. Each has a short message meant for the end user
// of an agent ([UserError]) and wraps the technical cause, which is for logs
// and operators. None of them ever contains an API key.

package runtime

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// UserError is implemented by the errors of this package: UserMessage is a
// short, non-technical message that can be shown to the end user of an
// agent.
type UserError interface {
	error
	UserMessage() string
}

// UserMessage returns the user-facing message of err: its own when it (or
// an error it wraps) is a [UserError], a generic apology otherwise.
func UserMessage(err error) string {
	for e := err; e != nil; {
		if u, ok := e.(UserError); ok {
			return u.UserMessage()
		}
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			e = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				if msg := UserMessage(y); msg != genericMessage {
					return msg
				}
			}
			return genericMessage
		default:
			e = nil
		}
	}
	return genericMessage
}

const genericMessage = "An unexpected error occurred. Please try again or contact support."

// ValidationError is invalid input to [Run], such as an empty message.
type ValidationError struct {
	// Field names what is invalid ("input", "agent").
	Field string
	// Message says what is wrong.
	Message string
}

// Error returns "invalid FIELD: MESSAGE".
func (e *ValidationError) Error() string { return "invalid " + e.Field + ": " + e.Message }

// UserMessage implements [UserError].
func (e *ValidationError) UserMessage() string {
	if e.Field == "input" {
		return "Please enter a message."
	}
	return "I couldn't understand that request. Please try rephrasing."
}

// ConfigError is a run that cannot start because of its configuration: a
// missing API key, an unknown provider, a provider without a base URL.
type ConfigError struct {
	// Message says what is wrong.
	Message string
	// Hint says how to fix it.
	Hint string
	// Err is the cause, if any.
	Err error
}

// Error returns the message and the cause; the hint is separate.
func (e *ConfigError) Error() string {
	s := "configuration: " + e.Message
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// UserMessage implements [UserError].
func (e *ConfigError) UserMessage() string {
	return "The assistant is not set up correctly. Please contact support."
}

// LLMErrorKind classifies an [LLMError].
type LLMErrorKind string

// The kinds of LLM API errors.
const (
	// LLMNetwork: the server could not be reached, or the connection failed.
	LLMNetwork LLMErrorKind = "network"
	// LLMStatus: the server answered with an error status.
	LLMStatus LLMErrorKind = "status"
	// LLMRateLimit: the server kept answering 429 Too Many Requests.
	LLMRateLimit LLMErrorKind = "rate_limit"
	// LLMTimeout: a call took longer than the agent's timeout.
	LLMTimeout LLMErrorKind = "timeout"
	// LLMBadResponse: the server's answer could not be used (no choices,
	// a recording that does not match, ...).
	LLMBadResponse LLMErrorKind = "bad_response"
)

// LLMError is a failed call to the model's API, after any retries.
type LLMError struct {
	// Kind classifies the failure.
	Kind LLMErrorKind
	// StatusCode is the HTTP status of the last attempt, 0 if there was
	// none.
	StatusCode int
	// Attempts is the number of requests made.
	Attempts int
	// Timeout is the per-call limit that was exceeded, for LLMTimeout.
	Timeout time.Duration
	// Message is the API's own error message, if it gave one (with anything
	// that looks like a key masked).
	Message string
	// Err is the cause.
	Err error
}

// Error describes the failure for logs and operators: its kind, status,
// attempts and the API's message.
func (e *LLMError) Error() string {
	var b strings.Builder
	b.WriteString("LLM API error")
	switch e.Kind {
	case LLMTimeout:
		fmt.Fprintf(&b, ": no answer within the timeout of %v", e.Timeout)
	case LLMRateLimit:
		b.WriteString(": rate limited (429 Too Many Requests)")
	case LLMStatus:
		text := http.StatusText(e.StatusCode)
		if e.StatusCode == StatusOverloaded {
			text = "Overloaded"
		}
		fmt.Fprintf(&b, ": %d %s", e.StatusCode, text)
	case LLMNetwork:
		b.WriteString(": cannot reach the server")
	case LLMBadResponse:
		b.WriteString(": unusable response")
	case LLMStreamCut:
		b.WriteString(": the streamed answer was cut short")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil && e.Kind != LLMStatus && e.Kind != LLMRateLimit {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *LLMError) Unwrap() error { return e.Err }

// UserMessage implements [UserError].
func (e *LLMError) UserMessage() string {
	switch e.Kind {
	case LLMRateLimit:
		return "I'm currently experiencing high demand. Please try again in a moment."
	case LLMTimeout:
		return "That request took too long. Please try a simpler query."
	}
	return "I'm having trouble connecting to my AI service. Please try again."
}

// ToolErrorKind says what is wrong in a [ToolError], for callers that
// act on it (a hint, an exit code) without reading its message.
type ToolErrorKind string

// The kinds of tool errors.
const (
	// ToolMissing: no tool of the library has the declared tool's name.
	ToolMissing ToolErrorKind = "missing"
	// ToolIncompatible: the declaration accepts arguments the
	// implementation's parameter schema refuses (it is looser).
	ToolIncompatible ToolErrorKind = "incompatible"
	// ToolInjection: the injected parameters of the tool have no valid
	// host values, or cannot be checked.
	ToolInjection ToolErrorKind = "injection"
	// ToolUnknown: the model called a tool the agent does not have.
	ToolUnknown ToolErrorKind = "unknown"
	// ToolBlocked: the model repeated the same call too often in a turn.
	ToolBlocked ToolErrorKind = "blocked"
	// ToolFailed: the tool ran and failed, or panicked.
	ToolFailed ToolErrorKind = "failed"
	// ToolBadResult: the tool's result does not fit its declared return
	// type, or cannot be encoded as JSON.
	ToolBadResult ToolErrorKind = "bad_result"
)

// ToolError is a tool that cannot be used: missing from the library, or
// with a schema that refuses arguments its specification accepts. The same type
// describes a failed tool call in logs.
type ToolError struct {
	// Tool is the tool's name.
	Tool string
	// Kind says what is wrong.
	Kind ToolErrorKind
	// Message says what is wrong.
	Message string
	// Err is the cause, if any.
	Err error
}

// Error returns `tool "NAME": MESSAGE`, with the cause.
func (e *ToolError) Error() string {
	s := fmt.Sprintf("tool %q: %s", e.Tool, e.Message)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// Is reports whether target is the error's kind, so that errors.Is(err,
// ToolMissing) finds a missing tool among errors joined or wrapped.
func (e *ToolError) Is(target error) bool {
	k, ok := target.(ToolErrorKind)
	return ok && k == e.Kind
}

// Error returns the kind, which errors.Is matches against a [ToolError].
func (k ToolErrorKind) Error() string { return string(k) }

// UserMessage implements [UserError].
func (e *ToolError) UserMessage() string {
	return "One of my tools isn't available right now. Please try again later."
}
