package serve

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// TestMetrics: the metrics count requests, runs, tokens and tool calls,
// and time them.
func TestMetrics(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}, fakeopenai.Call{Name: "nosuchtool", Arguments: `{}`}),
		fakeopenai.Text("Hello"),
	})
	if resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	resp, b := h.do(http.MethodGet, "/metrics", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	m := string(b)
	for _, want := range []string{
		`gram_serve_requests_total{code="200",route="/v1/chat/completions"} 1`,
		`gram_serve_request_duration_seconds_count{route="/v1/chat/completions"} 1`,
		`gram_serve_overhead_seconds_count{route="/v1/chat/completions"} 1`,
		`gram_serve_runs_total{agent="hello",status="completed"} 1`,
		`gram_serve_run_duration_seconds_count{agent="hello"} 1`,
		`gram_serve_model_call_duration_seconds_count{agent="hello",outcome="ok"} 2`,
		`gram_serve_tokens_total{agent="hello",model="OpenAI/gpt-4o-mini",type="input"} 40`,
		`gram_serve_tokens_total{agent="hello",model="OpenAI/gpt-4o-mini",type="output"} 20`,
		`gram_serve_tool_calls_total{agent="hello",outcome="ok",tool="sayHello"} 1`,
		`gram_serve_tool_calls_total{agent="hello",outcome="error",tool="unknown"} 1`,
		`gram_serve_errors_total{kind="tool_call"} 1`,
		`gram_serve_runs_active 0`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("no %s in:\n%s", want, grepLines(m, "gram_serve"))
		}
	}
	if strings.Contains(m, "nosuchtool") {
		t.Error("a tool name the model made up is a label")
	}
}

// TestTraces: a request's spans follow the GenAI semantic conventions: the
// server span, invoke_agent under it, a chat span per model call and an
// execute_tool span per tool call under that, with gen_ai.* attributes;
// the caller's traceparent is the parent.
func TestTraces(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{ID: "call_1", Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Hello"),
	})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	if resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi"), "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01"); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	spans := h.spans.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	var names []string
	for _, s := range spans {
		byName[s.Name] = s
		names = append(names, s.Name)
		if s.SpanContext.TraceID().String() != traceID {
			t.Errorf("%s is not in the caller's trace", s.Name)
		}
	}
	server, ok1 := byName["POST /v1/chat/completions"]
	agent, ok2 := byName["invoke_agent hello"]
	tool, ok3 := byName["execute_tool sayHello"]
	if !ok1 || !ok2 || !ok3 || len(spans) != 5 {
		t.Fatalf("spans: %q", names)
	}
	var chats []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "chat gpt-4o-mini" {
			chats = append(chats, s)
		}
	}
	if len(chats) != 2 {
		t.Fatalf("spans: %q", names)
	}
	if server.SpanKind != trace.SpanKindServer || server.Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("server span %v parent %v", server.SpanKind, server.Parent.SpanID())
	}
	if agent.Parent.SpanID() != server.SpanContext.SpanID() {
		t.Error("invoke_agent is not under the server span")
	}
	for _, s := range append(chats, tool) {
		if s.Parent.SpanID() != agent.SpanContext.SpanID() {
			t.Errorf("%s is not under invoke_agent", s.Name)
		}
	}
	attrs := func(s tracetest.SpanStub) map[string]string {
		out := map[string]string{}
		for _, kv := range s.Attributes {
			out[string(kv.Key)] = kv.Value.Emit()
		}
		return out
	}
	check := func(s tracetest.SpanStub, want map[string]string) {
		t.Helper()
		got := attrs(s)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q (%v)", s.Name, k, got[k], v, got)
			}
		}
	}
	check(agent, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "hello", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": "40", "gen_ai.usage.output_tokens": "20",
		"gen_ai.response.finish_reasons": `["stop"]`, "gram.run.status": "completed", "gram.run.iterations": "2"})
	check(chats[0], map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.provider.name": "openai",
		"gen_ai.usage.input_tokens": "20", "gen_ai.response.finish_reasons": `["tool_calls"]`})
	check(tool, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "sayHello", "gen_ai.tool.call.id": "call_1",
		"gen_ai.tool.type": "function"})
	check(server, map[string]string{"http.request.method": "POST", "http.route": "/v1/chat/completions", "http.response.status_code": "200"})
	if !(chats[0].StartTime.Before(tool.StartTime) && tool.EndTime.Before(chats[1].EndTime) && !chats[1].StartTime.Before(chats[0].EndTime)) {
		t.Error("the spans' times are not in the order of the run")
	}
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.Emit(), "Bob") {
				t.Errorf("%s records the conversation or the arguments: %s", s.Name, kv.Key)
			}
		}
	}
}

