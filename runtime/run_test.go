package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// TestOneToolCallThenAnswer drives the real openai-go client against the
// fake server: the request carries the tool definitions compiled from the
// agent file, the tool message answers the call by its id, and the response
// records the tool use, the iterations, the usage and the conversation.
func TestOneToolCallThenAnswer(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(fakeopenai.Call{ID: "call_abc", Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string { return "Answer: " + fakeopenai.LastToolResult(req) }),
	)
	prog := compile(t, helloSrc)
	agent := prog.Agents()[0]
	resp := h.mustRun(t, agent, runtime.Builtins(), nil, "Hi, I'm Bob")

	if resp.Status != runtime.StatusCompleted || resp.Iterations != 2 {
		t.Errorf("status %s, iterations %d; want completed, 2", resp.Status, resp.Iterations)
	}
	if want := "Answer: Hello, Bob! Nice to meet you."; resp.Content != want {
		t.Errorf("content %q, want %q", resp.Content, want)
	}
	if len(resp.ToolsUsed) != 1 {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	u := resp.ToolsUsed[0]
	if u.Name != "sayHello" || u.CallID != "call_abc" || u.Error != "" || u.Result != "Hello, Bob! Nice to meet you." ||
		u.Iteration != 1 || u.Duration <= 0 || u.RawArguments != `{"personName":"Bob"}` {
		t.Errorf("tool use: %+v", u)
	}
	if diff := cmp.Diff(map[string]any{"personName": "Bob"}, u.Arguments); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	wantUsage := runtime.Usage{PromptTokens: 2 * fakeopenai.PromptTokens, CompletionTokens: 2 * fakeopenai.CompletionTokens,
		TotalTokens: 2 * (fakeopenai.PromptTokens + fakeopenai.CompletionTokens)}
	if resp.Usage != wantUsage {
		t.Errorf("usage %+v, want %+v", resp.Usage, wantUsage)
	}

	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if got := first.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("authorization header %q", got)
	}
	if first.Body.Model != "gpt-4o-mini" {
		t.Errorf("model %q", first.Body.Model)
	}
	// The tools are exactly what `gramc schema` emits for the agent.
	var gotTools, wantTools any
	toolsJSON, _ := json.Marshal(first.Body.Tools)
	_ = json.Unmarshal(toolsJSON, &gotTools)
	wantJSON, _ := json.Marshal(schema.Emit(schema.FormatOpenAI, agent.Tools, false))
	_ = json.Unmarshal(wantJSON, &wantTools)
	if diff := cmp.Diff(wantTools, gotTools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	msgs := first.Body.Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Text() != agent.Instruction || msgs[1].Role != "user" || msgs[1].Text() != "Hi, I'm Bob" {
		t.Errorf("first request messages: %+v", msgs)
	}
	second := reqs[1].Body.Messages
	if len(second) != 4 {
		t.Fatalf("second request has %d messages: %+v", len(second), second)
	}
	a := second[2]
	if a.Role != "assistant" || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_abc" ||
		a.ToolCalls[0].Function.Name != "sayHello" || a.ToolCalls[0].Function.Arguments != `{"personName":"Bob"}` {
		t.Errorf("assistant message: %+v", a)
	}
	if tm := second[3]; tm.Role != "tool" || tm.ToolCallID != "call_abc" || tm.Text() != "Hello, Bob! Nice to meet you." {
		t.Errorf("tool message: %+v", tm)
	}

	var roles []runtime.Role
	for _, m := range resp.Conversation {
		roles = append(roles, m.Role)
	}
	if diff := cmp.Diff([]runtime.Role{"user", "assistant", "tool", "assistant"}, roles); diff != "" {
		t.Errorf("conversation roles (-want +got):\n%s", diff)
	}
	if resp.Conversation[2].ToolCallID != "call_abc" || resp.Conversation[3].Content != resp.Content {
		t.Errorf("conversation: %+v", resp.Conversation)
	}
}

// TestDefaultFromSpec: an omitted argument takes the default the agent file
// declares before the tool runs.
func TestDefaultFromSpec(t *testing.T) {
	h := newHarness(t, fakeopenai.Calls(call("sayHello", `{}`)), fakeopenai.Text("done"))
	src := strings.Replace(helloSrc, `default: "world"`, `default: "friend"`, 1)
	resp := h.mustRun(t, compile(t, src).Agents()[0], runtime.Builtins(), nil, "hello")
	if got := resp.ToolsUsed[0].Result; got != "Hello, friend! Nice to meet you." {
		t.Errorf("result %q", got)
	}
}

const barrierSrc = `
[slow:Tool {description: "Waits for its sibling"} | (n::Integer)==>(::String)]
[par:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Call slow twice."} | slow]
[seq:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Call slow twice.", parallelToolCalls: false} | slow]
`

// TestParallelToolCalls: the two calls of one response run concurrently
// (each waits until both have started) and their results come back in call
// order with their ids.
func TestParallelToolCalls(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("slow", `{"n":1}`), call("slow", `{"n":2}`)),
		fakeopenai.Text("both done"),
	)
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	lib := runtime.NewLibrary(toolFunc("slow", nil, func(ctx context.Context, args map[string]any) (any, error) {
		arrived.Done()
		select {
		case <-both:
		case <-time.After(5 * time.Second):
			return nil, errors.New("the other call never started: calls are not concurrent")
		}
		if args["n"] == json.Number("1") {
			time.Sleep(20 * time.Millisecond) // finish second, still listed first
		}
		return fmt.Sprintf("done %v", args["n"]), nil
	}))
	resp := h.mustRun(t, compile(t, barrierSrc).Agent("par"), lib, nil, "go")
	if len(resp.ToolsUsed) != 2 {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	for i, u := range resp.ToolsUsed {
		if u.Error != "" || u.Result != fmt.Sprintf("done %d", i+1) || u.CallID != fmt.Sprintf("call_1_%d", i+1) {
			t.Errorf("tool use %d: %+v", i, u)
		}
	}
	tms := toolMessages(h.srv.Requests()[1])
	if len(tms) != 2 || tms[0].ToolCallID != "call_1_1" || tms[0].Text() != "done 1" || tms[1].ToolCallID != "call_1_2" || tms[1].Text() != "done 2" {
		t.Errorf("tool messages: %+v", tms)
	}
	if p := h.srv.Requests()[0].Body.ParallelToolCalls; p != nil {
		t.Errorf("parallel_tool_calls sent as %v; want it left to the default", *p)
	}
}

