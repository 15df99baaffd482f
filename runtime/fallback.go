// Fallback models: when a model call fails after its retries for a reason
// another model may not have (the server is down, overloaded, rate limited
// past the retry budget, too slow), the call goes to the next model of the
// agent's fallbacks, in order. A call refused for what it asks (a 400-class
// answer other than 408, 409 and 429), a configuration error or a
// cancelled run ends the call as it would without fallbacks. The model
// that answered serves the rest of the turn.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gramlang/gram/schema"
)

// EventModelFallback: a model call failed and goes to the next model: Model
// is the model that failed, Fallback the one tried next, Err why.
const EventModelFallback EventType = "model_fallback"

// Fallback is a model tried when the models before it fail.
type Fallback struct {
	// Model is the model ("Provider/model-id"); its ID is the request's
	// model.
	Model schema.Model
	// Client is the model's client; nil means one made by [NewModel] with
	// the run's [ModelConfig] when it is first needed.
	Client Model
}

// WithFallbacks sets the models tried, in order, when a call to the
// agent's model fails after its retries with an error [FallsBack] accepts.
func WithFallbacks(fb ...Fallback) Option {
	return func(c *runConfig) { c.fallbacks = append([]Fallback(nil), fb...) }
}

// FallsBack reports whether a failed model call may succeed on another
// model: a network failure, a timeout, a 408, 409 or 429 answer, a 5xx
// answer (Anthropic's 529 overloaded among them) or an unusable answer.
// A 400-class answer about the request itself, a rejected key (a
// [*ConfigError]) and a cancelled context do not.
func FallsBack(err error) bool {
	var le *LLMError
	if err == nil || errors.Is(err, context.Canceled) || !errors.As(err, &le) {
		return false
	}
	switch le.Kind {
	case LLMNetwork, LLMTimeout, LLMRateLimit, LLMBadResponse:
		return true
	case LLMStatus:
		return retryableStatus(le.StatusCode)
	}
	return false
}

// completeFrom makes the call on the model in use and, when it fails with
// an error [FallsBack] accepts before any of its text was shown, on each
// fallback in turn (after text, another model's answer would follow it);
// it reports each move as an event, a log line and a warning of the
// response.
func (r *runner) completeFrom(ctx context.Context, iter int, req *Request) (*Reply, error) {
	if r.fallback > 0 {
		cur := *req
		cur.Model = r.cfg.fallbacks[r.fallback-1].Model.ID
		req = &cur
	}
	reply, err := r.complete(ctx, iter, req)
	for err != nil && (reply == nil || reply.Message.Content == "") && FallsBack(asRunError(err)) && r.fallback < len(r.cfg.fallbacks) && ctx.Err() == nil {
		from := r.agent.Model.String()
		if r.fallback > 0 {
			from = r.cfg.fallbacks[r.fallback-1].Model.String()
		}
		fb := r.cfg.fallbacks[r.fallback]
		r.fallback++
		msg := fmt.Sprintf("the model %s failed (%s); the call goes to the fallback model %s", from, fallbackReason(err), fb.Model)
		r.emit(Event{Type: EventModelFallback, Iteration: iter, Model: from, Fallback: fb.Model.String(), Err: err})
		r.warnOnce(msg)
		client := fb.Client
		if client == nil {
			mc := r.cfg.modelConfig
			if mc.Logger == nil {
				mc.Logger = r.log
			}
			m, cerr := NewModel(fb.Model, mc)
			if cerr != nil {
				return nil, cerr
			}
			client = m
		}
		r.cfg.model = client
		next := *req
		next.Model = fb.Model.ID
		req = &next
		reply, err = r.complete(ctx, iter, req)
	}
	if err != nil {
		return nil, err
	}
	return reply, nil
}

// fallbackReason says in a few words why a call moved on.
func fallbackReason(err error) string {
	var le *LLMError
	if !errors.As(err, &le) {
		return err.Error()
	}
	switch {
	case le.Kind == LLMTimeout:
		return "no answer within its timeout"
	case le.Kind == LLMRateLimit:
		return fmt.Sprintf("rate limited after %d attempts", le.Attempts)
	case le.Kind == LLMNetwork:
		return fmt.Sprintf("cannot reach the server after %d attempts", le.Attempts)
	case le.StatusCode == StatusOverloaded:
		return fmt.Sprintf("overloaded (529) after %d attempts", le.Attempts)
	case le.StatusCode != 0:
		return fmt.Sprintf("%d %s after %d attempts", le.StatusCode, http.StatusText(le.StatusCode), le.Attempts)
	}
	return string(le.Kind)
}

// Fallbacks returns the fallbacks of models (the bindings' fallbacks of
// an agent), each client made by newModel; nil when models is empty. Every
// command that runs agents builds their fallbacks with it, for its
// [ModelSource], so that all run them alike.
func Fallbacks(models []schema.Model, newModel func(schema.Model) (Model, error)) ([]Fallback, error) {
	if len(models) == 0 {
		return nil, nil
	}
	fbs := make([]Fallback, 0, len(models))
	for _, m := range models {
		client, err := newModel(m)
		if err != nil {
			return nil, err
		}
		fbs = append(fbs, Fallback{Model: m, Client: client})
	}
	return fbs, nil
}
