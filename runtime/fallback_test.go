package runtime_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeanthropic"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// fallbackEnv is an environment with OpenAI's and Anthropic's endpoints.
func fallbackEnv(openaiURL, anthropicURL string) func(string) string {
	return func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": openaiURL, "OPENAI_API_KEY": testKey,
			"ANTHROPIC_BASE_URL": anthropicURL, "ANTHROPIC_API_KEY": "sk-ant-fallback-key"}[k]
	}
}

var claude = runtime.Fallback{Model: schema.Model{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"}}

func TestRunFallsBackToAnthropic(t *testing.T) {
	down := fakeopenai.New(t)
	down.Default = fakeopenai.Error(http.StatusServiceUnavailable, "down for maintenance")
	ant := fakeanthropic.New(t,
		fakeanthropic.ToolUse(fakeanthropic.Call{Name: "sayHello", Input: `{"personName":"Bob"}`}),
		fakeanthropic.Text("Hello, Bob!"))
	agent := compile(t, helloSrc).Agents()[0]
	var events []runtime.Event
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(down.URL, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithFallbacks(claude),
		runtime.WithEvents(func(e runtime.Event) { events = append(events, e) }))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if resp.Status != runtime.StatusCompleted || resp.Content != "Hello, Bob!" || len(resp.ToolsUsed) != 1 {
		t.Fatalf("status %s, content %q, tools %d", resp.Status, resp.Content, len(resp.ToolsUsed))
	}
	// The agent's model was tried with its retries, once: the fallback
	// serves the rest of the turn.
	if n := len(down.Requests()); n != 1+runtime.DefaultMaxRetries {
		t.Errorf("%d requests to the OpenAI endpoint, want %d", n, 1+runtime.DefaultMaxRetries)
	}
	reqs := ant.Requests()
	if len(reqs) != 2 || reqs[0].Body.Model != "claude-sonnet-4-5" || reqs[1].Body.Model != "claude-sonnet-4-5" {
		t.Fatalf("%d requests to Anthropic", len(reqs))
	}
	var fb []runtime.Event
	for _, e := range events {
		if e.Type == runtime.EventModelFallback {
			fb = append(fb, e)
		}
	}
	if len(fb) != 1 || fb[0].Model != "OpenAI/gpt-4o-mini" || fb[0].Fallback != "Anthropic/claude-sonnet-4-5" || fb[0].Err == nil {
		t.Fatalf("fallback events: %+v", fb)
	}
	if len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "503 Service Unavailable after 3 attempts") ||
		!strings.Contains(resp.Warnings[0], "Anthropic/claude-sonnet-4-5") {
		t.Errorf("warnings: %q", resp.Warnings)
	}
}

func TestRunClosedPortFallsBack(t *testing.T) {
	down := fakeopenai.New(t)
	url := down.URL
	down.Close()
	ant := fakeanthropic.New(t, fakeanthropic.Text("Hi!"))
	agent := compile(t, helloSrc).Agents()[0]
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(url, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)), runtime.WithFallbacks(claude))
	if err != nil || resp.Content != "Hi!" {
		t.Fatalf("run: %v, content %q", err, resp.Content)
	}
}

func TestRunNoFallbackOnBadRequest(t *testing.T) {
	bad := fakeopenai.New(t, fakeopenai.Error(http.StatusBadRequest, "invalid tool schema"))
	ant := fakeanthropic.New(t)
	agent := compile(t, helloSrc).Agents()[0]
	_, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(bad.URL, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)), runtime.WithFallbacks(claude))
	if err == nil {
		t.Fatal("a 400 answer fell back")
	}
	if n := len(ant.Requests()); n != 0 {
		t.Errorf("%d requests to the fallback after a 400", n)
	}
}