// TestSequentialToolCalls: with parallelToolCalls: false the calls run one
// at a time and the model is told so.
func TestSequentialToolCalls(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("slow", `{"n":1}`), call("slow", `{"n":2}`), call("slow", `{"n":3}`)),
		fakeopenai.Text("done"),
	)
	var running, peak atomic.Int32
	lib := runtime.NewLibrary(toolFunc("slow", nil, func(ctx context.Context, args map[string]any) (any, error) {
		n := running.Add(1)
		if n > peak.Load() {
			peak.Store(n)
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		return "ok", nil
	}))
	h.mustRun(t, compile(t, barrierSrc).Agent("seq"), lib, nil, "go")
	if peak.Load() != 1 {
		t.Errorf("%d calls ran at once", peak.Load())
	}
	if p := h.srv.Requests()[0].Body.ParallelToolCalls; p == nil || *p {
		t.Errorf("parallel_tool_calls = %v, want false", p)
	}
}

const failSrc = `
[sayHello:Tool {description: "Greets"} | (personName::String {default: "world"})==>(::String)]
[lookupOrder:Tool {description: "Finds an order"} | (orderId::Integer {minimum: 1})==>(::String)]
[failing:Tool {description: "Always fails"} | ()==>(::String)]
[panicking:Tool {description: "Always panics"} | ()==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Try everything."} | sayHello, lookupOrder, failing, panicking]
`

