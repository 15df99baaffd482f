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

import "context"

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
