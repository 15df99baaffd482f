package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeanthropic"
	"github.com/gramlang/gram/schema"
)

// anthropicSrc is the hello agent on Anthropic, with two tools.
const anthropicSrc = `{ kind: "agents" }
[sayHello:Tool {description: "Returns a friendly greeting for the given name"} |
  (personName::String {default: "world", description: "The name of the person to greet"})==>(::String)
]
[sayGoodbye:Tool {description: "Says goodbye"} |
  (personName::String)==>(::String)
]
[hello_agent:Agent {
  model: "Anthropic/claude-sonnet-4-5",
  maxIterations: 3,
  parallelToolCalls: true,
  instruction: "Greet the user with the sayHello tool."
} |
  sayHello,
  sayGoodbye
]
`

// anthropicEnv is an environment with ANTHROPIC_BASE_URL at url.
func anthropicEnv(url, key string) func(string) string {
	return func(k string) string {
		return map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": key}[k]
	}
}

func noWait() runtime.RetryPolicy {
	return runtime.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
}

func TestRunAnthropicToolCall(t *testing.T) {
	const key = "sk-ant-test-0123456789"
	srv := fakeanthropic.NewWithKey(t, key,
		fakeanthropic.ToolUse(
			fakeanthropic.Call{Name: "sayHello", Input: `{"personName":"Bob"}`},
			fakeanthropic.Call{Name: "sayGoodbye", Input: `{"personName":"Ann"}`}),
		fakeanthropic.Text("Hello, Bob!"))
	prog := compile(t, anthropicSrc)
	agent := prog.Agents()[0]
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, key), Retry: noWait()}))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if resp.Status != runtime.StatusCompleted || resp.Content != "Hello, Bob!" {
		t.Fatalf("status %s, content %q", resp.Status, resp.Content)
	}
	if len(resp.ToolsUsed) != 2 || resp.ToolsUsed[0].Name != "sayHello" || resp.ToolsUsed[1].Name != "sayGoodbye" {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	want := runtime.Usage{PromptTokens: 2 * fakeanthropic.InputTokens, CompletionTokens: 2 * fakeanthropic.OutputTokens,
		TotalTokens: 2 * (fakeanthropic.InputTokens + fakeanthropic.OutputTokens)}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if first.Path != "/v1/messages" || first.Header.Get("X-Api-Key") != key || first.Header.Get("Authorization") != "" {
		t.Errorf("path %s, x-api-key set %v, authorization %q", first.Path, first.Header.Get("X-Api-Key") == key, first.Header.Get("Authorization"))
	}
	if first.Body.Model != "claude-sonnet-4-5" || first.Body.SystemText() != agent.Instruction || first.Body.MaxTokens != runtime.AnthropicMaxTokens {
		t.Errorf("model %q, system %q, max_tokens %d", first.Body.Model, first.Body.SystemText(), first.Body.MaxTokens)
	}
	// The tools are exactly what the compiler's anthropic target writes.
	emitted, _ := schema.EmitTargetReports(schema.TargetByName("anthropic"), agent.Tools, func(*schema.Tool) *diag.File { return nil })
	wantTools, _ := json.Marshal(emitted)
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(first.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if compact(t, body.Tools) != compact(t, wantTools) {
		t.Errorf("tools sent:\n%s\nwant the anthropic target's:\n%s", body.Tools, wantTools)
	}
	for _, m := range first.Body.Messages {
		if strings.Contains(string(m), `"system"`) {
			t.Errorf("the instruction is sent as a message: %s", m)
		}
	}
	// The second request answers both calls in one user turn.
	second := reqs[1].Body.Messages
	if len(second) != 3 {
		t.Fatalf("second request has %d messages, want 3: %s", len(second), reqs[1].Raw)
	}
	last := string(second[2])
	for _, s := range []string{`"role":"user"`, `"tool_use_id":"toolu_1_1"`, `"tool_use_id":"toolu_1_2"`, "Hello, Bob!", "Goodbye, Ann!"} {
		if !strings.Contains(last, s) {
			t.Errorf("the tool results turn lacks %s: %s", s, last)
		}
	}
	if !strings.Contains(string(second[1]), `"type":"tool_use"`) {
		t.Errorf("the assistant turn has no tool_use: %s", second[1])
	}
	if strings.Contains(string(reqs[0].Raw)+string(reqs[1].Raw), key) {
		t.Error("the key is in a request body")
	}
}

// compact returns JSON text without insignificant space, its members in
// the order written.
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b.String()
}

