// Nested runs: the events of a sub-agent's run (one with a parent run)
// make an invoke_agent span under the execute_tool span of the call that
// started it, with its own chat and execute_tool spans, and count in the
// metrics under the sub-agent's name. They are not streamed to the client,
// and their time is part of the parent's tool call.

package serve

import (
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// runOf returns the spans of the run of e: the top run's, or a nested
// run's, whose span a run_started event starts; nil for a nested run
// whose start was not seen.
func (o *observer) runOf(e runtime.Event, now time.Time) *runSpans {
	if e.ParentRunID == "" {
		return o.top
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if e.Type != runtime.EventRunStarted {
		return o.nested[e.RunID]
	}
	parent := o.top
	if p := o.nested[e.ParentRunID]; p != nil {
		parent = p
	}
	ctx := parent.ctx
	if ts, ok := parent.calls[e.ParentCallID]; ok {
		ctx = trace.ContextWithSpan(ctx, ts.span)
	}
	agent, tools, _ := o.s.agentNamed(e.Agent, e.Model)
	ctx, _ = o.s.trace.tracer.Start(ctx, "invoke_agent "+agent.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(now), trace.WithAttributes(agentAttributes(agent, o.stream)...))
	rs := &runSpans{ctx: ctx, agent: agent, tools: tools, calls: map[string]toolSpan{}}
	if o.nested == nil {
		o.nested = map[string]*runSpans{}
	}
	o.nested[e.RunID] = rs
	return rs
}

// nestedFinished ends a nested run's span, at now, with its outcome.
func (o *observer) nestedFinished(rs *runSpans, e runtime.Event, now time.Time) {
	o.mu.Lock()
	delete(o.nested, e.RunID)
	o.mu.Unlock()
	span := trace.SpanFromContext(rs.ctx)
	o.mu.Lock()
	spent := rs.spent
	o.mu.Unlock()
	spent.setOn(span)
	status := "error"
	if resp := e.Response; resp != nil {
		status = string(resp.Status)
		span.SetAttributes(attrStatus.String(status), attrIterations.Int(resp.Iterations))
		if resp.FinishReason != "" {
			span.SetAttributes(semconv.GenAIResponseFinishReasons(resp.FinishReason))
		}
	}
	if e.Err != nil {
		aerr := runError(e.Err)
		failSpan(span, aerr.Kind, aerr.Message)
	}
	o.s.metrics.runs.WithLabelValues(rs.agent.Name, status).Inc()
	span.End(trace.WithTimestamp(now))
}

// agentNamed returns the agent called name, served or used by one served
// (see [runtime.Bound.Program]), or else an agent of only its name and its model,
// "Provider/model-id"; its tools by name, and no fallback model.
func (s *Server) agentNamed(name, model string) (*schema.Agent, map[string]*schema.Tool, string) {
	if sv := s.agents[name]; sv != nil {
		return sv.agent, sv.tools, ""
	}
	if sv := s.others[name]; sv != nil {
		return sv.agent, sv.tools, ""
	}
	a := &schema.Agent{Name: name}
	a.Model.Provider, a.Model.ID = splitModel(model)
	return a, map[string]*schema.Tool{}, ""
}
