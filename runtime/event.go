// Events: what a run does, as it does it. [WithEvents] delivers them to a
// callback and [Events] as an iterator; [Run] still returns the same
// [Response] at the end.

package runtime

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	"github.com/gramlang/gram/schema"
)

// EventType says what an [Event] reports.
type EventType string

// The types of events, in the order a run produces them: for each model
// call, text deltas then model_turn_finished; for each tool call,
// tool_call_started then tool_call_finished; run_finished last.
const (
	// EventTextDelta: a piece of the model's text (Text), as it arrives
	// when the answer is streamed, or the whole text of the call when it
	// is not.
	EventTextDelta EventType = "text_delta"
	// EventToolCallStarted: a tool call (CallID, Name, Arguments as the
	// model sent them) begins.
	EventToolCallStarted EventType = "tool_call_started"
	// EventToolCallFinished: a tool call ended; Tool has its result or
	// error and its duration.
	EventToolCallFinished EventType = "tool_call_finished"
	// EventModelTurnFinished: a model call answered; Usage, FinishReason,
	// ToolCalls (the number of calls asked for) and Duration. A failed call
	// has Error instead.
	EventModelTurnFinished EventType = "model_turn_finished"
	// EventModelFallback (see fallback.go) comes between a failed
	// model_turn_finished and the next model call's events.

	// EventRunFinished: the run ended; Response is what [Run] returns and
	// Err its error.
	EventRunFinished EventType = "run_finished"
	// EventRunStarted: a nested run (a sub-agent called as a tool) begins,
	// before its events; ParentRunID and ParentCallID name the run and the
	// tool call that started it, Model the agent's model. Its events
	// follow, in the same sink, with its RunID, and end with its
	// run_finished. The top run has none.
	EventRunStarted EventType = "run_started"
	// EventApprovalRequested: a reply called approval tools; Pending
	// lists the calls, before the approver is asked (or the run stops
	// with [StatusAwaitingApproval]).
	EventApprovalRequested EventType = "approval_requested"
	// EventApprovalDecided: a decision was taken on one pending call
	// (CallID, Name); Decision has it, its arguments the ones applied.
	EventApprovalDecided EventType = "approval_decided"
)

// Event is one step of a run. Which fields are set depends on Type.
type Event struct {
	// Type says what happened.
	Type EventType `json:"type"`
	// RunID is the run the event belongs to; ParentRunID the run that
	// started it, "" for the top run; Agent the agent running.
	RunID       string `json:"runId,omitempty"`
	ParentRunID string `json:"parentRunId,omitempty"`
	Agent       string `json:"agent,omitempty"`
	// ParentCallID is the tool call of the parent run that started a
	// nested run, on its events.
	ParentCallID string `json:"parentCallId,omitempty"`
	// To is the agent handed to, of a handoff.
	To string `json:"to,omitempty"`
	// Iteration is the model call (from 1; 0 is the summary call at the
	// iteration limit) the event belongs to.
	Iteration int `json:"iteration"`
	// Text is the text of a text_delta.
	Text string `json:"text,omitempty"`
	// CallID, Name and Arguments identify a tool call.
	CallID    string `json:"callId,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Tool is the outcome of a finished tool call.
	Tool *ToolUse `json:"tool,omitempty"`
	// Usage, FinishReason and ToolCalls describe a finished model call.
	Usage        *Usage `json:"usage,omitempty"`
	FinishReason string `json:"finishReason,omitempty"`
	ToolCalls    int    `json:"toolCalls,omitempty"`
	// Model is the model that failed and Fallback the model tried next,
	// of a model_fallback; Model is the agent's model ("Provider/model-id")
	// of a run_started and of a handoff.
	Model    string `json:"model,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	// Duration is how long a model call or tool call took.
	Duration time.Duration `json:"-"`
	// Pending are the calls of an approval_requested.
	Pending []PendingCall `json:"pending,omitempty"`
	// Decision is the decision of an approval_decided.
	Decision *Decision `json:"decision,omitempty"`
	// Response is the response of a finished run.
	Response *Response `json:"response,omitempty"`
	// Err is the error of a failed model call or run; Error its text.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes the event with its duration in milliseconds as
// "durationMs" (when it has one).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if e.Err != nil && e.Error == "" {
		e.Error = e.Err.Error()
	}
	if e.Duration == 0 {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		DurationMs float64 `json:"durationMs"`
	}{plain(e), float64(e.Duration.Microseconds()) / 1000})
}

// WithEvents delivers the run's events to f as they happen. Calls are
// serialized and in order; f must not block for long. Unless
// [WithStreaming] says otherwise, the model's answers are streamed (when
// the model is a [StreamingModel]), so text arrives as it is generated.
func WithEvents(f func(Event)) Option { return func(c *runConfig) { c.events = f } }

// WithStreaming turns streamed model answers on or off. By default answers
// are streamed when events are asked for ([WithEvents], [Events]) and the
// model is a [StreamingModel]. Without streaming, events still come, each
// model call's text in one text_delta.
func WithStreaming(on bool) Option { return func(c *runConfig) { c.streaming = &on } }

// Events runs like [Run] and yields its events; the last is run_finished,
// with the Response and the error Run would return. Stopping the iteration
// early cancels the run.
func Events(ctx context.Context, agent *schema.Agent, lib *Library, conv Conversation, input string, opts ...Option) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan Event, 64)
		go func() {
			defer close(ch)
			opts := append(append([]Option(nil), opts...), WithEvents(func(e Event) { ch <- e }))
			_, _ = Run(ctx, agent, lib, conv, input, opts...)
		}()
		for e := range ch {
			if !yield(e) {
				cancel()
				for range ch {
				}
				return
			}
		}
	}
}

// emit delivers an event, serialized with the hooks.
func (r *runner) emit(e Event) {
	if f := r.cfg.events; f != nil {
		t := &r.cfg.tree
		e.RunID, e.ParentRunID, e.ParentCallID = t.runID, t.parentRun, t.parentCall
		if r.agent != nil {
			e.Agent = r.agent.Name
		}
		r.hook(func() { f(e) })
	}
}

// streaming reports whether model calls are streamed.
func (c *runConfig) streamed() bool {
	if c.streaming != nil {
		return *c.streaming
	}
	return c.events != nil
}

// emitToolStarted reports a tool call beginning.
func (r *runner) emitToolStarted(iter int, call ToolCall) {
	if r.cfg.events != nil {
		r.emit(Event{Type: EventToolCallStarted, Iteration: iter, CallID: call.ID, Name: call.Name, Arguments: call.Arguments})
	}
}

// emitToolFinished reports a tool call's outcome.
func (r *runner) emitToolFinished(use ToolUse) {
	if r.cfg.events != nil {
		u := use
		r.emit(Event{Type: EventToolCallFinished, Iteration: use.Iteration, CallID: use.CallID, Name: use.Name,
			Tool: &u, Duration: use.Duration})
	}
}

// emitRunFinished reports the end of the run.
func (c *runConfig) emitRunFinished(resp *Response, err error) {
	if c.events != nil {
		t := &c.tree
		e := Event{Type: EventRunFinished, Response: resp, Err: err, RunID: t.runID, ParentRunID: t.parentRun, ParentCallID: t.parentCall}
		if resp != nil {
			e.Iteration = resp.Iterations
			e.Agent = resp.Agent
		}
		t.shared.mu.Lock()
		defer t.shared.mu.Unlock()
		c.events(e)
	}
}
