package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakegemini"
	"github.com/gramlang/gram/schema"
)

// geminiSrc is the hello agent on Gemini, with two tools.
var geminiSrc = strings.Replace(anthropicSrc, "Anthropic/claude-sonnet-4-5", "Gemini/gemini-2.5-flash", 1)

// geminiEnv is an environment with GEMINI_BASE_URL at url and the key in
// keyVar.
func geminiEnv(url, keyVar, key string) func(string) string {
	return func(k string) string {
		return map[string]string{"GEMINI_BASE_URL": url, keyVar: key}[k]
	}
}

func TestRunGeminiToolCall(t *testing.T) {
	const key = "AIzaSyTest0123456789abcdef"
	srv := fakegemini.NewWithKey(t, key,
		fakegemini.FunctionCalls(
			fakegemini.Call{Name: "sayHello", Args: `{"personName":"Bob"}`},
			fakegemini.Call{Name: "sayGoodbye", Args: `{"personName":"Ann"}`}),
		fakegemini.Text("Hello, Bob!"))
	prog := compile(t, geminiSrc)
	agent := prog.Agents()[0]
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "greet Bob",
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", key), Retry: noWait()}))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if resp.Status != runtime.StatusCompleted || resp.Content != "Hello, Bob!" {
		t.Fatalf("status %s, content %q", resp.Status, resp.Content)
	}
	if len(resp.ToolsUsed) != 2 || resp.ToolsUsed[0].Name != "sayHello" || resp.ToolsUsed[1].Name != "sayGoodbye" {
		t.Fatalf("tools used: %+v", resp.ToolsUsed)
	}
	want := runtime.Usage{PromptTokens: 2 * fakegemini.PromptTokens, CompletionTokens: 2 * fakegemini.CandidatesTokens,
		TotalTokens: 2 * (fakegemini.PromptTokens + fakegemini.CandidatesTokens)}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if first.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || first.Header.Get("X-Goog-Api-Key") != key || first.Header.Get("Authorization") != "" {
		t.Errorf("path %s, x-goog-api-key set %v, authorization %q", first.Path, first.Header.Get("X-Goog-Api-Key") == key, first.Header.Get("Authorization"))
	}
	if si := first.Body.SystemInstruction; si == nil || len(si.Parts) != 1 || !strings.Contains(string(si.Parts[0]), agent.Instruction) {
		t.Errorf("system instruction %+v, want the agent's instruction", si)
	}
	// The tools are exactly what the compiler's gemini target writes.
	emitted, _ := schema.EmitTargetReports(schema.TargetByName("gemini"), agent.Tools, func(*schema.Tool) *diag.File { return nil })
	wantTools, _ := json.Marshal(emitted)
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(first.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if compact(t, body.Tools) != compact(t, wantTools) {
		t.Errorf("tools sent:\n%s\nwant the gemini target's:\n%s", body.Tools, wantTools)
	}
	if len(first.Body.Contents) != 1 || first.Body.Contents[0].Role != "user" {
		t.Errorf("first request's contents: %s", first.Raw)
	}
	// The second request answers both calls in one user turn.
	second := reqs[1].Body.Contents
	if len(second) != 3 {
		t.Fatalf("second request has %d contents, want 3: %s", len(second), reqs[1].Raw)
	}
	if second[1].Role != "model" || len(second[1].Parts) != 2 || !strings.Contains(string(second[1].Parts[0]), `"functionCall"`) {
		t.Errorf("the model turn: %+v", second[1])
	}
	last, _ := json.Marshal(second[2])
	for _, s := range []string{`"role":"user"`, `"functionResponse"`, `"name":"sayHello"`, `"name":"sayGoodbye"`, "Hello, Bob!", "Goodbye, Ann!"} {
		if !strings.Contains(string(last), s) {
			t.Errorf("the function responses turn lacks %s: %s", s, last)
		}
	}
	if strings.Contains(string(reqs[0].Raw)+string(reqs[1].Raw), key) {
		t.Error("the key is in a request body")
	}
}

