package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gramlang/gram/runtime"
)

// recorder is a checkpointer that records the steps of a run, or, when
// replaying, returns them without calling fn.
type recorder struct {
	mu     sync.Mutex
	steps  []string
	bytes  [][]byte
	replay bool
	next   int
}

func (r *recorder) checkpoint(ctx context.Context, step string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	r.mu.Lock()
	if r.replay {
		defer r.mu.Unlock()
		i := r.next
		r.next++
		if i >= len(r.steps) || r.steps[i] != step {
			return nil, fmt.Errorf("replay: step %d is %q, not the recorded one", i, step)
		}
		return r.bytes[i], nil
	}
	key := fmt.Sprintf("key-%d", len(r.steps))
	r.mu.Unlock()
	b, err := fn(runtime.WithIdempotencyKey(ctx, key))
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, step)
	r.bytes = append(r.bytes, b)
	return b, nil
}

// TestCheckpointReplay: a run with a checkpointer records its model and
// tool calls as steps, in the reply's order (the tools' calls one at a
// time, though the agent allows parallel calls), each tool seeing its
// step's key; a replay whose checkpointer returns the recorded steps, and
// whose model and tools fail if called, gives an equal response.
func TestCheckpointReplay(t *testing.T) {
	prog := compile(t, shopSrc)
	agent := prog.Agent("clerk")
	agent.Settings.ParallelToolCalls = true
	var running, overlap int
	var mu sync.Mutex
	tools := func(fail bool) *runtime.Library {
		return runtime.NewLibrary(runtime.Tool{Name: "refund", Invoke: func(ctx context.Context, args map[string]any) (any, error) {
			if fail {
				t.Error("a tool ran in the replay")
			}
			mu.Lock()
			running++
			if running > 1 {
				overlap++
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return map[string]any{"key": runtime.IdempotencyKey(ctx), "orderId": args["orderId"]}, nil
		}})
	}
	approveAll := runtime.WithApprover(func(context.Context, []runtime.PendingCall) ([]runtime.Decision, error) {
		return []runtime.Decision{{CallID: runtime.DecideAll, Approve: true}}, nil
	})
	rec := &recorder{}
	m := runtime.NewScripted(runtime.CallReply(
		runtime.ToolCall{ID: "a", Name: "refund", Arguments: `{"orderId":1}`},
		runtime.ToolCall{ID: "b", Name: "refund", Arguments: `{"orderId":2}`},
		runtime.ToolCall{ID: "c", Name: "refund", Arguments: `{"orderId":3}`},
	), runtime.TextReply("Refunded three."))
	first, err := runtime.Run(context.Background(), agent, tools(false), nil, "Refund 1, 2 and 3",
		runtime.WithModel(m), runtime.WithLogger(discard()), runtime.WithCheckpointer(rec.checkpoint), approveAll)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"model:clerk", "tool:refund", "tool:refund", "tool:refund", "model:clerk"}
	if !slices.Equal(rec.steps, want) {
		t.Errorf("steps %v, want %v", rec.steps, want)
	}
	if overlap > 0 {
		t.Errorf("%d calls ran at the same time", overlap)
	}
	if s := string(rec.bytes[2]); !strings.Contains(s, `"key":"key-2"`) || !strings.Contains(s, `"orderId":2`) {
		t.Errorf("step 2 %s", s)
	}
	rec.replay = true
	failing := runtime.NewScripted()
	again, err := runtime.Run(context.Background(), agent, tools(true), nil, "Refund 1, 2 and 3",
		runtime.WithModel(failing), runtime.WithLogger(discard()), runtime.WithCheckpointer(rec.checkpoint), approveAll)
	if err != nil {
		t.Fatal(err)
	}
	if len(failing.Requests()) != 0 {
		t.Errorf("the model was called %d times in the replay", len(failing.Requests()))
	}
	if d := cmp.Diff(first, again, cmpopts.IgnoreFields(runtime.Response{}, "RunID"), cmpopts.IgnoreFields(runtime.ToolUse{}, "Duration")); d != "" {
		t.Errorf("the replay differs (-first +replay):\n%s", d)
	}
}

// TestExecIdempotencyKey: a program tool gets the key of its step in
// GRAM_IDEMPOTENCY_KEY, and none outside a step.
func TestExecIdempotencyKey(t *testing.T) {
	needShell(t)
	tool := runtime.ExecTool("keyed", `printf '%s' "${GRAM_IDEMPOTENCY_KEY-unset}"`, 0)
	got, err := tool.Invoke(runtime.WithIdempotencyKey(context.Background(), "run-1/step-4"), map[string]any{})
	if err != nil || got != "run-1/step-4" {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := tool.Invoke(context.Background(), map[string]any{}); err != nil || got != "unset" {
		t.Errorf("outside a step: %v, %v", got, err)
	}
}