// TestToolFailuresAreFedBack: bad JSON, invalid arguments, an unknown
// tool, a tool error, a tool panic and arguments that repeat a key each
// become an error result naming the tool (and the failing field or key),
// and the run completes.
func TestToolFailuresAreFedBack(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(
			call("sayHello", `{"personName":`),
			call("lookupOrder", `{"orderId":"seven"}`),
			call("lookupOrder", `{"orderId":0,"extra":true}`),
			call("nosuch", `{}`),
			call("failing", `{}`),
			call("panicking", `{}`),
			call("lookupOrder", `{"orderId":1,"\u006frderId":2}`),
		),
		fakeopenai.Text("Sorry, everything failed."),
	)
	lib := runtime.NewLibrary(
		runtime.SayHello(),
		toolFunc("lookupOrder", nil, func(context.Context, map[string]any) (any, error) { return "order", nil }),
		toolFunc("failing", nil, func(context.Context, map[string]any) (any, error) { return nil, errors.New("disk on fire") }),
		toolFunc("panicking", nil, func(context.Context, map[string]any) (any, error) { panic("boom") }),
	)
	resp := h.mustRun(t, compile(t, failSrc).Agents()[0], lib, nil, "try")
	if resp.Status != runtime.StatusCompleted || resp.Content != "Sorry, everything failed." {
		t.Errorf("status %s, content %q", resp.Status, resp.Content)
	}
	tms := toolMessages(h.srv.Requests()[1])
	want := [][]string{
		{`tool \"sayHello\"`, "not valid JSON"},
		{`tool \"lookupOrder\"`, "/orderId: must be integer, not string"},
		{`tool \"lookupOrder\"`, "/extra: is not a parameter of the tool", "/orderId: must be at least 1"},
		{`tool \"nosuch\"`, "unknown tool", "the available tools are: sayHello, lookupOrder, failing, panicking"},
		{`tool \"failing\"`, "disk on fire"},
		{`tool \"panicking\"`, "panicked: boom"},
		{`tool \"lookupOrder\"`, `invalid arguments: the key \"orderId\" appears twice`},
	}
	if len(tms) != len(want) {
		t.Fatalf("%d tool messages, want %d", len(tms), len(want))
	}
	for i, parts := range want {
		got := tms[i].Text()
		if !strings.HasPrefix(got, `{"error":`) {
			t.Errorf("tool message %d is not an error result: %s", i, got)
		}
		for _, p := range parts {
			if !strings.Contains(got, p) {
				t.Errorf("tool message %d = %s; want it to contain %q", i, got, p)
			}
		}
		if tms[i].ToolCallID != fmt.Sprintf("call_1_%d", i+1) {
			t.Errorf("tool message %d answers %q", i, tms[i].ToolCallID)
		}
		if !resp.ToolsUsed[i].Failed() {
			t.Errorf("tool use %d did not fail: %+v", i, resp.ToolsUsed[i])
		}
	}
	if !strings.Contains(h.logs.String(), "level=ERROR msg=\"tool call failed\"") {
		t.Errorf("no ERROR log for the failed calls:\n%s", h.logs.String())
	}
}

const loopSrc = `
[sayHello:Tool {description: "Greets"} | (personName::String {default: "world"})==>(::String)]
[looper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet forever.", maxIterations: 2} | sayHello]
`

// TestMaxIterations: after maxIterations model calls the run stops with
// its partial transcript; by default one last call without tools asks for
// a summary, which becomes the content.
func TestMaxIterations(t *testing.T) {
	agent := compile(t, loopSrc).Agents()[0]
	t.Run("summary", func(t *testing.T) {
		h := newHarness(t,
			fakeopenai.Calls(call("sayHello", `{"personName":"A"}`)),
			fakeopenai.Calls(call("sayHello", `{"personName":"B"}`)),
			fakeopenai.Text("I greeted A and B."),
		)
		resp := h.mustRun(t, agent, runtime.Builtins(), nil, "greet")
		if resp.Status != runtime.StatusMaxIterations || resp.Iterations != 2 || len(resp.ToolsUsed) != 2 {
			t.Errorf("status %s, iterations %d, %d tools used", resp.Status, resp.Iterations, len(resp.ToolsUsed))
		}
		if resp.Content != "I greeted A and B." || resp.FinishReason != "stop" {
			t.Errorf("content %q, finish reason %q", resp.Content, resp.FinishReason)
		}
		if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "limit of 2 model calls") || !strings.Contains(resp.Warnings[0], "summary") {
			t.Errorf("warnings %q", resp.Warnings)
		}
		var roles []runtime.Role
		for _, m := range resp.Conversation {
			roles = append(roles, m.Role)
		}
		if diff := cmp.Diff([]runtime.Role{"user", "assistant", "tool", "assistant", "tool", "assistant"}, roles); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
		reqs := h.srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		last := reqs[2].Body
		if last.ToolChoice != "none" {
			t.Errorf("summary request tool_choice %v, want none", last.ToolChoice)
		}
		if m := last.Messages[len(last.Messages)-1]; m.Role != "user" || !strings.Contains(m.Text(), "Do not call any tools") {
			t.Errorf("summary request ends with %+v", m)
		}
		if !strings.Contains(h.logs.String(), `level=WARN msg="maximum iterations reached"`) {
			t.Errorf("no WARN log:\n%s", h.logs.String())
		}
	})
	t.Run("no summary", func(t *testing.T) {
		h := newHarness(t,
			fakeopenai.Calls(call("sayHello", `{"personName":"A"}`)),
			fakeopenai.Calls(call("sayHello", `{"personName":"B"}`)),
		)
		resp := h.mustRun(t, agent, runtime.Builtins(), nil, "greet", runtime.WithSummary(false))
		want := "I need more time to process this request. Please try breaking it into smaller steps."
		if resp.Status != runtime.StatusMaxIterations || resp.Content != want || len(h.srv.Requests()) != 2 {
			t.Errorf("status %s, content %q, %d requests", resp.Status, resp.Content, len(h.srv.Requests()))
		}
		if resp.FinishReason != "tool_calls" {
			t.Errorf("finish reason %q", resp.FinishReason)
		}
		if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "limit of 2 model calls") {
			t.Errorf("warnings %q", resp.Warnings)
		}
		if n := len(resp.Conversation); n != 5 || resp.Conversation[n-1].Role != runtime.RoleTool {
			t.Errorf("conversation: %+v", resp.Conversation)
		}
	})
}

