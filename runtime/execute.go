// Tool calls: for each call of a reply, look the tool up, block a call
// repeated a third time, parse the arguments, apply defaults and validate
// them, set the injected parameters, invoke the tool (recovering panics) and
// turn the result or the failure into the tool message's content. The calls
// of one reply run concurrently when the agent allows it; results keep the
// order of the calls.

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/schema"
)

// RepeatLimit is the number of times the same call (same tool, same
// arguments) may be made in one turn; the next ones are blocked.
const RepeatLimit = 2

// callResult is a finished tool call: its record and the content sent to
// the model.
type callResult struct {
	use     ToolUse
	content string
}

// callCheck is what is settled about a call before it runs: blocked when
// it repeats a call too often; admitted when it was counted against the
// budget of tool calls ahead of running, with refused the error of a call
// that budget refused.
type callCheck struct {
	blocked, admitted bool
	refused           error
}

// execute runs the tool calls of one reply. Calls that run at once are
// admitted against the budget of tool calls first, in the order the model
// gave them, so that the first ones run and the later ones are refused.
func (r *runner) execute(ctx context.Context, iter int, calls []ToolCall) []callResult {
	r.planHandoffs(calls)
	checks := make([]callCheck, len(calls))
	for i, c := range calls {
		key := c.Name + "\x00" + canonicalJSON([]byte(c.Arguments))
		r.seen[key]++
		checks[i].blocked = r.seen[key] > RepeatLimit
	}
	results := make([]callResult, len(calls))
	if r.agent.Settings.ParallelToolCalls && len(calls) > 1 && r.cfg.checkpointer == nil {
		for i, c := range calls {
			if _, handoff := r.handoff.plan[c.ID]; !handoff {
				checks[i].admitted, checks[i].refused = true, r.admitToolCall(c)
			}
		}
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = r.callTool(ctx, iter, calls[i], checks[i])
			}()
		}
		wg.Wait()
	} else {
		for i := range calls {
			results[i] = r.callTool(ctx, iter, calls[i], checks[i])
		}
	}
	return results
}

// admitToolCall counts call against the budget of tool calls, or returns
// the error of its refusal when a budget of tool calls is spent.
func (r *runner) admitToolCall(call ToolCall) error {
	owner, max, ok := r.cfg.tree.takeToolCall()
	if ok {
		return nil
	}
	return &ToolError{Tool: call.Name, Kind: ToolFailed, Message: fmt.Sprintf(
		"not run: %s maxToolCalls: %d is spent, and the run stops here", owner, max)}
}

// callTool runs one tool call; every failure becomes an error result.
func (r *runner) callTool(ctx context.Context, iter int, call ToolCall, chk callCheck) callResult {
	r.emitToolStarted(iter, call)
	start := time.Now()
	use := ToolUse{Iteration: iter, CallID: call.ID, Name: call.Name, RawArguments: call.Arguments}
	var content string
	if r.isStep(call) {
		content = r.checkpointedOutcome(ctx, call, chk, &use)
	} else {
		content = r.outcome(ctx, call, chk, &use)
	}
	if limit := r.cfg.resultLimit; limit > 0 && len(content) > limit {
		content = truncate(content, limit)
		use.Truncated = true
		r.log.Warn("tool result truncated", "tool", call.Name, "iteration", iter, "limit", limit)
	}
	use.Duration = time.Since(start)
	if use.Error != "" {
		r.log.Error("tool call failed", "tool", call.Name, "iteration", iter, "callId", call.ID, "duration", use.Duration, "error", use.Error)
	} else if r.log.Enabled(ctx, slog.LevelInfo) {
		r.log.Info("tool call", "tool", call.Name, "iteration", iter, "callId", call.ID, "duration", use.Duration)
	}
	if r.log.Enabled(ctx, slog.LevelDebug) {
		r.log.Debug("tool call details", "tool", call.Name, "callId", call.ID, "arguments", call.Arguments, "result", content)
	}
	if h := r.cfg.hooks.ToolDone; h != nil {
		r.hook(func() { h(use) })
	}
	r.emitToolFinished(use)
	return callResult{use: use, content: content}
}

