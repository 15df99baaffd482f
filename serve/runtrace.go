// The spans and metrics of durable runs. A durable run executes in
// segments: from its start (or its resumption in a process that recovered
// it) or from a decision, to its next wait for a decision or its end. Each
// segment has an invoke_agent span, with the chat and execute_tool spans
// of its calls under it. The first segment of a run, in the process that
// started it, is a child of the span of the request that started it; any
// other segment (after a decision, or in a process that recovered the
// run) is the root of a trace of its own with an OpenTelemetry link to
// that span, whose context the run's spec keeps (its traceparent
// setting). The metrics count the runs by status
// (gram_serve_durable_runs_total) and hold the runs this process executes
// or that wait in it (gram_serve_durable_runs_active).

package serve

import (
	"context"
	"errors"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/runtime"
)

// runObserver watches one execution of a durable run.
type runObserver struct {
	s       *Server
	sv      *served
	obs     *observer
	started trace.SpanContext // the span of the request that started the run
	child   bool              // the next segment is the first, in the starting request's process

	mu    sync.Mutex
	span  trace.Span // the segment's span; nil between segments
	state string     // "", durable.StatusRunning or durable.StatusAwaitingApproval
}

// newRunObserver returns the observer of an execution of the run of spec
// bound in ctx.
func (s *Server) newRunObserver(ctx context.Context, sv *served, spec durable.Spec) *runObserver {
	started, child := s.startLink(ctx, spec)
	return &runObserver{s: s, sv: sv, started: started, child: child,
		obs: &observer{s: s, top: &runSpans{agent: sv.agent, tools: sv.tools, calls: map[string]toolSpan{}}}}
}

// event handles an event of the run.
func (d *runObserver) event(e runtime.Event) {
	top := e.ParentRunID == ""
	d.mu.Lock()
	if d.span == nil {
		d.startSegment()
	}
	d.mu.Unlock()
	d.obs.event(e)
	if !top {
		return
	}
	switch e.Type {
	case runtime.EventApprovalRequested:
		d.mu.Lock()
		defer d.mu.Unlock()
		d.span.SetAttributes(attrStatus.String(durable.StatusAwaitingApproval))
		d.endSpend()
		d.span.End()
		d.span = nil
		d.setState(durable.StatusAwaitingApproval)
		d.s.metrics.durableRuns.WithLabelValues(d.sv.agent.Name, durable.StatusAwaitingApproval).Inc()
	case runtime.EventRunFinished:
		d.finished(e)
	}
}

// startSegment starts the span of a segment. Called with mu held.
func (d *runObserver) startSegment() {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(agentAttributes(d.sv.agent, false)...)}
	parent := context.Background()
	switch {
	case d.child:
		parent = trace.ContextWithRemoteSpanContext(parent, d.started)
	case d.started.IsValid():
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: d.started}))
	}
	d.child = false
	ctx, span := d.s.trace.tracer.Start(parent, "invoke_agent "+d.sv.agent.Name, opts...)
	d.obs.mu.Lock()
	d.obs.ctx, d.obs.top.ctx = ctx, ctx
	d.obs.mu.Unlock()
	d.span = span
	d.setState(durable.StatusRunning)
}

// finished ends the run's last segment and counts how it ended; a run
// stopped because the store closes is not counted (it goes on in the next
// process).
func (d *runObserver) finished(e runtime.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	status := durable.StatusError
	switch {
	case e.Err != nil && (errors.Is(e.Err, context.Canceled) || strings.Contains(e.Err.Error(), "cancelled")):
		status = durable.StatusCancelled
	case e.Response != nil:
		status = runStatus(e.Response.Status)
	}
	d.s.durable.mu.Lock()
	closing := d.s.durable.closed
	d.s.durable.mu.Unlock()
	// A cancelled run is counted by the route that cancelled it.
	if !closing && status != durable.StatusCancelled {
		d.s.metrics.durableRuns.WithLabelValues(d.sv.agent.Name, status).Inc()
	}
	if d.span != nil {
		if resp := e.Response; resp != nil {
			d.span.SetAttributes(attrStatus.String(string(resp.Status)), attrIterations.Int(resp.Iterations))
		}
		if status == durable.StatusError {
			failSpan(d.span, "run_error", "the run failed")
		}
		d.endSpend()
		d.span.End()
		d.span = nil
	}
	d.setState("")
}

// endSpend sets the usage and cost of the segment's model calls on its
// span, and starts the next segment's from nothing. Called with mu held.
func (d *runObserver) endSpend() {
	d.obs.mu.Lock()
	spent := d.obs.top.spent
	d.obs.top.spent = spend{}
	d.obs.mu.Unlock()
	spent.setOn(d.span)
}

// setState moves the run to state in the gauge of active runs. Called
// with mu held.
func (d *runObserver) setState(state string) {
	g := d.s.metrics.durableActive
	if d.state != "" {
		g.WithLabelValues(d.state).Dec()
	}
	if state != "" {
		g.WithLabelValues(state).Inc()
	}
	d.state = state
}

// runStatus is the status of an ended run as the envelope names it:
// completed, max_iterations_reached or error.
func runStatus(st runtime.Status) string {
	switch st {
	case runtime.StatusMaxIterations, runtime.StatusMaxModelCalls:
		return envMaxIter
	case runtime.StatusBudgetExceeded:
		return envBudget
	case runtime.StatusError, runtime.StatusInvalidOutput:
		return envError
	case runtime.StatusAwaitingApproval:
		return durable.StatusAwaitingApproval
	}
	return envCompleted
}