// TestMaxIterationsNoSummary: when the summary call fails or gives no text
// the answer is the fixed message, with the status and a warning that says
// why; WithMaxIterations overrides the agent's limit.
func TestMaxIterationsNoSummary(t *testing.T) {
	agent := compile(t, loopSrc).Agents()[0]
	for _, tc := range []struct {
		name, warning string
		last          fakeopenai.Step
	}{
		{"failed", "asking the model for a summary failed", fakeopenai.Error(400, "bad request")},
		{"empty", "the model gave no summary", fakeopenai.Text("  ")},
	} {
		h := newHarness(t, fakeopenai.Calls(call("sayHello", `{"personName":"A"}`)), tc.last)
		resp := h.mustRun(t, agent, runtime.Builtins(), nil, "greet", runtime.WithMaxIterations(1))
		if resp.Status != runtime.StatusMaxIterations || resp.Iterations != 1 || resp.Content != runtime.MaxIterationsMessage {
			t.Errorf("%s: status %s, iterations %d, content %q", tc.name, resp.Status, resp.Iterations, resp.Content)
		}
		if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "limit of 1 model calls") || !strings.Contains(resp.Warnings[0], tc.warning) {
			t.Errorf("%s: warnings %q", tc.name, resp.Warnings)
		}
	}
}

// TestRepeatedCallBlocked: the same call (same tool, same canonical
// arguments) made a third time in one turn is not run.
func TestRepeatedCallBlocked(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
		fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
		fakeopenai.Calls(call("sayHello", `{ "personName" : "Bob" }`), call("sayHello", `{"personName":"Ann"}`)),
		fakeopenai.Text("ok"),
	)
	var n atomic.Int32
	lib := runtime.NewLibrary(toolFunc("sayHello", nil, func(_ context.Context, args map[string]any) (any, error) {
		n.Add(1)
		return "hi " + args["personName"].(string), nil
	}))
	resp := h.mustRun(t, compile(t, helloSrc).Agents()[0], lib, nil, "hi", runtime.WithMaxIterations(5))
	if n.Load() != 3 {
		t.Errorf("the tool ran %d times, want 3 (Bob twice, Ann once)", n.Load())
	}
	u := resp.ToolsUsed[2]
	if !strings.Contains(u.Error, "blocked") {
		t.Errorf("third call: %+v", u)
	}
	if resp.ToolsUsed[3].Error != "" {
		t.Errorf("a different call was blocked: %+v", resp.ToolsUsed[3])
	}
	tms := toolMessages(h.srv.Requests()[3])
	if got := tms[2].Text(); !strings.Contains(got, "blocked") || !strings.Contains(got, "sayHello") {
		t.Errorf("blocked call fed back as %s", got)
	}
	if !strings.Contains(h.logs.String(), `level=WARN msg="repeated tool call blocked"`) {
		t.Error("no WARN log for the blocked call")
	}
}

