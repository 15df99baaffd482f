// Checkpoints: the steps of a durable run. With a [Checkpointer], each
// model call of a run (its retries and fallbacks included) is one step
// named "model:AGENT" and each call of a tool bound from the library one
// step named "tool:TOOL"; a call of a sub-agent and a handoff are not
// steps (the nested run's own calls are). A step's bytes are the JSON of
// the model's reply or of the call's outcome, and the run reads them back
// the same way whether fn ran or a store returned what it recorded, so a
// replayed run equals the first one. With a checkpointer the calls of one
// reply run one after another, in the reply's order, so that the order of
// the steps is the same on every replay.

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Checkpointer runs one step of a run at most once per completed result: a
// durable store records fn's result under the step's place in the run, and
// when the run is replayed it returns the recorded result without calling
// fn again. It may give fn a context with the step's key
// ([WithIdempotencyKey]), which the tools read.
type Checkpointer func(ctx context.Context, step string, fn func(context.Context) ([]byte, error)) ([]byte, error)

// WithCheckpointer makes every model call and tool call of the run, and of
// the runs it starts (sub-agents), a step of c (see the file's overview).
// The calls of one reply then run one at a time, in order.
func WithCheckpointer(c Checkpointer) Option { return func(cfg *runConfig) { cfg.checkpointer = c } }

// idempotencyKey is the context key of [WithIdempotencyKey].
type idempotencyKey struct{}

// WithIdempotencyKey returns ctx carrying key, the idempotency key of the
// tool call run under it: a [Checkpointer] gives it to the step it runs.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKey is the key of the tool call being run, "" outside a
// checkpointed step. Go tools read it from their context; program tools
// (see [ExecTool]) get it in the environment variable GRAM_IDEMPOTENCY_KEY;
// MCP tools in the request's _meta ("io.gram/idempotency-key").
func IdempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}

// toolStep is the JSON of a tool call's outcome, a step's bytes.
type toolStep struct {
	Arguments map[string]any `json:"arguments,omitempty"`
	Result    any            `json:"result,omitempty"`
	Images    []Image        `json:"images,omitempty"`
	Error     string         `json:"error,omitempty"`
	Content   string         `json:"content"`
}

// isStep reports whether a call is a step of the run's checkpointer: a
// call of a tool other than a sub-agent or a handoff.
func (r *runner) isStep(call ToolCall) bool {
	if r.cfg.checkpointer == nil {
		return false
	}
	if _, handoff := r.handoff.plan[call.ID]; handoff {
		return false
	}
	b, ok := r.tools.Lookup(call.Name)
	return !ok || b.Spec == nil || b.Spec.Agent == ""
}

// checkpointedOutcome is [runner.outcome] as the step "tool:NAME": use and
// the content are read back from the step's bytes, whether the tool ran or
// the checkpointer returned what it recorded.
func (r *runner) checkpointedOutcome(ctx context.Context, call ToolCall, chk callCheck, use *ToolUse) string {
	b, err := r.cfg.checkpointer(ctx, "tool:"+call.Name, func(ctx context.Context) ([]byte, error) {
		var u ToolUse
		content := r.outcome(ctx, call, chk, &u)
		if err := ctx.Err(); err != nil {
			return nil, err // not a result to record
		}
		return json.Marshal(toolStep{Arguments: u.Arguments, Result: stepValue(u.Result), Images: u.Images, Error: u.Error, Content: content})
	})
	var st toolStep
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the run's checkpoint of the call failed: %w", err)
		}
		te := &ToolError{Tool: call.Name, Kind: ToolFailed, Message: "not run", Err: err}
		use.Error = te.Error()
		return errorContent(use.Error)
	}
	use.Arguments, use.Result, use.Images, use.Error = st.Arguments, st.Result, st.Images, st.Error
	return st.Content
}

// stepValue is a result as it is written in a step: text as a JSON string,
// anything else as its JSON.
func stepValue(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	if raw, ok := v.(json.RawMessage); ok && !json.Valid(raw) {
		return string(raw)
	}
	return v
}

// completeStep makes a model call (see [runner.completeFrom]) as the step
// "model:AGENT" when the run has a checkpointer; the reply is read back
// from the step's bytes either way.
func (r *runner) completeStep(ctx context.Context, iter int, req *Request) (*Reply, error) {
	ctx = r.cfg.tree.traceContext(ctx)
	cp := r.cfg.checkpointer
	if cp == nil {
		return r.completeFrom(ctx, iter, req)
	}
	b, err := cp(ctx, "model:"+r.agent.Name, func(ctx context.Context) ([]byte, error) {
		reply, err := r.completeFrom(ctx, iter, req)
		if err != nil {
			return nil, err
		}
		if reply == nil {
			return nil, &LLMError{Kind: LLMBadResponse, Attempts: 1, Err: errors.New("the model returned no reply")}
		}
		return json.Marshal(reply)
	})
	if err != nil {
		return nil, err
	}
	var reply Reply
	if err := json.Unmarshal(b, &reply); err != nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 1, Err: fmt.Errorf("the run's checkpoint of the model call cannot be read: %w", err)}
	}
	return &reply, nil
}
