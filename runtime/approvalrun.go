// How a run applies approvals: a reply's calls are split into the calls of
// approval tools, the client's calls and the others; the others run first,
// then the approver is asked about the approval calls (or the run stops
// to wait), then the client's calls stop the run (see clienttools.go).
// A call of a sub-agent whose run stopped to wait is left unanswered, and
// its pending calls stop this run too.

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// needsApproval reports whether a call is to one of the agent's tools that
// asks for approval.
func (r *runner) needsApproval(c ToolCall) bool {
	if _, handoff := r.handoffOf(c.Name); handoff {
		return false
	}
	b, ok := r.tools.Lookup(c.Name)
	return ok && b.Spec != nil && b.Spec.Approval
}

// runCalls runs the tool calls of a reply msg; stop is set when the run
// ends there (at calls waiting for approval, at the client's calls, or
// failing), with the run's response and error.
func (r *runner) runCalls(ctx context.Context, iter int, defs []ToolDefinition, msg Message) (resp *Response, err error, stop bool) {
	var own, gated, client []ToolCall
	for _, c := range msg.ToolCalls {
		switch {
		case r.hasClientCall(defs, []ToolCall{c}):
			client = append(client, c)
		case r.needsApproval(c) && r.validCall(c):
			gated = append(gated, c)
		default:
			own = append(own, c)
		}
	}
	if len(own) > 0 {
		if pending := r.addRun(r.execute(ctx, iter, own)); len(pending) > 0 {
			return r.stopAwaiting(iter, msg.Content, pending), nil, true
		}
	}
	if len(gated) > 0 {
		if resp, err, stop := r.approve(ctx, iter, msg.Content, gated); stop {
			return resp, err, true
		}
	}
	if len(client) > 0 {
		return r.stopAtClientCalls(iter, msg, client), nil, true
	}
	return nil, nil, false
}

// validCall reports whether a call's arguments are valid, so that a person
// is asked about it: a call with invalid arguments fails as any other, and
// the model can correct it before anyone is asked.
func (r *runner) validCall(c ToolCall) bool {
	b, _ := r.tools.Lookup(c.Name)
	_, err := r.arguments(b.Spec, c.Arguments)
	return err == nil
}

// pendingCalls returns the calls of approval tools as pending calls.
func (r *runner) pendingCalls(calls []ToolCall) []PendingCall {
	out := make([]PendingCall, len(calls))
	for i, c := range calls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args, _ = json.Marshal(c.Arguments)
		}
		out[i] = PendingCall{CallID: c.ID, Tool: c.Name, Agent: r.agent.Name, RunID: r.cfg.tree.runID, Arguments: args}
	}
	return out
}

// approve asks for decisions on the calls of approval tools of a reply
// (whose text is content) and runs or denies them; stop is set when the
// run ends there.
func (r *runner) approve(ctx context.Context, iter int, content string, calls []ToolCall) (resp *Response, err error, stop bool) {
	pending := r.pendingCalls(calls)
	r.emit(Event{Type: EventApprovalRequested, Iteration: iter, Pending: pending})
	if r.cfg.approver == nil {
		return r.stopAwaiting(iter, content, pending), nil, true
	}
	r.log.Info("asking for approval", "calls", len(pending))
	ds, err := r.cfg.approver(ctx, slices.Clone(pending))
	switch {
	case errors.Is(err, ErrAwaitingApproval):
		return r.stopAwaiting(iter, content, pending), nil, true
	case err != nil:
		resp, err := r.fail(fmt.Errorf("asking for approval: %w", err))
		return resp, err, true
	}
	if err := CheckDecisions(r.agent, pending, ds); err != nil {
		resp, err := r.fail(err)
		return resp, err, true
	}
	results, err := r.decide(ctx, iter, calls, ds)
	if err != nil {
		resp, err := r.fail(err)
		return resp, err, true
	}
	if pending := r.addRun(results); len(pending) > 0 {
		return r.stopAwaiting(iter, content, pending), nil, true
	}
	return nil, nil, false
}

