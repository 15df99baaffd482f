// One rule for a failed model call, for every provider: what gives up at
// once (a cancelled run, a recording that could not be written, a
// redirect to another server, a rejected key), what is retried and after
// how long (the answer's Retry-After within the policy's limit, else the
// policy's backoff), and the warning each retry logs. A provider's model
// says only how its SDK's errors read (see failure).

package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gramlang/gram/runtime/replay"
)

// failure is a failed attempt of a model call as a provider's model reads
// it: the runtime's error, whether it is worth retrying, and the answer's
// header (nil when there was no answer, or the SDK keeps none).
type failure struct {
	lerr   *LLMError
	retry  bool
	header http.Header
}

// attempts is what the rule needs of a provider's model.
type attempts struct {
	provider string
	// baseURL is the server the key is sent to; movedHint says where the
	// base URL is given, for the error of a redirect.
	baseURL, movedHint string
	redact             replay.Redactor
	retry              RetryPolicy
	log                *slog.Logger
	// keyRejected is the error of a 401 or 403 answer.
	keyRejected func(*LLMError) error
}

// afterFailure decides after the failed attempt number attempt, whose
// error err the model reads with read: it waits and returns nil when the
// call is to be retried, and returns the error to give up with otherwise.
func (a attempts) afterFailure(ctx context.Context, err error, attempt int, read func(error) failure) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var (
		redir   *redirectError
		unsaved *replay.WriteError
	)
	if errors.As(err, &unsaved) {
		// The recording, not the model's server, failed.
		return unsaved
	}
	if errors.As(err, &redir) {
		return &ConfigError{
			Message: fmt.Sprintf("the server at %s redirected the request to another server, %s, which is not followed (the API key is only sent to the base URL)", displayURL(a.baseURL), a.redact.String(redir.to)),
			Hint:    "if the API has moved, give its new URL as the base URL (" + a.movedHint + ")",
		}
	}
	f := read(err)
	if f.lerr.StatusCode == http.StatusUnauthorized || f.lerr.StatusCode == http.StatusForbidden {
		return a.keyRejected(f.lerr)
	}
	if !f.retry || attempt > a.retry.MaxRetries {
		return f.lerr
	}
	wait, told := retryAfter(f.header, time.Now())
	if told && wait > a.retry.MaxRetryAfter {
		a.log.Warn("model asks to wait longer than allowed; not retrying",
			"provider", a.provider, "wait", wait, "max", a.retry.MaxRetryAfter)
		return f.lerr
	}
	if !told {
		wait = a.retry.Backoff(attempt - 1)
	}
	a.log.Warn("model call failed; retrying", "provider", a.provider,
		"attempt", attempt, "kind", string(f.lerr.Kind), "status", f.lerr.StatusCode, "wait", wait, "retryAfter", told)
	return a.retry.Sleep(ctx, wait)
}