// TestABLibraries: the same agent run with two libraries whose sayHello
// differ gives each implementation's output.
func TestABLibraries(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	variant := func(greeting string) *runtime.Library {
		return runtime.NewLibrary(toolFunc("sayHello", nil, func(_ context.Context, args map[string]any) (any, error) {
			return greeting + ", " + args["personName"].(string), nil
		}))
	}
	got := map[string]string{}
	for name, lib := range map[string]*runtime.Library{"A": variant("Hello from A"), "B": variant("Howdy from B")} {
		h := newHarness(t, fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)), fakeopenai.Textf(fakeopenai.LastToolResult))
		resp := h.mustRun(t, agent, lib, nil, "Hi, I'm Bob")
		got[name] = resp.Content
		if tm := toolMessages(h.srv.Requests()[1]); len(tm) != 1 || tm[0].Text() != resp.ToolsUsed[0].Result {
			t.Errorf("%s: tool messages %+v", name, tm)
		}
	}
	if diff := cmp.Diff(map[string]string{"A": "Hello from A, Bob", "B": "Howdy from B, Bob"}, got); diff != "" {
		t.Errorf("A/B (-want +got):\n%s", diff)
	}
}

// TestMultiTurn: the second turn's request carries the first turn's tool
// call and result.
func TestMultiTurn(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(fakeopenai.Call{ID: "call_first", Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Hello Bob!"),
		fakeopenai.Text("Goodbye Bob!"),
	)
	agent := compile(t, helloSrc).Agents()[0]
	r1 := h.mustRun(t, agent, runtime.Builtins(), nil, "Hi, I'm Bob")
	r2 := h.mustRun(t, agent, runtime.Builtins(), r1.Conversation, "Bye now")
	if r2.Content != "Goodbye Bob!" || r2.Iterations != 1 || len(r2.ToolsUsed) != 0 {
		t.Errorf("second turn %+v", r2)
	}
	if len(r1.Conversation) != 4 || len(r2.Conversation) != 6 {
		t.Errorf("conversations of %d and %d messages", len(r1.Conversation), len(r2.Conversation))
	}
	msgs := h.srv.Requests()[2].Body.Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool", "assistant", "user"}, roles); diff != "" {
		t.Fatalf("second turn roles (-want +got):\n%s", diff)
	}
	if c := msgs[2].ToolCalls; len(c) != 1 || c[0].ID != "call_first" || c[0].Function.Name != "sayHello" {
		t.Errorf("first turn's call: %+v", msgs[2])
	}
	if msgs[3].ToolCallID != "call_first" || msgs[3].Text() != "Hello, Bob! Nice to meet you." {
		t.Errorf("first turn's result: %+v", msgs[3])
	}
	if msgs[4].Text() != "Hello Bob!" || msgs[5].Text() != "Bye now" {
		t.Errorf("messages %+v", msgs[4:])
	}
}

// TestResultTruncated: a result over the limit reaches the model as head,
// marker and tail; ToolsUsed keeps it whole.
func TestResultTruncated(t *testing.T) {
	big := strings.Repeat("a", 20000) + strings.Repeat("é", 10000) + strings.Repeat("z", 20000)
	h := newHarness(t, fakeopenai.Calls(call("sayHello", `{}`)), fakeopenai.Text("ok"),
		fakeopenai.Calls(call("sayHello", `{}`)), fakeopenai.Text("ok"))
	lib := runtime.NewLibrary(toolFunc("sayHello", nil, func(context.Context, map[string]any) (any, error) { return big, nil }))
	agent := compile(t, helloSrc).Agents()[0]
	resp := h.mustRun(t, agent, lib, nil, "hi")
	got := toolMessages(h.srv.Requests()[1])[0].Text()
	if len(got) > runtime.DefaultResultLimit || !strings.HasPrefix(got, "aaaa") || !strings.HasSuffix(got, "zzzz") ||
		!strings.Contains(got, fmt.Sprintf("the full result has %d bytes", len(big))) {
		t.Errorf("truncated result: %d bytes, %q...%q", len(got), got[:10], got[len(got)-10:])
	}
	u := resp.ToolsUsed[0]
	if !u.Truncated || u.Result != big {
		t.Errorf("tool use: truncated %v, result of %d bytes", u.Truncated, len(fmt.Sprint(u.Result)))
	}
	h.mustRun(t, agent, lib, nil, "hi", runtime.WithResultLimit(1000))
	if got := toolMessages(h.srv.Requests()[3])[0].Text(); len(got) > 1000 || len(got) < 900 {
		t.Errorf("limit 1000: %d bytes", len(got))
	}
}

