// Client tools: tools the caller of a run defines and runs itself (a chat
// client's "tools"). They are offered to the model after the agent's own
// tools and handoffs; when a reply calls one, the run executes the reply's
// calls of the agent's own tools, then stops with the status
// [StatusToolCalls] and the client's calls in [Response.ClientCalls]. The
// caller runs them and starts a new run on the conversation extended by
// the assistant message and a tool message per call: [Run] goes on from
// tool results as it does from a user message.

package runtime

import (
	"slices"
)

// StatusToolCalls: the model called tools of the caller's (see
// [WithClientTools]); the run stopped there, after running the reply's
// calls of the agent's own tools. [Response.ClientCalls] lists the
// caller's calls and [Response.Content] the reply's text, if any.
const StatusToolCalls Status = "tool_calls"

// WithClientTools offers the model the caller's tools beside the agent's
// own: the run never executes them. When a reply calls one, the run stops
// with [StatusToolCalls] once the reply's other calls have run. A
// definition whose name is one of the agent's tools or handoffs is left
// out: the agent's own tool keeps its name. Nested runs (sub-agents) are
// not offered them; with [WithoutTools] none is offered.
func WithClientTools(defs []ToolDefinition) Option {
	return func(c *runConfig) { c.clientTools = slices.Clone(defs) }
}

// withClientTools returns own followed by the client tools whose names no
// definition of own has.
func (r *runner) withClientTools(own []ToolDefinition) []ToolDefinition {
	for _, d := range r.cfg.clientTools {
		if !slices.ContainsFunc(own, func(o ToolDefinition) bool { return o.Name == d.Name }) {
			own = append(own, d)
		}
	}
	return own
}

// isClientCall reports whether a call is to a client tool, rather than to
// one of the agent's tools or handoffs.
func (r *runner) isClientCall(defs []ToolDefinition, c ToolCall) bool {
	i := slices.IndexFunc(defs, func(d ToolDefinition) bool { return d.Name == c.Name })
	return i >= 0 && slices.ContainsFunc(r.cfg.clientTools, func(d ToolDefinition) bool {
		return d.Name == c.Name && d.Spec == defs[i].Spec
	})
}

// stopAtClientCalls ends the turn at a reply msg that calls client tools,
// once the reply's other calls have run (see [runner.runCalls]): the
// conversation ends with the client's calls unanswered.
func (r *runner) stopAtClientCalls(iter int, msg Message, client []ToolCall) *Response {
	resp := r.resp
	resp.Status = StatusToolCalls
	resp.Content = msg.Content
	resp.ClientCalls = client
	r.log.Info("run stopped at the client's tool calls", "iterations", iter, "clientCalls", len(client), "toolCalls", len(resp.ToolsUsed))
	return resp
}

// hasClientCall reports whether a reply calls a client tool.
func (r *runner) hasClientCall(defs []ToolDefinition, calls []ToolCall) bool {
	if len(r.cfg.clientTools) == 0 {
		return false
	}
	return slices.ContainsFunc(calls, func(c ToolCall) bool { return r.isClientCall(defs, c) })
}
