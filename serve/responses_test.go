package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// responseObject is what a client reads of a response.
type responseObject struct {
	ID, Object, Status, Model string
	CreatedAt                 int64 `json:"created_at"`
	Output                    []struct {
		Type, ID, Status, Role string
		Content                []struct {
			Type, Text  string
			Annotations []any
		}
	}
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
	}
}

// outputText is the text of a response's output_text parts, as the openai
// package's output_text helper joins it.
func (r responseObject) outputText() string {
	var b strings.Builder
	for _, o := range r.Output {
		for _, c := range o.Content {
			if o.Type == "message" && c.Type == "output_text" {
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// TestResponses: a response runs the agent, its tool call included, on the
// input string, and answers with a response object whose one output item
// is the agent's message.
func TestResponses(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string { return "The tool said: " + fakeopenai.LastToolResult(req) }),
	})
	resp, b := h.post("/v1/responses", map[string]any{"model": "hello", "input": "Hi, I'm Bob", "temperature": 0.2})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var r responseObject
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "response" || r.Status != "completed" || r.Model != "hello" || !strings.HasPrefix(r.ID, "resp_") || r.CreatedAt == 0 ||
		len(r.Output) != 1 || r.Output[0].Role != "assistant" || r.Output[0].Status != "completed" || !strings.HasPrefix(r.Output[0].ID, "msg_") {
		t.Fatalf("response %s", b)
	}
	if got, want := r.outputText(), "The tool said: Hello, Bob! Nice to meet you."; got != want {
		t.Errorf("output text %q, want %q", got, want)
	}
	if r.Usage.InputTokens != 40 || r.Usage.OutputTokens != 20 || r.Usage.TotalTokens != 60 {
		t.Errorf("usage %+v", r.Usage)
	}
	if !strings.Contains(string(b), "temperature: the agent's own settings") {
		t.Errorf("no warning about the ignored temperature: %s", b)
	}
	if got := roles(h.model.Requests()[0].Body.Messages); got != "system:Greet people.|user:Hi, I'm Bob" {
		t.Errorf("messages sent: %s", got)
	}
	if m := h.metricsText(); !strings.Contains(m, `gram_serve_requests_total{code="200",route="/v1/responses"} 1`) ||
		!strings.Contains(m, `gram_serve_runs_total{agent="hello",status="completed"} 1`) {
		t.Errorf("the response is not counted:\n%s", grepLines(m, "gram_serve_r"))
	}
}

// TestResponsesEchoTools: a response object gives back the request's
// tool_choice and tools, and "auto" and [] for a request without them.
func TestResponsesEchoTools(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Hi."), fakeopenai.Text("Hi again.")})
	for _, c := range []struct {
		body          map[string]any
		choice, tools string
	}{
		{map[string]any{"model": "hello", "input": "Hi"}, `"auto"`, `[]`},
		{map[string]any{"model": "hello", "input": "Hi", "tool_choice": "none", "tools": []any{responseWeatherTool}}, `"none"`, `[{"description":"The weather in a city","name":"getWeather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"},"type":"function"}]`},
	} {
		resp, b := h.post("/v1/responses", c.body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		var r struct {
			ToolChoice json.RawMessage `json:"tool_choice"`
			Tools      json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if string(r.ToolChoice) != c.choice || string(r.Tools) != c.tools {
			t.Errorf("tool_choice %s, tools %s; want %s and %s", r.ToolChoice, r.Tools, c.choice, c.tools)
		}
	}
}

// TestResponsesInput: a list of message items is the conversation, with
// the request's instructions and its system and developer messages after
// the agent's instruction.
func TestResponsesInput(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Fine.")})
	body := `{"model": "hello", "instructions": "Answer in French.", "input": [
		{"role": "developer", "content": "Be brief."},
		{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "One"}]},
		{"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [{"type": "output_text", "text": "Two", "annotations": []}]},
		{"role": "user", "content": "Three"}]}`
	resp, b := h.do(http.MethodPost, "/v1/responses", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	want := "system:Greet people.|system:Answer in French.|system:Be brief.|user:One|assistant:Two|user:Three"
	if got := roles(h.model.Requests()[0].Body.Messages); got != want {
		t.Errorf("messages sent:\n%s\nwant\n%s", got, want)
	}
}

// namedEvents reads server-sent events as their names and data.
func namedEvents(t *testing.T, body []byte) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			if d["type"] != name {
				t.Errorf("event %q has the type %v", name, d["type"])
			}
			if d["sequence_number"] != float64(len(data)) {
				t.Errorf("event %d (%s) has the sequence number %v", len(data), name, d["sequence_number"])
			}
			names, data = append(names, name), append(data, d)
		case line != "":
			t.Errorf("not an event line: %q", line)
		}
	}
	return names, data
}

// TestResponsesStream: a streamed response is the Responses API's events,
// the text in deltas as the model wrote it, ending with the completed
// response.
func TestResponsesStream(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}),
		fakeopenai.Text("Hello, Ann! How are you today?"),
	})
	resp, b := h.post("/v1/responses", map[string]any{"model": "hello", "input": "Hi, I'm Ann", "stream": true})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	names, data := namedEvents(t, b)
	var text strings.Builder
	var kinds []string
	for i, n := range names {
		if n == "response.output_text.delta" {
			text.WriteString(data[i]["delta"].(string))
			if len(kinds) > 0 && kinds[len(kinds)-1] == n {
				continue
			}
		}
		kinds = append(kinds, n)
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta " +
		"response.output_text.done response.content_part.done response.output_item.done response.completed"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events:\n%s\nwant\n%s", got, want)
	}
	if text.String() != "Hello, Ann! How are you today?" || data[len(data)-4]["text"] != text.String() {
		t.Errorf("text %q, done %v", text.String(), data[len(data)-4]["text"])
	}
	final, _ := json.Marshal(data[len(data)-1]["response"])
	var r responseObject
	if err := json.Unmarshal(final, &r); err != nil || r.Status != "completed" || r.outputText() != text.String() || r.Usage.TotalTokens != 60 {
		t.Errorf("completed response %s", final)
	}
	if !h.model.Requests()[1].Body.Stream {
		t.Error("the model's answer was not streamed")
	}
}