// TestLogLevels: INFO has iterations, tool calls and durations but no
// arguments or results; DEBUG adds them.
func TestLogLevels(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		h := newHarness(t, fakeopenai.Calls(call("sayHello", `{"personName":"Zebulon"}`)), fakeopenai.Text("done"))
		var buf logBuffer
		logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level}))
		h.mustRun(t, compile(t, helloSrc).Agents()[0], runtime.Builtins(), nil, "hi", runtime.WithLogger(logger))
		logs := buf.String()
		for _, want := range []string{`msg="model call"`, "iteration=1", "iteration=2", `msg="tool call"`, "tool=sayHello", "duration="} {
			if !strings.Contains(logs, want) {
				t.Errorf("%v: logs lack %q:\n%s", level, want, logs)
			}
		}
		if has := strings.Contains(logs, "Zebulon"); has != (level == slog.LevelDebug) {
			t.Errorf("%v: arguments in the logs: %v\n%s", level, has, logs)
		}
	}
}

// discard returns a logger that drops everything.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestConversationValidation: a bad history is a ValidationError naming
// the message's index and the problem, before any model call.
func TestConversationValidation(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	asked := runtime.Message{Role: runtime.RoleAssistant, ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "sayHello", Arguments: `{}`}}}
	for _, tc := range []struct {
		conv runtime.Conversation
		want string
	}{
		{runtime.Conversation{{Role: "bot", Content: "hi"}}, `invalid conversation[0]: unknown role "bot" (want user, assistant or tool)`},
		{runtime.Conversation{{Content: "hi"}}, `invalid conversation[0]: the message has no role (want user, assistant or tool)`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, {Role: "user", Content: " "}}, `invalid conversation[1]: the user message has no content`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, {Role: "tool", ToolCallID: "c1", Content: "x"}}, `invalid conversation[1]: the tool message answers the call "c1", which no earlier assistant message made`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked, {Role: "tool", ToolCallID: "c1"}, {Role: "tool", ToolCallID: "c1"}}, `invalid conversation[3]: the call "c1" is answered twice`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked, {Role: "tool"}}, `invalid conversation[2]: the tool message has no toolCallId`},
		{runtime.Conversation{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}}, `invalid conversation[0]: a history has no system message: the agent's instruction is sent as the system message; remove it (roles: user, assistant, tool)`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked, {Role: "tool", ToolCallID: "c1", Name: "sayGoodbye", Content: "x"}}, `invalid conversation[2]: the tool message names the tool "sayGoodbye", but the call "c1" it answers is to "sayHello"`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked, {Role: "user", Content: "well?"}}, `invalid conversation[1]: the tool call "c1" (sayHello) is never answered: conversation[2] (user) follows it; add a tool message with toolCallId "c1" right after the call, or remove the call`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked}, `invalid conversation[1]: the tool call "c1" (sayHello) is never answered: conversation[2] (user) follows it; add a tool message with toolCallId "c1" right after the call, or remove the call`},
		{runtime.Conversation{{Role: "user", Content: "hi"}, asked, {Role: "assistant", Content: "Hm."}, {Role: "tool", ToolCallID: "c1", Content: "x"}}, `invalid conversation[1]: the tool call "c1" (sayHello) is never answered: conversation[2] (assistant) follows it; add a tool message with toolCallId "c1" right after the call, or remove the call`},
		{runtime.Conversation{{Role: "assistant", ToolCalls: []runtime.ToolCall{{ID: "c1"}}}}, `invalid conversation[0]: tool call 0 (c1) has no tool name`},
	} {
		h := newHarness(t)
		resp, err := h.run(t, agent, runtime.Builtins(), tc.conv, "hello")
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || err.Error() != tc.want {
			t.Errorf("error %v, want %s", err, tc.want)
		}
		if resp.Status != runtime.StatusError || len(h.srv.Requests()) != 0 {
			t.Errorf("%s: status %s, %d requests", tc.want, resp.Status, len(h.srv.Requests()))
		}
	}
	// A conversation Run returned is valid, and so is an empty answer.
	h := newHarness(t, fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)), fakeopenai.Text("Hi Bob"), fakeopenai.Text("Bye"))
	resp := h.mustRun(t, agent, runtime.Builtins(), runtime.Conversation{{Role: "user", Content: "hi"}, {Role: "assistant"}}, "I'm Bob")
	if err := resp.Conversation.Validate(); err != nil {
		t.Fatal(err)
	}
	h.mustRun(t, agent, runtime.Builtins(), resp.Conversation, "bye")
}

