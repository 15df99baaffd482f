package serve

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestChatCompletion: a chat completion runs the agent, its tool call
// included, and answers in OpenAI's shape with the run's usage.
func TestChatCompletion(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string {
			last := req.Body.Messages[len(req.Body.Messages)-1]
			return "The tool said: " + last.Text()
		}),
	})
	resp, body := h.post("/v1/chat/completions", chatBody("hello", false, "Hi, I'm Bob"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var c struct {
		ID, Object, Model string
		Choices           []struct {
			Index        int
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		}
		Gram struct {
			Status     string
			Iterations int
			ToolCalls  int `json:"tool_calls"`
		}
	}
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || c.Model != "hello" || !strings.HasPrefix(c.ID, "chatcmpl-") || len(c.Choices) != 1 {
		t.Fatalf("completion %s", body)
	}
	ch := c.Choices[0]
	if ch.Message.Role != "assistant" || ch.Message.Content != `The tool said: Hello, Bob! Nice to meet you.` || ch.FinishReason != "stop" {
		t.Errorf("choice %+v", ch)
	}
	if c.Gram.Status != "completed" || c.Gram.Iterations != 2 || c.Gram.ToolCalls != 1 {
		t.Errorf("gram %+v", c.Gram)
	}
	if c.Usage.PromptTokens != 40 || c.Usage.CompletionTokens != 20 || c.Usage.TotalTokens != 60 {
		t.Errorf("usage is not the sum of the two model calls': %s", body)
	}
	reqs := h.model.Requests()
	if len(reqs) != 2 || reqs[0].Body.Messages[0].Role != "system" || reqs[0].Body.Messages[1].Text() != "Hi, I'm Bob" || len(reqs[0].Body.Tools) != 1 {
		t.Fatalf("model requests: %d", len(reqs))
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	if st := resp.Header.Get("Server-Timing"); !regexp.MustCompile(`^model;dur=\d+\.\d{3};desc="model calls", tools;dur=\d+\.\d{3};desc="tool calls"$`).MatchString(st) {
		t.Errorf("Server-Timing %q", st)
	}
}

// TestChatHistory: a conversation of several turns reaches the model as
// sent, after the agent's instruction.
func TestChatHistory(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Fine.")})
	body := map[string]any{"model": "hello", "messages": []any{
		map[string]any{"role": "user", "content": "One"},
		map[string]any{"role": "assistant", "content": "Two"},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Thr"}, map[string]any{"type": "text", "text": "ee"}}},
	}}
	if resp, b := h.post("/v1/chat/completions", body); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	msgs := h.model.Requests()[0].Body.Messages
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.Text())
	}
	if strings.Join(got, "|") != "system:Greet people.|user:One|assistant:Two|user:Three" {
		t.Errorf("messages sent: %q", got)
	}
}

// TestChatStream: with stream, the answer is chunks ending with [DONE], the
// text as the model wrote it, and the usage when asked for.
func TestChatStream(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}),
		fakeopenai.Text("Hello, Ann! How are you today?"),
	})
	body := chatBody("hello", true, "Hi, I'm Ann")
	body["stream_options"] = map[string]any{"include_usage": true}
	resp, raw := h.post("/v1/chat/completions", body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	events := sseEvents(t, raw)
	if len(events) < 4 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events: %q", events)
	}
	var text strings.Builder
	var finish string
	var usage map[string]any
	for i, e := range events[:len(events)-1] {
		var c struct {
			ID, Object string
			Choices    []struct {
				Delta struct {
					Role    string
					Content *string
				}
				FinishReason *string `json:"finish_reason"`
			}
			Usage map[string]any
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, e)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") {
			t.Errorf("event %d: %s", i, e)
		}
		if i == 0 && (len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant") {
			t.Errorf("the first chunk does not give the role: %s", e)
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	if text.String() != "Hello, Ann! How are you today?" || finish != "stop" {
		t.Errorf("text %q, finish %q", text.String(), finish)
	}
	if usage == nil || usage["total_tokens"] != float64(60) {
		t.Errorf("usage %v", usage)
	}
	if !h.model.Requests()[1].Body.Stream {
		t.Error("the model's answer was not streamed")
	}
}