// decide applies checked decisions to calls: the approved ones run, with
// edited arguments if given, the denied ones are answered with the
// denial. Results keep the order of the calls.
func (r *runner) decide(ctx context.Context, iter int, calls []ToolCall, ds []Decision) ([]callResult, error) {
	results := make([]callResult, len(calls))
	var run []ToolCall
	var at []int
	for i, c := range calls {
		d, _ := decisionFor(ds, c.ID)
		if d.Approve && len(d.Arguments) > 0 && d.CallID != DecideAll {
			b, _ := r.tools.Lookup(c.Name)
			if _, err := editedArguments(b.Spec, d.Arguments); err != nil {
				return nil, &ValidationError{Field: "decisions", Message: fmt.Sprintf("the edited arguments of the call %q (%s): %s", c.ID, c.Name, err.Error())}
			}
			c.Arguments = string(d.Arguments)
			r.editCall(c)
		}
		dc := d
		dc.CallID = c.ID
		r.emit(Event{Type: EventApprovalDecided, Iteration: iter, CallID: c.ID, Name: c.Name, Arguments: c.Arguments, Decision: &dc})
		r.log.Info("approval decided", "tool", c.Name, "callId", c.ID, "approved", d.Approve)
		if d.Approve {
			run, at = append(run, c), append(at, i)
			continue
		}
		results[i] = r.denied(iter, c, d.Reason)
	}
	for k, res := range r.execute(ctx, iter, run) {
		results[at[k]] = res
	}
	return results, nil
}

// editCall puts the arguments of c, edited by a person, in the call of
// the conversation's assistant message that asked for it, so that the
// model is told what ran. The messages are copied first: the conversation
// may share them with the caller's history.
func (r *runner) editCall(c ToolCall) {
	conv := r.resp.Conversation
	for i := len(conv) - 1; i >= 0; i-- {
		j := slices.IndexFunc(conv[i].ToolCalls, func(tc ToolCall) bool { return tc.ID == c.ID })
		if conv[i].Role != RoleAssistant || j < 0 {
			continue
		}
		conv = slices.Clone(conv)
		conv[i].ToolCalls = slices.Clone(conv[i].ToolCalls)
		conv[i].ToolCalls[j].Arguments = c.Arguments
		r.resp.Conversation = conv
		return
	}
}

// denied is the result of a call a person denied: the model is told so,
// with the reason.
func (r *runner) denied(iter int, c ToolCall, reason string) callResult {
	msg := map[string]string{"error": DeniedMessage}
	use := ToolUse{Iteration: iter, CallID: c.ID, Name: c.Name, RawArguments: c.Arguments, Denied: true, Error: DeniedMessage}
	if reason != "" {
		msg["reason"] = reason
		use.Error += ": " + reason
	}
	b, _ := json.Marshal(msg)
	r.emitToolStarted(iter, c)
	if h := r.cfg.hooks.ToolDone; h != nil {
		r.hook(func() { h(use) })
	}
	r.emitToolFinished(use)
	return callResult{use: use, content: string(b)}
}

// addRun adds the results of tool calls to the turn (see
// [runner.addResults]), but for the calls of sub-agents whose runs stopped
// to wait for approval: those are left unanswered, and their pending calls
// returned.
func (r *runner) addRun(results []callResult) []PendingCall {
	var pending []PendingCall
	done := results[:0:0]
	for _, res := range results {
		if sub := res.use.Run; sub != nil && sub.Status == StatusAwaitingApproval {
			pending = append(pending, sub.Pending...)
			r.resp.ToolsUsed = append(r.resp.ToolsUsed, res.use)
			continue
		}
		done = append(done, res)
	}
	r.addResults(done)
	return pending
}

// stopAwaiting ends the turn at calls waiting for approval.
func (r *runner) stopAwaiting(iter int, content string, pending []PendingCall) *Response {
	resp := r.resp
	resp.Status = StatusAwaitingApproval
	resp.Content = content
	resp.Pending = pending
	r.log.Info("run stopped to wait for approval", "iterations", iter, "pending", len(pending), "toolCalls", len(resp.ToolsUsed))
	return resp
}

// resumeTurn begins a turn given [WithDecisions]: the calls are answered
// (see [runner.resumeCalls]), then a handoff of the reply takes effect;
// stop is set when the run ends there.
func (r *runner) resumeTurn(ctx context.Context) (resp *Response, err error, stop bool) {
	if resp, err, stop := r.resumeCalls(ctx); stop {
		return resp, err, true
	}
	if r.handoff.to != nil {
		if err := r.switchAgent(); err != nil {
			resp, err := r.fail(err)
			return resp, err, true
		}
		r.output = newOutputSpec(r.agent)
	}
	return nil, nil, false
}