// TestResultType: a result that does not match the declared return type is
// a tool error the model is told, naming the mismatch, and logged; String
// accepts any result, and JSON text counts as the value it encodes.
func TestResultType(t *testing.T) {
	src := `
[Money:Record {description: "An amount"} | (amount::Number), (currency::String)]
[price:Tool {description: "Prices an item"} | (sku::String)==>(::Money)]
[count:Tool {description: "Counts items"} | (sku::String)==>(::Integer)]
[label:Tool {description: "Labels an item"} | (sku::String)==>(::String)]
[shop:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help.", parallelToolCalls: false} | price, count, label]
`
	agent := compile(t, src).Agents()[0]
	for _, tc := range []struct {
		tool   string
		result any
		want   string // the tool error, "" for none
	}{
		{"price", map[string]any{"amount": 3}, `tool "price": the result does not match the declared return type Money: /currency: is required but missing`},
		{"price", map[string]any{"amount": "3", "currency": "EUR", "extra": true}, `tool "price": the result does not match the declared return type Money: /amount: must be number, not string; /extra: is not a field of the record`},
		{"price", struct {
			Amount   float64 `json:"amount"`
			Currency string  `json:"currency"`
		}{2.5, "EUR"}, ""},
		{"count", "many", `tool "count": the result does not match the declared return type Integer: must be integer, not string`},
		{"count", 1.5, `tool "count": the result does not match the declared return type Integer: must be integer, not number`},
		{"count", "42", ""},
		{"count", 42, ""},
		{"label", map[string]any{"any": "thing"}, ""},
		{"label", "plain text", ""},
	} {
		h := newHarness(t, fakeopenai.Calls(call(tc.tool, `{"sku":"A-1"}`)), fakeopenai.Text("ok"))
		result := tc.result
		ret := func(context.Context, map[string]any) (any, error) { return result, nil }
		lib := runtime.NewLibrary(toolFunc("price", nil, ret), toolFunc("count", nil, ret), toolFunc("label", nil, ret))
		resp := h.mustRun(t, agent, lib, nil, "go")
		u := resp.ToolsUsed[0]
		if u.Error != tc.want {
			t.Errorf("%s %v: error %q, want %q", tc.tool, tc.result, u.Error, tc.want)
		}
		if tc.want == "" {
			continue
		}
		if tm := toolMessages(h.srv.Requests()[1]); len(tm) != 1 || !strings.Contains(tm[0].Text(), "does not match the declared return type") {
			t.Errorf("%s: the model was told %+v", tc.tool, tm)
		}
		if !strings.Contains(h.logs.String(), "level=ERROR msg=\"tool call failed\"") || !strings.Contains(h.logs.String(), "does not match the declared return type") {
			t.Errorf("%s: not logged:\n%s", tc.tool, h.logs.String())
		}
	}
}

// TestAnswerHistory: with no new input, a history that ends with the
// user's message is answered as it is; one that does not is an error.
func TestAnswerHistory(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t, fakeopenai.Textf(func(req *fakeopenai.Request) string { return "You said: " + fakeopenai.LastUser(req) }))
	conv := runtime.Conversation{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "how are you?"}}
	resp := h.mustRun(t, agent, runtime.Builtins(), conv, "")
	if resp.Content != "You said: how are you?" || len(resp.Conversation) != 4 {
		t.Errorf("content %q, conversation %+v", resp.Content, resp.Conversation)
	}
	if msgs := h.srv.Requests()[0].Body.Messages; len(msgs) != 4 || msgs[3].Text() != "how are you?" {
		t.Errorf("sent %+v", msgs)
	}
	_, err := h.run(t, agent, runtime.Builtins(), conv[:2], " ")
	if err == nil || err.Error() != "invalid input: the message is empty" {
		t.Errorf("a history ending with the assistant and no input: %v", err)
	}
}