// TestChatRefused: requests that make no sense for an agent, and
// malformed ones, get OpenAI-shaped 400 errors naming the parameter.
func TestChatRefused(t *testing.T) {
	h := newHarness(t, nil, withLimits(Limits{MaxHistory: 3}))
	cases := []struct {
		name, body, param, code, says string
	}{
		{"malformed JSON", `{"model": "hello", "messages": [`, "", "invalid_json", "could not parse the JSON body"},
		{"not an object", `[1, 2]`, "", "invalid_json", "not an array"},
		{"no body", ``, "", "invalid_json", "no body"},
		{"tool named as the agent's", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"x"}},{"type":"function","function":{"name":"sayHello"}}]}`, "tools[1].function.name", "tool_name_taken", `"sayHello", which is a tool of the agent hello`},
		{"tool not a function", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"custom","custom":{"name":"x"}}]}`, "tools[0].type", "unsupported_tool", "function tool"},
		{"tool named twice", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"x"}},{"type":"function","function":{"name":"x"}}]}`, "tools[1].function.name", "invalid_tool", "as an earlier tool is"},
		{"call of a tool not sent", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sayHello","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"}],"tools":[{"type":"function","function":{"name":"x"}}]}`, "messages[1].tool_calls[0].function.name", "unsupported_parameter", "not among the request's tools"},
		{"tool message answering no call", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"x"}],"tools":[{"type":"function","function":{"name":"x"}}]}`, "messages[1].tool_call_id", "invalid_history", `the call "c9", which the assistant message before it did not make`},
		{"client call unanswered", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"user","content":"and?"}],"tools":[{"type":"function","function":{"name":"x"}}]}`, "messages[1]", "invalid_history", `"tool_call_id": "c1"`},
		{"tool_choice", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"}`, "tool_choice", "unsupported_parameter", `"required"`},
		{"named tool_choice", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"sayHello"}}}`, "tool_choice", "unsupported_parameter", "cannot be forced"},
		{"n", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"n":2}`, "n", "unsupported_parameter", "n must be 1"},
		{"parallel_tool_calls", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"parallel_tool_calls":false}`, "parallel_tool_calls", "unsupported_parameter", "for hello they are true. Send true or leave it out"},
		{"response_format", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`, "response_format", "unsupported_parameter", ""},
		{"tool message", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"tool","content":"x","tool_call_id":"c"}]}`, "messages[1].role", "unsupported_role", ""},
		{"last is assistant", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`, "messages[1]", "last_message_not_user", ""},
		{"empty", `{"model":"hello","messages":[]}`, "messages", "empty_messages", ""},
		{"image", `{"model":"hello","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, "messages[0].content[0]", "unsupported_content", ""},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, "model", "invalid_model", ""},
		{"history too long", `{"model":"hello","messages":[{"role":"user","content":"1"},{"role":"assistant","content":"2"},{"role":"user","content":"3"},{"role":"assistant","content":"4"},{"role":"user","content":"5"}]}`, "messages", "history_too_long", "at most 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := h.do(http.MethodPost, "/v1/chat/completions", c.body)
			e := wantError(t, resp, body, http.StatusBadRequest, c.code)
			if e.Error.Type != "invalid_request_error" {
				t.Errorf("type %q", e.Error.Type)
			}
			if (c.param == "") != (e.Error.Param == nil) || (e.Error.Param != nil && *e.Error.Param != c.param) {
				t.Errorf("param %v, want %q", e.Error.Param, c.param)
			}
			if !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("message %q does not say %q", e.Error.Message, c.says)
			}
		})
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_errors_total{kind="invalid_request"}`) || !strings.Contains(m, `gram_serve_errors_total{kind="history_too_long"} 1`) {
		t.Errorf("the refusals are not counted:\n%s", grepLines(m, "gram_serve_errors_total"))
	}
}

// TestChatIgnored: sampling parameters are the agent's: the request's are
// ignored with a warning, not sent to the model.
func TestChatIgnored(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("ok")})
	body := chatBody("hello", false, "hi")
	body["temperature"] = 1.7
	body["max_tokens"] = 5
	body["user"] = "someone"
	resp, b := h.post("/v1/chat/completions", body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if !strings.Contains(string(b), "temperature, max_tokens: the agent's own settings") || !strings.Contains(string(b), "user: the identity") {
		t.Errorf("no warnings: %s", b)
	}
	if r := h.model.Requests()[0].Body; r.Temperature != nil || r.MaxTokens != nil {
		t.Errorf("the request's sampling parameters reached the model: %s", h.model.Requests()[0].Raw)
	}
}

// TestParallelToolCallsOwnSetting: a request's parallel_tool_calls that
// is the agent's own setting is accepted on both endpoints, as the
// response object gives it back.
func TestParallelToolCallsOwnSetting(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("ok"), fakeopenai.Text("ok")})
	for _, c := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}],"parallel_tool_calls":true}`},
		{"/v1/responses", `{"model":"hello","input":"hi","parallel_tool_calls":true}`},
	} {
		if resp, b := h.do(http.MethodPost, c.path, c.body); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, b)
		}
	}
}

// TestModels: the agents are OpenAI's models; an unknown one is a 404 with
// a did-you-mean, on every route that names an agent.
func TestModels(t *testing.T) {
	h := newHarness(t, nil)
	resp, b := h.do(http.MethodGet, "/v1/models", "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var list struct {
		Object string
		Data   []struct{ ID, Object, OwnedBy string }
	}
	if err := json.Unmarshal(b, &list); err != nil || list.Object != "list" || len(list.Data) != 2 || list.Data[0].ID != "hello" || list.Data[1].ID != "orders" {
		t.Fatalf("%v %s", err, b)
	}
	resp, b = h.do(http.MethodGet, "/v1/models/hello", "")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"id":"hello"`) || !strings.Contains(string(b), `"gram_model":"OpenAI/gpt-4o-mini"`) {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	for _, req := range []struct{ method, path, body, param string }{
		{http.MethodGet, "/v1/models/helo", "", "model"},
		{http.MethodPost, "/v1/chat/completions", `{"model":"helo","messages":[{"role":"user","content":"hi"}]}`, "model"},
		{http.MethodPost, "/v1/agents/helo/run", `{"message_history":[{"role":"user","content":"hi"}]}`, "agent"},
	} {
		resp, b := h.do(req.method, req.path, req.body)
		e := wantError(t, resp, b, http.StatusNotFound, "model_not_found")
		if !strings.Contains(e.Error.Message, "Did you mean `hello`?") || !strings.Contains(e.Error.Message, "hello, orders") {
			t.Errorf("%s %s: %s", req.method, req.path, e.Error.Message)
		}
		if e.Error.Param == nil || *e.Error.Param != req.param {
			t.Errorf("%s: param %v", req.path, e.Error.Param)
		}
	}
	resp, b = h.do(http.MethodGet, "/v2/nothing", "")
	wantError(t, resp, b, http.StatusNotFound, "unknown_route")
	resp, b = h.do(http.MethodGet, "/v1/chat/completions", "")
	wantError(t, resp, b, http.StatusMethodNotAllowed, "method_not_allowed")
	if resp.Header.Get("Allow") != "POST" {
		t.Errorf("Allow %q", resp.Header.Get("Allow"))
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