func TestFallsBack(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&runtime.LLMError{Kind: runtime.LLMStatus, StatusCode: 503}, true},
		{&runtime.LLMError{Kind: runtime.LLMStatus, StatusCode: runtime.StatusOverloaded}, true},
		{&runtime.LLMError{Kind: runtime.LLMRateLimit, StatusCode: 429}, true},
		{&runtime.LLMError{Kind: runtime.LLMTimeout}, true},
		{&runtime.LLMError{Kind: runtime.LLMNetwork}, true},
		{&runtime.LLMError{Kind: runtime.LLMStatus, StatusCode: 400}, false},
		{&runtime.LLMError{Kind: runtime.LLMStatus, StatusCode: 404}, false},
		{&runtime.ConfigError{Message: "key rejected"}, false},
		{context.Canceled, false},
	} {
		if got := runtime.FallsBack(tc.err); got != tc.want {
			t.Errorf("FallsBack(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestFallbackLogsTheModelInUse: once a call moved to a fallback model,
// the log's model calls name that model, which serves the rest of the
// turn.
func TestFallbackLogsTheModelInUse(t *testing.T) {
	down := fakeopenai.New(t)
	down.Default = fakeopenai.Error(http.StatusServiceUnavailable, "down for maintenance")
	ant := fakeanthropic.New(t,
		fakeanthropic.ToolUse(fakeanthropic.Call{Name: "sayHello", Input: `{"personName":"Bob"}`}),
		fakeanthropic.Text("Hello, Bob!"))
	agent := compile(t, helloSrc).Agents()[0]
	var log strings.Builder
	_, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(down.URL, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.NewTextHandler(&log, nil))), runtime.WithFallbacks(claude))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var models []string
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, `msg="model call"`) {
			models = append(models, line[strings.Index(line, " model="):])
		}
	}
	want := []string{" model=OpenAI/gpt-4o-mini messages=2", " model=Anthropic/claude-sonnet-4-5 messages=4"}
	if strings.Join(models, "|") != strings.Join(want, "|") {
		t.Errorf("the model calls logged %q, want %q", models, want)
	}
}

// TestStreamedTextDoesNotFallBack: a streamed answer that stops after its
// first text was delivered (here, past the agent's timeout) fails as it
// would without fallbacks: the fallback's answer would follow the text
// already shown.
func TestStreamedTextDoesNotFallBack(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	slow := fakeopenai.New(t, fakeopenai.Paused(3, gate, fakeopenai.Text(strings.Repeat("a long answer that stops ", 5))))
	ant := fakeanthropic.New(t, fakeanthropic.Text("Hello from the fallback"))
	agent := compile(t, strings.Replace(helloSrc, "maxIterations: 3,", "maxIterations: 3, timeout: 300ms,", 1)).Agents()[0]
	var text strings.Builder
	_, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(slow.URL, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)), runtime.WithFallbacks(claude), runtime.WithStreaming(true),
		runtime.WithEvents(func(e runtime.Event) {
			if e.Type == runtime.EventTextDelta {
				text.WriteString(e.Text)
			}
		}))
	if err == nil || text.Len() == 0 {
		t.Fatalf("err %v, text %q: want the timeout after some text", err, text.String())
	}
	if n := len(ant.Requests()); n != 0 || strings.Contains(text.String(), "fallback") {
		t.Errorf("%d requests to the fallback; text shown %q", n, text.String())
	}
}

// TestHandoffAfterFallback: after a fallback, a handoff to an agent of the
// same model starts from that model's own client again, its requests
// naming its own model, not the fallback's.
func TestHandoffAfterFallback(t *testing.T) {
	triage, billing := handoffAgents()
	triage.Model = schema.Model{Provider: schema.OpenAI, ID: "gpt-4o-mini"}
	billing.Model = triage.Model
	lib := runtime.NewLibrary(
		runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "paid", nil }},
		runtime.Tool{Name: "faq", Invoke: func(context.Context, map[string]any) (any, error) { return "see faq", nil }})
	down := fakeopenai.New(t, fakeopenai.Error(503, "down"), fakeopenai.Error(503, "down"), fakeopenai.Error(503, "down"),
		fakeopenai.Text("Invoice 7 is paid."))
	ant := fakeanthropic.New(t, fakeanthropic.ToolUse(fakeanthropic.Call{Name: "transfer_to_billing", Input: `{}`}))
	resp, err := runtime.Run(context.Background(), triage, lib, nil, "invoice 7?",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: fallbackEnv(down.URL, ant.URL), Retry: noWait()}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)), runtime.WithFallbacks(claude), runtime.WithProgram(program(triage, billing)))
	if err != nil || resp.Agent != "billing" {
		t.Fatalf("err %v, response %+v", err, resp)
	}
	for _, r := range down.Requests() {
		if r.Body.Model != "gpt-4o-mini" {
			t.Errorf("a request to the OpenAI endpoint names the model %q", r.Body.Model)
		}
	}
}
