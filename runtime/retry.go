// Retries of model calls: which failures are retried, and how long to wait.

package runtime

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says how [OpenAIModel] retries failed calls: network errors
// and the statuses 408, 409, 429 and 5xx are retried; timeouts are not.
// The zero value is the default policy.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt: 0 means
	// the default of 2, a negative number no retries.
	MaxRetries int
	// Backoff returns the wait before retry n (from 0) when the server does
	// not say how long to wait. The default is 500ms·2ⁿ, capped at 8s, less
	// up to a quarter of jitter.
	Backoff func(n int) time.Duration
	// MaxRetryAfter is the longest wait a server may ask for with
	// Retry-After or Retry-After-Ms; a longer one ends the retries. The
	// default is one minute.
	MaxRetryAfter time.Duration
	// Sleep waits for d or until ctx is done. The default uses a timer;
	// tests may replace it to record the waits without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultMaxRetries is the number of retries of the default policy.
const DefaultMaxRetries = 2

// withDefaults fills in the defaults.
func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.Backoff == nil {
		p.Backoff = DefaultBackoff
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = time.Minute
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// DefaultBackoff is the default [RetryPolicy.Backoff]: 500ms·2ⁿ capped at
// 8s, less up to a quarter of jitter.
func DefaultBackoff(n int) time.Duration {
	d := time.Duration(float64(500*time.Millisecond) * math.Pow(2, float64(n)))
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryableStatus reports whether a response status is worth retrying.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// retryAfter returns the wait a response asks for: Retry-After-Ms in
// milliseconds, or Retry-After in (possibly fractional) seconds or as an
// HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && !math.IsInf(s, 0) {
			if s > float64(math.MaxInt64/int64(time.Second)) {
				return math.MaxInt64, true
			}
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// NewRetryPolicy returns the policy of a retry setting such as a bindings
// file's (:Model {agent, retries, backoff}): retries, when not nil, is the
// number of retries after the first attempt (0: none); backoff, when not
// 0, the wait before the first retry, doubled before each next one (see
// [DoublingBackoff]). What is not set keeps the default.
func NewRetryPolicy(retries *int, backoff time.Duration) RetryPolicy {
	var p RetryPolicy
	if retries != nil {
		p.MaxRetries = *retries
		if *retries == 0 {
			p.MaxRetries = -1
		}
	}
	if backoff > 0 {
		p.Backoff = DoublingBackoff(backoff)
	}
	return p
}

// DoublingBackoff returns a [RetryPolicy.Backoff] that waits base before
// the first retry and twice as long before each next one, capped at 8s
// (or base, when longer), less up to a quarter of jitter.
func DoublingBackoff(base time.Duration) func(n int) time.Duration {
	limit := max(8*time.Second, base)
	return func(n int) time.Duration {
		d := time.Duration(float64(base) * math.Pow(2, float64(n)))
		if d > limit || d <= 0 {
			d = limit
		}
		return d - time.Duration(rand.Int64N(int64(d/4)+1))
	}
}