// TestResponsesRefused: what a response cannot honour is refused as chat
// completions refuse it.
func TestResponsesRefused(t *testing.T) {
	h := newHarness(t, nil)
	cases := []struct{ name, body, param, code, says string }{
		{"previous response", `{"model":"hello","input":"hi","previous_response_id":"resp_1"}`, "previous_response_id", "unsupported_parameter", "stores no responses"},
		{"tool not a function", `{"model":"hello","input":"hi","tools":[{"type":"web_search"}]}`, "tools[0].type", "unsupported_tool", "function tool"},
		{"tool named as the agent's", `{"model":"hello","input":"hi","tools":[{"type":"function","name":"sayHello"}]}`, "tools[0].name", "tool_name_taken", `"sayHello", which is a tool of the agent hello`},
		{"tool_choice", `{"model":"hello","input":"hi","tool_choice":"required"}`, "tool_choice", "unsupported_parameter", `"required"`},
		{"function call item", `{"model":"hello","input":[{"type":"function_call_output","call_id":"c","output":"x"},{"role":"user","content":"hi"}]}`, "input[0].type", "unsupported_item", "function_call_output"},
		{"image", `{"model":"hello","input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, "input[0].content[0]", "unsupported_content", `text parts only ({"type": "input_text", "text": "..."})`},
		{"empty string", `{"model":"hello","input":""}`, "input", "empty_message", "input is a user message without content"},
		{"no input", `{"model":"hello"}`, "input", "invalid_input", "missing"},
		{"last is assistant", `{"model":"hello","input":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`, "input[1]", "last_message_not_user", ""},
		{"no model", `{"input":"hi"}`, "model", "invalid_model", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := h.do(http.MethodPost, "/v1/responses", c.body)
			e := wantError(t, resp, body, http.StatusBadRequest, c.code)
			if e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("param %v, want %q; message %q should say %q", e.Error.Param, c.param, e.Error.Message, c.says)
			}
		})
	}
	if resp, body := h.do(http.MethodPost, "/v1/responses", `{"model":"helo","input":"hi"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown agent: %d %s", resp.StatusCode, body)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestResponsesRefuseSystem: with RefuseSystem, instructions are refused.
func TestResponsesRefuseSystem(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.RefuseSystem = true })
	resp, b := h.do(http.MethodPost, "/v1/responses", `{"model":"hello","input":"hi","instructions":"Be rude."}`)
	if e := wantError(t, resp, b, http.StatusBadRequest, "unsupported_parameter"); e.Error.Param == nil || *e.Error.Param != "instructions" {
		t.Errorf("%s", b)
	}
}

// TestResponsesGuards: the route asks for the credential and a JSON body
// as chat completions do.
func TestResponsesGuards(t *testing.T) {
	h := newHarness(t, nil, withKeys)
	body := `{"model":"hello","input":"hi"}`
	resp, b := h.do(http.MethodPost, "/v1/responses", body, "Authorization", "Bearer sk-wrong")
	wantError(t, resp, b, http.StatusUnauthorized, "invalid_api_key")
	resp, b = h.do(http.MethodPost, "/v1/responses", body, "Content-Type", "text/plain")
	wantError(t, resp, b, http.StatusUnsupportedMediaType, "unsupported_media_type")
	resp, b = h.do(http.MethodPost, "/v1/responses", body, "Origin", "http://evil.example")
	wantError(t, resp, b, http.StatusForbidden, "origin_not_allowed")
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestResponsesFailures: a run that fails before a streamed response
// begins is answered with its status; one that fails after ends the
// stream with an error event.
func TestResponsesFailures(t *testing.T) {
	fail := fakeopenai.Error(500, "the model server broke")
	h := newHarness(t, []fakeopenai.Step{fail, fail, fail,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`}), fail, fail, fail})
	resp, b := h.post("/v1/responses", map[string]any{"model": "hello", "input": "hi", "stream": true})
	wantError(t, resp, b, http.StatusBadGateway, "model_error")
	resp, b = h.post("/v1/responses", map[string]any{"model": "hello", "input": "hi", "stream": true})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	names, data := namedEvents(t, b)
	last := data[len(data)-1]
	if names[0] != "response.created" || names[len(names)-1] != "error" || last["code"] != "model_error" || last["message"] == "" {
		t.Errorf("events %q, last %v", names, last)
	}
	if strings.Contains(string(b), "the model server broke") {
		t.Error("the technical cause reached the client")
	}
}

// TestResponsesVerbosityIgnored: text.verbosity is a sampling parameter,
// ignored with a warning as chat completions' verbosity is; the text
// format beside it is still checked.
func TestResponsesVerbosityIgnored(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("ok")})
	resp, b := h.do(http.MethodPost, "/v1/responses", `{"model":"hello","input":"hi","text":{"format":{"type":"text"},"verbosity":"low"}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "text.verbosity: the agent's own settings") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	resp, b = h.do(http.MethodPost, "/v1/responses", `{"model":"hello","input":"hi","text":{"format":{"type":"json_object"},"verbosity":"low"}}`)
	wantError(t, resp, b, http.StatusBadRequest, "unsupported_parameter")
}