// outcome runs one call and returns the content sent to the model; use
// gets the arguments, the result or the error.
func (r *runner) outcome(ctx context.Context, call ToolCall, chk callCheck, use *ToolUse) string {
	result, err := r.invoke(ctx, call, chk, use)
	var content string
	if err == nil {
		use.Result = result
		content, err = resultContent(call.Name, result)
	}
	if err != nil {
		use.Result = nil
		use.Images = nil
		use.Error = err.Error()
		content = errorContent(use.Error)
	}
	return content
}

// invoke checks and runs one call.
func (r *runner) invoke(ctx context.Context, call ToolCall, chk callCheck, use *ToolUse) (result any, err error) {
	if result, err, ok := r.handoffCall(call); ok {
		return result, err
	}
	if !chk.admitted {
		chk.refused = r.admitToolCall(call)
	}
	if chk.refused != nil {
		return nil, chk.refused
	}
	b, ok := r.tools.Lookup(call.Name)
	if !ok || r.cfg.noTools {
		avail := "this agent has no tools"
		if names := r.tools.Names(); r.cfg.noTools {
			avail = "this run offers the model no tools"
		} else if len(names) > 0 {
			avail = "the available tools are: " + strings.Join(names, ", ")
		}
		return nil, &ToolError{Tool: call.Name, Kind: ToolUnknown, Message: "unknown tool; " + avail}
	}
	if chk.blocked {
		r.log.Warn("repeated tool call blocked", "tool", call.Name, "limit", RepeatLimit)
		return nil, &ToolError{Tool: call.Name, Kind: ToolBlocked, Message: fmt.Sprintf(
			"blocked: this exact call (same arguments) was already made %d times in this turn; use the earlier results or change the arguments", RepeatLimit)}
	}
	args, err := r.arguments(b.Spec, call.Arguments)
	if err != nil {
		return nil, err
	}
	use.Arguments = args
	defer func() {
		if p := recover(); p != nil {
			r.log.Debug("tool panic", "tool", call.Name, "stack", string(debug.Stack()))
			result, err = nil, &ToolError{Tool: call.Name, Kind: ToolFailed, Message: fmt.Sprintf("the tool panicked: %v", p)}
		}
	}()
	ctx = withToolLogger(ctx, r.log.With("tool", call.Name, "callId", call.ID))
	if r.cfg.toolTrace != nil {
		ctx = withToolTrace(ctx, toolTrace{w: r.cfg.toolTrace, tool: call.Name, call: call.ID, run: r.cfg.tree.label})
	}
	if b.Spec.Agent != "" {
		result, err = r.invokeAgent(ctx, call, b.Spec, args, use)
	} else {
		result, err = b.Tool.Invoke(withResultLimit(ctx, r.cfg.resultLimit), args)
	}
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) && te.Tool == call.Name {
			return nil, err
		}
		return nil, &ToolError{Tool: call.Name, Kind: ToolFailed, Message: "failed", Err: err}
	}
	if tr := asToolResult(result); tr != nil {
		result = tr.forSpec(b.Spec)
		for _, img := range tr.Images {
			if slices.Contains(ImageMIMETypes, img.MIMEType) {
				use.Images = append(use.Images, img)
			}
		}
	}
	if err := checkResult(b.Spec, result); err != nil {
		return nil, &ToolError{Tool: call.Name, Kind: ToolBadResult, Message: err.Error()}
	}
	return result, nil
}

// checkResult checks a result against the tool's declared return type
// (see [schema.ValidateResult]): text is read as JSON when it parses, Go
// values as the JSON they encode to.
func checkResult(spec *schema.Tool, result any) error {
	if spec.Returns == nil || spec.Returns.Kind == schema.StringType {
		return nil
	}
	var v any
	switch x := result.(type) {
	case string:
		v = x
		if d, err := jsonvalue.Decode([]byte(x)); err == nil {
			v = d
		}
	case json.RawMessage:
		v, _ = jsonvalue.Decode(x)
	case []byte:
		v = string(x)
		if d, err := jsonvalue.Decode(x); err == nil {
			v = d
		}
	default:
		b, err := jsonvalue.Marshal(result)
		if err != nil {
			return nil // reported when the result is encoded
		}
		v, _ = jsonvalue.Decode(b)
	}
	err := schema.ValidateResult(spec, v)
	var re *schema.ResultError
	if errors.As(err, &re) {
		return errors.New(re.Mismatch())
	}
	return err
}

