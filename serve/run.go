// Runs: one turn of an agent for a request. The identity's claims (and the
// static values) fill the injected parameters; the run's events feed the
// metrics, the spans (a chat span per model call, an execute_tool span per
// tool call, under the run's invoke_agent span) and, for a streamed answer,
// the client.

package serve

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// runOutcome is how a run ended.
type runOutcome struct {
	resp *runtime.Response
	err  error
	// model and tools are the time spent in model calls and in tool calls
	// (those of one step, which may run in parallel, counted once).
	model, tools time.Duration
}

// busy is the time spent in model calls and tool calls.
func (o runOutcome) busy() time.Duration { return o.model + o.tools }

// serverTiming sets the Server-Timing header of an answer: the time the
// run spent in model calls and in tool calls, in milliseconds, so that a
// client can tell the server's own time from its model's and tools'.
func (o runOutcome) serverTiming(h http.Header) {
	h.Set("Server-Timing", fmt.Sprintf("model;dur=%.3f;desc=\"model calls\", tools;dur=%.3f;desc=\"tool calls\"",
		float64(o.model.Microseconds())/1000, float64(o.tools.Microseconds())/1000))
}

// injectedFor returns the values of the agent's injected parameters for a
// request of identity id: the static values, overridden by the claims of
// the identity. Nothing of the request's body or of the model is read.
func (s *Server) injectedFor(a *served, id *Identity) map[string]any {
	vals := map[string]any{}
	for _, p := range a.params {
		if v, ok := s.static[p.param.Name]; ok {
			vals[p.param.Name] = v
		}
		if id == nil {
			continue
		}
		var claims map[string]string
		if s.auth != nil {
			claims = s.auth.claims
		}
		if v, ok := id.Claims[claimName(claims, p.param.Name)]; ok {
			vals[p.param.Name] = claimValue(p.param, v)
		}
	}
	return vals
}

// claimValue returns a claim as the value of the injected parameter p: a
// number or a boolean as its text for a String parameter.
func claimValue(p *schema.Param, v any) any {
	if p.Type != nil && p.Type.Kind == schema.StringType {
		if t, ok := claimText(v); ok {
			return t
		}
	}
	return v
}

// answerText returns the answer of a run as text: the JSON text of the
// typed answer of an agent with a result type, the model's text
// otherwise.
func answerText(resp *runtime.Response) string {
	if resp.Output != nil {
		return string(resp.Output)
	}
	if resp.Status == runtime.StatusBudgetExceeded && resp.Spent != nil {
		return resp.Content + " (" + runtime.BudgetMessage(resp.Spent) + ")"
	}
	return resp.Content
}

// runAgent runs one turn of a on conv, which ends with the user's message.
// onEvent, if set, sees each event of the run as it happens (serialized);
// extra are the run's options the request asks for.
func (s *Server) runAgent(ctx context.Context, r *requestState, a *served, conv runtime.Conversation, stream bool, onEvent func(runtime.Event), extra ...runtime.Option) runOutcome {
	ctx, span := s.trace.tracer.Start(ctx, "invoke_agent "+a.agent.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(agentAttributes(a.agent, stream)...))
	log := s.log.With("request", r.id) // the runtime adds the agent
	if r.identity != "" {
		log = log.With("identity", r.identity)
	}
	obs := &observer{s: s, ctx: ctx, stream: stream, onEvent: onEvent,
		top: &runSpans{ctx: ctx, agent: a.agent, tools: a.tools, calls: map[string]toolSpan{}}}
	opts := append(slices.Clone(a.options),
		runtime.WithLogger(log),
		runtime.WithInjected(s.injectedFor(a, IdentityFrom(ctx))),
		runtime.WithStreaming(stream),
		runtime.WithEvents(obs.event))
	opts = append(opts, extra...)
	start := time.Now()
	resp, err := runtime.Run(ctx, a.agent, a.lib, conv, "", opts...)
	d := time.Since(start)
	err = contextCause(ctx, err)

	status := "error"
	if resp != nil && err == nil {
		status = string(resp.Status)
	}
	if err != nil {
		aerr := runError(err)
		switch aerr.Kind {
		case kindDisconnected, kindDeadline, kindShutdown:
			status = "cancelled"
		}
		failSpan(span, aerr.Kind, aerr.Message)
		if aerr.Kind == kindDisconnected {
			log.Warn("run cancelled: the client went away", "duration", d)
		}
	}
	s.metrics.runs.WithLabelValues(a.agent.Name, status).Inc()
	s.metrics.runLatency.WithLabelValues(a.agent.Name).Observe(d.Seconds())
	obs.mu.Lock()
	spent := obs.top.spent
	obs.mu.Unlock()
	spent.setOn(span)
	if resp != nil {
		if resp.FinishReason != "" {
			span.SetAttributes(semconv.GenAIResponseFinishReasons(resp.FinishReason))
		}
		span.SetAttributes(attrStatus.String(string(resp.Status)), attrIterations.Int(resp.Iterations))
	}
	span.End()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	return runOutcome{resp: resp, err: err, model: obs.model, tools: obs.tools}
}