func TestGeminiErrors(t *testing.T) {
	const key = "AIzaSySecret0123456789abcdef"
	overloaded := fakegemini.Error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
	limited := fakegemini.Error(429, "RESOURCE_EXHAUSTED", "quota exceeded")
	for _, tc := range []struct {
		name     string
		keyVar   string
		steps    []fakegemini.Step
		kind     runtime.LLMErrorKind
		status   int
		attempts int
		config   bool
	}{
		{"overloaded", "GEMINI_API_KEY", []fakegemini.Step{overloaded, overloaded, overloaded}, runtime.LLMStatus, 503, 3, false},
		{"overloaded then answered", "GEMINI_API_KEY", []fakegemini.Step{overloaded, fakegemini.Text("hi")}, "", 0, 2, false},
		{"rate limit", "GEMINI_API_KEY", []fakegemini.Step{limited, limited, limited}, runtime.LLMRateLimit, 429, 3, false},
		{"bad request", "GEMINI_API_KEY", []fakegemini.Step{fakegemini.Error(400, "INVALID_ARGUMENT", "bad")}, runtime.LLMStatus, 400, 1, false},
		{"auth", "GEMINI_API_KEY", []fakegemini.Step{fakegemini.Error(403, "PERMISSION_DENIED", "API key not valid "+key)}, "", 403, 1, true},
		{"auth, GOOGLE_API_KEY", "GOOGLE_API_KEY", []fakegemini.Step{fakegemini.Error(401, "UNAUTHENTICATED", "no")}, "", 401, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakegemini.New(t, tc.steps...)
			m, err := runtime.NewModel(schema.Model{Provider: schema.Gemini, ID: "gemini-2.5-flash"},
				runtime.ModelConfig{Getenv: geminiEnv(srv.URL, tc.keyVar, key), Retry: noWait(), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			reply, err := m.Complete(context.Background(), &runtime.Request{Model: "gemini-2.5-flash", Messages: []runtime.Message{{Role: runtime.RoleUser, Content: "hi"}}})
			if n := len(srv.Requests()); n != tc.attempts {
				t.Errorf("%d requests, want %d", n, tc.attempts)
			}
			if tc.status == 0 {
				if err != nil || reply.Message.Content != "hi" || reply.FinishReason != "stop" {
					t.Fatalf("reply %+v, error %v", reply, err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("the key is in the error: %v", err)
			}
			if tc.config {
				var ce *runtime.ConfigError
				if !errors.As(err, &ce) || !strings.Contains(ce.Message, tc.keyVar) {
					t.Errorf("error %v, want a configuration error naming %s", err, tc.keyVar)
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

func TestGeminiKeyRequired(t *testing.T) {
	_, err := runtime.NewModel(schema.Model{Provider: schema.Gemini, ID: "gemini-2.5-flash"},
		runtime.ModelConfig{Getenv: func(string) string { return "" }})
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "GEMINI_API_KEY") {
		t.Fatalf("error %v, want GEMINI_API_KEY is not set", err)
	}
}

// TestGeminiUsageCountsThoughts: a thinking model's thoughtsTokenCount,
// which candidatesTokenCount leaves out, is billed as output, so it is in
// the usage (and so the budgets and the cost), streamed or not.
func TestGeminiUsageCountsThoughts(t *testing.T) {
	thinking := func(int) (int, any) {
		return 200, map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Hi"}}},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 31, "candidatesTokenCount": 2,
				"thoughtsTokenCount": 500, "totalTokenCount": 533},
		}
	}
	want := runtime.Usage{PromptTokens: 31, CompletionTokens: 502, TotalTokens: 533}
	for _, stream := range []bool{false, true} {
		srv := fakegemini.New(t, thinking)
		opts := []runtime.Option{runtime.WithModelConfig(runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", "k"), Retry: noWait()}), runtime.WithLogger(discard())}
		if stream {
			opts = append(opts, runtime.WithEvents(func(runtime.Event) {}))
		}
		resp, err := runtime.Run(context.Background(), compile(t, geminiSrc).Agents()[0], runtime.Builtins(), nil, "hi", opts...)
		if err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
		if resp.Usage != want {
			t.Errorf("stream %v: usage %+v, want %+v", stream, resp.Usage, want)
		}
	}
}

// TestGeminiEmptyAssistantMessage: an assistant message without text or
// calls (an empty answer in the history) is left out, since the API
// refuses a turn whose part is empty.
func TestGeminiEmptyAssistantMessage(t *testing.T) {
	srv := fakegemini.New(t, fakegemini.Text("Hello again"))
	m, err := runtime.NewModel(schema.Model{Provider: schema.Gemini, ID: "gemini-2.5-flash"},
		runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", "k"), Retry: noWait()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Complete(context.Background(), &runtime.Request{Model: "gemini-2.5-flash", Messages: []runtime.Message{
		{Role: runtime.RoleUser, Content: "hi"}, {Role: runtime.RoleAssistant}, {Role: runtime.RoleUser, Content: "again"}}})
	if err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Raw); strings.Contains(body, `[{}]`) || strings.Contains(body, `"role":"model"`) {
		t.Errorf("the request has an empty model turn: %s", body)
	}
}

// TestGeminiClientToolSchema: a tool without a declaration (a client's)
// goes as parametersJsonSchema, which takes JSON Schema's
// additionalProperties; the API refuses that key in "parameters".
func TestGeminiClientToolSchema(t *testing.T) {
	srv := fakegemini.New(t, fakegemini.Text("ok"))
	m, err := runtime.NewModel(schema.Model{Provider: schema.Gemini, ID: "gemini-2.5-flash"},
		runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", "k"), Retry: noWait()})
	if err != nil {
		t.Fatal(err)
	}
	params := schema.Object{{Key: "type", Value: "object"}, {Key: "additionalProperties", Value: false}}
	_, err = m.Complete(context.Background(), &runtime.Request{Model: "gemini-2.5-flash",
		Messages: []runtime.Message{{Role: runtime.RoleUser, Content: "weather?"}},
		Tools:    []runtime.ToolDefinition{{Name: "get_weather", Parameters: params}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","additionalProperties":false}}]}]`
	if got, _ := json.Marshal(srv.Requests()[0].Body.Tools); string(got) != want {
		t.Errorf("tools sent:\n%s\nwant:\n%s", got, want)
	}
}