// arguments parses, completes and validates the model's arguments and sets
// the injected parameters. Values the model sent for injected parameters
// are dropped first, with a warning: the host's values always win.
func (r *runner) arguments(spec *schema.Tool, raw string) (map[string]any, error) {
	var injected map[string]any
	for _, p := range spec.Params {
		if v, ok := r.cfg.injected[p.Name]; ok && p.Injected {
			if injected == nil {
				injected = map[string]any{}
			}
			injected[p.Name] = v
		}
	}
	data, dropped := dropInjected(spec, []byte(raw))
	for _, name := range dropped {
		r.warnOnce(fmt.Sprintf("tool %q: the model sent a value for the injected parameter %s; the host's value was used instead", spec.Name, name))
	}
	args, err := schema.ValidateArgs(spec, data)
	if err != nil {
		return nil, err
	}
	if err := schema.InjectArgs(spec, args, injected); err != nil {
		var ae *schema.ArgsError
		if errors.As(err, &ae) {
			return nil, &ToolError{Tool: spec.Name, Kind: ToolInjection, Message: "the host did not supply valid injected parameters (" + problemsText(ae) + ")"}
		}
		return nil, err
	}
	return args, nil
}

// dropInjected returns the arguments object data without the keys that
// name injected parameters of spec, compared once decoded (a key spelled
// with escapes, "us\u0065r_id", is user_id), and the names it dropped.
// Arguments that are not a JSON object, or that repeat a key (which
// decoding and encoding them again would hide), are returned as they are,
// for validation to refuse.
func dropInjected(spec *schema.Tool, data []byte) ([]byte, []string) {
	var names []string
	for _, p := range spec.Params {
		if p.Injected && (bytes.IndexByte(data, '\\') >= 0 || bytes.Contains(data, []byte(`"`+p.Name+`"`))) {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return data, nil
	}
	v, err := jsonvalue.Decode(data)
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return data, nil
	}
	if _, _, dup := jsonvalue.DuplicateKey(data); dup {
		return data, nil
	}
	var dropped []string
	for _, n := range names {
		if _, sent := obj[n]; sent {
			delete(obj, n)
			dropped = append(dropped, n)
		}
	}
	if len(dropped) == 0 {
		return data, nil
	}
	b, err := jsonvalue.Marshal(obj)
	if err != nil {
		return data, nil
	}
	return b, dropped
}

// problemsText lists the problems of an ArgsError.
func problemsText(e *schema.ArgsError) string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = strings.TrimSpace(p.Pointer + " " + p.Message)
	}
	return strings.Join(parts, "; ")
}

// resultContent is the text sent to the model for a result: a string as
// is, JSON text as is, anything else encoded as JSON. A [ToolResult] has
// been reduced to one of its forms before.
func resultContent(tool string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.RawMessage:
		if len(x) == 0 {
			return "null", nil
		}
		return string(x), nil
	case []byte:
		return string(x), nil
	case nil:
		return "null", nil
	}
	b, err := jsonvalue.Marshal(v)
	if err != nil {
		return "", &ToolError{Tool: tool, Kind: ToolBadResult, Message: "its result cannot be encoded as JSON", Err: err}
	}
	return string(b), nil
}

// errorContent is the content of an error result.
func errorContent(msg string) string {
	b, _ := jsonvalue.Marshal(map[string]string{"error": msg})
	return string(b)
}

// truncate cuts s to at most limit bytes, keeping its head and tail around
// a marker, on UTF-8 boundaries.
func truncate(s string, limit int) string {
	marker := fmt.Sprintf("\n[... truncated: the full result has %d bytes ...]\n", len(s))
	room := limit - len(marker)
	if room < 2 {
		return clip.Runes(s, limit)
	}
	head := clip.Runes(s, room/2)
	tail := s[len(s)-(room-len(head)):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + marker + tail
}