// Attributes of the invoke_agent span beyond the GenAI conventions'.
const (
	attrStatus     = attribute.Key("gram.run.status")
	attrIterations = attribute.Key("gram.run.iterations")
)

// toolSpan is a tool call in progress.
type toolSpan struct {
	span  trace.Span
	start time.Time
}

// observer turns a run's events into metrics and spans, and passes the
// top run's on. The events of nested runs (sub-agents) make spans nested
// under the execute_tool span of the call that started them (see
// nested.go).
type observer struct {
	s       *Server
	ctx     context.Context // the run span's
	stream  bool
	onEvent func(runtime.Event)

	mu sync.Mutex
	// top is the top run's spans, nested those of the runs it started, by
	// run id.
	top    *runSpans
	nested map[string]*runSpans
	// model and tools are the top run's time in model calls and in tool
	// calls.
	model, tools time.Duration
	// toolsStart and toolsEnd bound the tool calls of the current
	// iteration, which may run in parallel.
	toolsStart, toolsEnd time.Time
}

// runSpans is what the spans of one run of the tree need.
type runSpans struct {
	// ctx holds the run's invoke_agent span.
	ctx context.Context
	// agent is the agent running; tools its tools, by name.
	agent *schema.Agent
	tools map[string]*schema.Tool
	// calls are the tool calls in progress, by call id.
	calls map[string]toolSpan
	// fallback is the fallback model in use since a model_fallback event,
	// "" before: the model of the chat spans that follow.
	fallback string
	// spent is the usage and cost of the run's own model calls (of the
	// current segment, for a durable run).
	spent spend
}

// event handles one event of the run.
func (o *observer) event(e runtime.Event) {
	now := time.Now()
	top := e.ParentRunID == ""
	rs := o.runOf(e, now)
	if rs == nil {
		return
	}
	switch e.Type {
	case runtime.EventModelTurnFinished:
		o.modelTurnFinished(rs, e, now, top)
	case runtime.EventModelFallback:
		o.modelFallback(rs, e, now)
	case runtime.EventToolCallStarted:
		o.toolCallStarted(rs, e, now, top)
	case runtime.EventToolCallFinished:
		o.toolCallFinished(rs, e, now, top)
	case runtime.EventHandoff:
		o.mu.Lock()
		rs.agent, rs.tools, rs.fallback = o.s.agentNamed(e.To, e.Model)
		o.mu.Unlock()
	case runtime.EventRunFinished:
		o.runFinished(rs, e, now, top)
	}
	if o.onEvent != nil && top {
		o.onEvent(e)
	}
}

// modelTurnFinished records a model call that ended at now: its metrics,
// its time and its chat span.
func (o *observer) modelTurnFinished(rs *runSpans, e runtime.Event, now time.Time, top bool) {
	m := o.s.metrics
	o.mu.Lock()
	agent := rs.agent
	if rs.fallback != "" {
		a := *agent
		a.Model.Provider, a.Model.ID = splitModel(rs.fallback)
		agent = &a
	}
	o.mu.Unlock()
	name := agent.Name
	outcome := "ok"
	if e.Err != nil || e.Error != "" {
		outcome = "error"
	}
	m.modelCalls.WithLabelValues(name, outcome).Observe(e.Duration.Seconds())
	if top {
		o.flushTools()
		o.mu.Lock()
		o.model += e.Duration
		o.mu.Unlock()
	}
	_, span := o.s.trace.tracer.Start(rs.ctx, "chat "+agent.Model.ID, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(now.Add(-e.Duration)), trace.WithAttributes(chatAttributes(agent, o.stream)...))
	if u := e.Usage; u != nil {
		usd, known := o.s.countUsage(agent, *u)
		o.mu.Lock()
		rs.spent.add(*u, usd, known)
		o.mu.Unlock()
		span.SetAttributes(semconv.GenAIUsageInputTokens(int(u.PromptTokens)), semconv.GenAIUsageOutputTokens(int(u.CompletionTokens)))
		span.SetAttributes(costAttrs(usd, known)...)
	}
	if e.FinishReason != "" {
		span.SetAttributes(semconv.GenAIResponseFinishReasons(e.FinishReason))
	}
	if outcome == "error" {
		kind := "model_error"
		if e.Err != nil {
			kind = runError(e.Err).Kind
		}
		failSpan(span, kind, "the model call failed")
	}
	span.End(trace.WithTimestamp(now))
}