// TestTraceErrors: a failed model call and a failed tool call mark their
// spans as errors.
func TestTraceErrors(t *testing.T) {
	fail := fakeopenai.Error(500, "broken")
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName": 42}`}),
		fail, fail, fail,
	})
	resp, _ := h.post("/v1/chat/completions", chatBody("hello", false, "hi"))
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("%d", resp.StatusCode)
	}
	statuses := map[string]string{}
	for _, s := range h.spans.GetSpans() {
		if s.Status.Code == codes.Error {
			for _, kv := range s.Attributes {
				if kv.Key == attribute.Key("error.type") {
					statuses[s.Name] = kv.Value.AsString()
				}
			}
		}
	}
	want := map[string]string{"execute_tool sayHello": "tool_error", "chat gpt-4o-mini": "llm_status", "invoke_agent hello": "llm_status", "POST /v1/chat/completions": "502"}
	for k, v := range want {
		if statuses[k] != v {
			t.Errorf("%s: error.type %q, want %q (%v)", k, statuses[k], v, statuses)
		}
	}
}

// TestOpenAPI: the document is OpenAPI 3.1 with every route, the agents as
// the model names, and the bearer scheme when keys are asked for.
func TestOpenAPI(t *testing.T) {
	for _, keys := range []bool{false, true} {
		var opts []option
		if keys {
			opts = append(opts, withKeys)
		}
		h := newHarness(t, nil, opts...)
		resp, b := h.do(http.MethodGet, "/openapi.json", "")
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		var doc struct {
			OpenAPI    string
			Info       struct{ Version string }
			Paths      map[string]map[string]any
			Security   []map[string][]string
			Components struct {
				SecuritySchemes map[string]any
				Schemas         map[string]struct{ Enum []string }
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.OpenAPI != "3.1.0" || doc.Info.Version != "test" {
			t.Errorf("openapi %q version %q", doc.OpenAPI, doc.Info.Version)
		}
		for _, p := range []string{"/v1/chat/completions", "/v1/responses", "/v1/models", "/v1/models/{model}", "/v1/agents/{agent}/run", "/v1/agents/{agent}/runs", "/v1/runs", "/v1/runs/{id}", "/v1/runs/{id}/decisions", "/v1/runs/{id}/cancel", "/openapi.json", "/metrics", "/healthz", "/readyz"} {
			if doc.Paths[p] == nil {
				t.Errorf("no path %s", p)
			}
		}
		if e := doc.Components.Schemas["AgentName"].Enum; strings.Join(e, ",") != "hello,orders" {
			t.Errorf("agent names %q", e)
		}
		if keys != (len(doc.Security) == 1 && doc.Components.SecuritySchemes["bearer"] != nil) {
			t.Errorf("keys %v: security %v %v", keys, doc.Security, doc.Components.SecuritySchemes)
		}
	}
}

// TestTraceFallback: a model call that goes to a fallback model is an
// event of the run's span, naming both models and why, and the chat spans
// after it are the fallback model's.
func TestTraceFallback(t *testing.T) {
	down := fakeopenai.Error(503, "down for maintenance")
	backup := fakeopenai.New(t, fakeopenai.Text("Hello from the backup"))
	client, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: backup.URL, APIKey: "sk-backup-key-for-tests"})
	if err != nil {
		t.Fatal(err)
	}
	fallback := func(c *Config) {
		for i := range c.Agents {
			c.Agents[i].Options = append(c.Agents[i].Options,
				runtime.WithFallbacks(runtime.Fallback{Model: schema.Model{Provider: schema.OpenAI, ID: "gpt-4o"}, Client: client}))
		}
	}
	h := newHarness(t, []fakeopenai.Step{down, down, down}, fallback)
	if resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var chats []string
	var moved map[string]string
	for _, s := range h.spans.GetSpans() {
		if strings.HasPrefix(s.Name, "chat ") {
			chats = append(chats, s.Name)
		}
		for _, ev := range s.Events {
			if ev.Name == "gram.model_fallback" && s.Name == "invoke_agent hello" {
				moved = map[string]string{}
				for _, kv := range ev.Attributes {
					moved[string(kv.Key)] = kv.Value.Emit()
				}
			}
		}
	}
	want := map[string]string{"gram.fallback.from": "OpenAI/gpt-4o-mini", "gram.fallback.to": "OpenAI/gpt-4o", "error.type": "llm_status"}
	for k, v := range want {
		if moved[k] != v {
			t.Errorf("fallback event: %s = %q, want %q (%v)", k, moved[k], v, moved)
		}
	}
	if !slices.Equal(chats, []string{"chat gpt-4o-mini", "chat gpt-4o"}) {
		t.Errorf("chat spans %q, want the failed call's and the fallback's", chats)
	}
}