// resumeCalls answers the unanswered calls of the conversation's last
// assistant message, given [WithDecisions]: the calls of approval tools by
// the decisions, the others by running them; stop is set when the run
// ends there.
func (r *runner) resumeCalls(ctx context.Context) (resp *Response, err error, stop bool) {
	conv := r.resp.Conversation
	k := lastAssistant(conv)
	if n := len(conv) - 1; n > k && isImagesMessage(conv[n]) {
		// The images of the calls answered before the stop follow the
		// results of all the calls.
		img := conv[n]
		r.resp.Conversation = slices.Clip(conv[:n])
		defer func() { r.resp.Conversation = append(r.resp.Conversation, img) }()
	}
	answered := map[string]bool{}
	for _, m := range conv[k+1:] {
		answered[m.ToolCallID] = true
	}
	// A handoff of the reply, answered before the stop, takes effect once
	// the calls are answered (see [runner.run]).
	r.planHandoffs(conv[k].ToolCalls)
	var gated, other []ToolCall
	for _, c := range conv[k].ToolCalls {
		switch {
		case answered[c.ID]:
		case r.needsApproval(c):
			gated = append(gated, c)
		default:
			other = append(other, c)
		}
	}
	if err := CheckDecisions(r.agent, r.pendingCalls(gated), r.cfg.decisions); err != nil {
		resp, err := r.fail(err)
		return resp, err, true
	}
	start := time.Now()
	if len(other) > 0 {
		if pending := r.addRun(r.execute(ctx, 0, other)); len(pending) > 0 {
			return r.stopAwaiting(0, conv[k].Content, pending), nil, true
		}
	}
	results, err := r.decide(ctx, 0, gated, r.cfg.decisions)
	if err != nil {
		resp, err := r.fail(err)
		return resp, err, true
	}
	if pending := r.addRun(results); len(pending) > 0 {
		return r.stopAwaiting(0, conv[k].Content, pending), nil, true
	}
	r.log.Info("decisions applied", "calls", len(gated)+len(other), "duration", time.Since(start))
	return nil, nil, false
}

// lastAssistant returns the index of the last assistant message of conv,
// -1 when there is none.
func lastAssistant(conv Conversation) int {
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].Role == RoleAssistant {
			return i
		}
	}
	return -1
}

// checkResume checks a conversation continued with decisions: no new
// message, and a last assistant message with unanswered calls followed by
// tool messages only.
func checkResume(conv Conversation, input string) error {
	if input != "" {
		return &ValidationError{Field: "input", Message: "a run that applies decisions takes no new message; pass \"\" and the conversation that stopped awaiting approval"}
	}
	k := lastAssistant(conv)
	if k < 0 || len(conv[k].ToolCalls) == 0 {
		return &ValidationError{Field: "conversation", Message: "it does not end with tool calls waiting for decisions; pass the conversation of the response that stopped awaiting approval"}
	}
	answered := map[string]bool{}
	if n := len(conv) - 1; n > k && isImagesMessage(conv[n]) {
		conv = conv[:n] // see resumeCalls
	}
	for i, m := range conv[k+1:] {
		if m.Role != RoleTool {
			return &ValidationError{Field: fmt.Sprintf("conversation[%d]", k+1+i), Message: "a " + string(m.Role) + " message follows the calls waiting for decisions; pass the conversation of the response that stopped awaiting approval"}
		}
		answered[m.ToolCallID] = true
	}
	filled := conv.Clone()
	for _, c := range conv[k].ToolCalls {
		if !answered[c.ID] {
			filled = append(filled, Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, Content: "{}"})
		}
	}
	if len(filled) == len(conv) {
		return &ValidationError{Field: "conversation", Message: "every call of its last assistant message is answered: no call waits for a decision"}
	}
	return filled.Validate()
}

// isImagesMessage reports whether m is the user message with the images
// of a reply's tool results, which follows their tool messages.
func isImagesMessage(m Message) bool { return m.Role == RoleUser && len(m.Images) > 0 }