// modelFallback records on the run's span that a model call moved from
// one model to the next (gram.model_fallback: the models and why), and
// names the chat spans that follow after the fallback model.
func (o *observer) modelFallback(rs *runSpans, e runtime.Event, now time.Time) {
	kind := "model_error"
	if e.Err != nil {
		kind = runError(e.Err).Kind
	}
	trace.SpanFromContext(rs.ctx).AddEvent("gram.model_fallback", trace.WithTimestamp(now), trace.WithAttributes(
		attribute.String("gram.fallback.from", e.Model), attribute.String("gram.fallback.to", e.Fallback), semconv.ErrorTypeKey.String(kind)))
	o.mu.Lock()
	rs.fallback = e.Fallback
	o.mu.Unlock()
}

// splitModel returns the provider and the model id of "Provider/model-id".
func splitModel(m string) (schema.Provider, string) {
	p, id, ok := strings.Cut(m, "/")
	if !ok {
		return "", m
	}
	return schema.Provider(p), id
}

// toolCallStarted starts the execute_tool span of a tool call that
// started at now.
func (o *observer) toolCallStarted(rs *runSpans, e runtime.Event, now time.Time, top bool) {
	desc := ""
	o.mu.Lock()
	if t := rs.tools[e.Name]; t != nil {
		desc = t.Description
	}
	o.mu.Unlock()
	_, span := o.s.trace.tracer.Start(rs.ctx, "execute_tool "+e.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(now), trace.WithAttributes(toolAttributes(e.Name, e.CallID, desc)...))
	o.mu.Lock()
	rs.calls[e.CallID] = toolSpan{span: span, start: now}
	if top && o.toolsStart.IsZero() {
		o.toolsStart = now
	}
	o.mu.Unlock()
}

// toolCallFinished records a tool call that ended at now: its metrics and
// the end of its span.
func (o *observer) toolCallFinished(rs *runSpans, e runtime.Event, now time.Time, top bool) {
	m := o.s.metrics
	o.mu.Lock()
	ts, ok := rs.calls[e.CallID]
	delete(rs.calls, e.CallID)
	if top {
		o.toolsEnd = now
	}
	name := rs.agent.Name
	tool := e.Name
	if _, known := rs.tools[tool]; !known {
		tool = "unknown"
	}
	o.mu.Unlock()
	outcome := "ok"
	if e.Tool != nil && e.Tool.Failed() {
		outcome = "error"
		m.errors.WithLabelValues(kindToolCall).Inc()
	}
	m.toolCalls.WithLabelValues(name, tool, outcome).Inc()
	m.toolLatency.WithLabelValues(name, tool).Observe(e.Duration.Seconds())
	if ok {
		if outcome == "error" {
			failSpan(ts.span, "tool_error", "the tool call failed")
		}
		ts.span.End(trace.WithTimestamp(now))
	}
}

// runFinished ends, at now, the spans of the tool calls a cancelled run
// left unfinished, and a nested run's span.
func (o *observer) runFinished(rs *runSpans, e runtime.Event, now time.Time, top bool) {
	if top {
		o.flushTools()
	}
	o.mu.Lock()
	for id, ts := range rs.calls {
		failSpan(ts.span, "cancelled", "the run ended before the tool call")
		ts.span.End(trace.WithTimestamp(now))
		delete(rs.calls, id)
	}
	o.mu.Unlock()
	if !top {
		o.nestedFinished(rs, e, now)
	}
}

// flushTools adds the time of the iteration's tool calls to tools.
func (o *observer) flushTools() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.toolsStart.IsZero() && o.toolsEnd.After(o.toolsStart) {
		o.tools += o.toolsEnd.Sub(o.toolsStart)
	}
	o.toolsStart, o.toolsEnd = time.Time{}, time.Time{}
}