// TestUserInputSanitised: control characters other than newline and tab,
// the bidirectional embeddings, overrides and isolates, and bytes that are
// not UTF-8 are removed (or replaced) in the user's messages, the new one
// and the history's, before they are sent, with one warning per kind of
// change naming the characters and the messages; the response's
// conversation holds what the model saw. The direction marks are kept.
func TestUserInputSanitised(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t, fakeopenai.Text("ok"))
	conv := runtime.Conversation{{Role: "user", Content: "earlier\x1b[31m \u202egnp.exe\u202c"}, {Role: "assistant", Content: "Hello\x00"}}
	resp := h.mustRun(t, agent, runtime.Builtins(), conv, "line 1\r\n\tline 2\x00\x07 caf\xe9 \u0085end \u2067x\u2069 \u200f\u200e\u061c")
	msgs := h.srv.Requests()[0].Body.Messages
	want := "line 1\n\tline 2 caf\uFFFD end x \u200f\u200e\u061c"
	if got := msgs[len(msgs)-1].Text(); got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	if got := msgs[1].Text(); got != "earlier[31m gnp.exe" {
		t.Errorf("the history's user message was sent as %q", got)
	}
	if got := msgs[2].Text(); got != "Hello\x00" {
		t.Errorf("the assistant's message was changed to %q", got)
	}
	if got := resp.Conversation[0].Content + "|" + resp.Conversation[2].Content; got != "earlier[31m gnp.exe|"+want {
		t.Errorf("the response's conversation holds %q, not what the model saw", got)
	}
	wantWarnings := []string{
		"5 control characters (U+001B, U+000D, U+0000, U+0007, U+0085) were removed from the user's text before it was sent to the model, in conversation[0] and the new message",
		"4 bidirectional formatting characters (U+202E right-to-left override, U+202C pop directional formatting, U+2067 right-to-left isolate, U+2069 pop directional isolate) were removed from the user's text before it was sent to the model, in conversation[0] and the new message",
		"1 byte that is not UTF-8 was replaced by U+FFFD before the text was sent to the model, in the new message",
	}
	if diff := cmp.Diff(wantWarnings, resp.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if _, err := h.run(t, agent, runtime.Builtins(), nil, "\x00\u202e"); err == nil || !strings.Contains(err.Error(), "the message is empty") {
		t.Errorf("a message of control characters only: %v", err)
	}
}

// TestSanitizerWarnings: replacements made before the Sanitizer (by a JSON
// decoder) are counted with its own, and a warning names at most five
// places and eight characters.
func TestSanitizerWarnings(t *testing.T) {
	var z runtime.Sanitizer
	for i := range 7 {
		z.Text(fmt.Sprintf("m[%d]", i), string(rune(i+1))+"\u2066")
	}
	z.Text("m[7]", "\x0b\x0c\x0e\x0f")
	z.Replaced("m[8]", 2, 0)
	z.Replaced("m[9]", 0, 0)
	z.Replaced("m[9]", 0, 1)
	if got := z.Text("m[10]", "fine\n\ttext \u200f"); got != "fine\n\ttext \u200f" || !z.Changed() {
		t.Errorf("clean text changed to %q", got)
	}
	want := []string{
		"11 control characters (U+0001, U+0002, U+0003, U+0004, U+0005, U+0006, U+0007, U+000B, …) were removed from the user's text before it was sent to the model, in m[0], m[1], m[2], m[3], m[4] and 3 more",
		"7 bidirectional formatting characters (U+2066 left-to-right isolate) were removed from the user's text before it was sent to the model, in m[0], m[1], m[2], m[3], m[4] and 2 more",
		"2 bytes that are not UTF-8 and 1 escape of a lone surrogate were replaced by U+FFFD before the text was sent to the model, in m[8] and m[9]",
	}
	if diff := cmp.Diff(want, z.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	var none runtime.Sanitizer
	if none.Text("x", "ok") != "ok" || none.Changed() || none.Warnings() != nil {
		t.Error("a Sanitizer that changed nothing warns")
	}
}