func TestAnthropicErrors(t *testing.T) {
	const key = "sk-ant-secret-key-0123456789"
	for _, tc := range []struct {
		name     string
		steps    []fakeanthropic.Step
		kind     runtime.LLMErrorKind
		status   int
		attempts int
		config   bool
		says     string // what the error says
	}{
		{"overloaded", []fakeanthropic.Step{fakeanthropic.Error(529, "overloaded_error", "Overloaded"), fakeanthropic.Error(529, "overloaded_error", "Overloaded"), fakeanthropic.Error(529, "overloaded_error", "Overloaded")}, runtime.LLMStatus, 529, 3, false, "529 Overloaded after 3 attempts: overloaded_error: Overloaded"},
		{"rate limit", []fakeanthropic.Step{fakeanthropic.Error(429, "rate_limit_error", "slow down"), fakeanthropic.Error(429, "rate_limit_error", "slow down"), fakeanthropic.Error(429, "rate_limit_error", "slow down")}, runtime.LLMRateLimit, 429, 3, false, "rate limited (429 Too Many Requests) after 3 attempts"},
		{"context length", []fakeanthropic.Step{fakeanthropic.Error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")}, runtime.LLMStatus, 400, 1, false, "400 Bad Request: invalid_request_error: prompt is too long"},
		{"auth", []fakeanthropic.Step{fakeanthropic.Error(401, "authentication_error", "invalid x-api-key "+key)}, "", 401, 1, true, "the API key was rejected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeanthropic.New(t, tc.steps...)
			m, err := runtime.NewModel(schema.Model{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"},
				runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, key), Retry: noWait(), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Complete(context.Background(), &runtime.Request{Model: "claude-sonnet-4-5", Messages: []runtime.Message{{Role: runtime.RoleUser, Content: "hi"}}})
			if n := len(srv.Requests()); n != tc.attempts {
				t.Errorf("%d requests, want %d", n, tc.attempts)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("the key is in the error: %v", err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q, want it to say %q", err, tc.says)
			}
			if tc.config {
				var ce *runtime.ConfigError
				if !errors.As(err, &ce) || !strings.Contains(ce.Message, "ANTHROPIC_API_KEY") {
					t.Errorf("error %v, want a configuration error naming ANTHROPIC_API_KEY", err)
				}
				return
			}
			var le *runtime.LLMError
			if !errors.As(err, &le) || le.Kind != tc.kind || le.StatusCode != tc.status || le.Attempts != tc.attempts {
				t.Errorf("error %#v, want kind %s status %d after %d attempts", err, tc.kind, tc.status, tc.attempts)
			}
		})
	}
}

func TestAnthropicKeyRequired(t *testing.T) {
	_, err := runtime.NewModel(schema.Model{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"},
		runtime.ModelConfig{Getenv: func(string) string { return "" }, HTTPClient: &http.Client{}})
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "ANTHROPIC_API_KEY") {
		t.Fatalf("error %v, want ANTHROPIC_API_KEY is not set", err)
	}
}

// TestAnthropicEmptyAssistantMessage: an assistant message without text or
// calls (an empty answer in the history) is left out, since the Messages
// API refuses an empty text block.
func TestAnthropicEmptyAssistantMessage(t *testing.T) {
	srv := fakeanthropic.New(t, fakeanthropic.Text("Hello again"))
	m, err := runtime.NewModel(schema.Model{Provider: schema.Anthropic, ID: "claude-sonnet-4-5"},
		runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, "k"), Retry: noWait()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Complete(context.Background(), &runtime.Request{Model: "claude-sonnet-4-5", Messages: []runtime.Message{
		{Role: runtime.RoleUser, Content: "hi"}, {Role: runtime.RoleAssistant}, {Role: runtime.RoleUser, Content: "again"}}})
	if err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Raw); strings.Contains(body, `"text":""`) || strings.Contains(body, `"role":"assistant"`) {
		t.Errorf("the request has an empty assistant turn: %s", body)
	}
}
