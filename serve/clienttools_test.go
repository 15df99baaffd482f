package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// weatherTool is a client tool of the requests of the tests.
var weatherTool = map[string]any{"type": "function", "function": map[string]any{
	"name": "getWeather", "description": "The weather in a city",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
}}

// clientToolSteps are a model that calls sayHello and the client's
// getWeather in one reply, then answers from the weather the client sent.
func clientToolSteps() []fakeopenai.Step {
	return []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{ID: "call_hello", Name: "sayHello", Arguments: `{"personName":"Bob"}`},
			fakeopenai.Call{ID: "call_weather", Name: "getWeather", Arguments: `{"city":"Paris"}`}),
		fakeopenai.Textf(func(req *fakeopenai.Request) string {
			return "In Paris: " + req.Body.Messages[len(req.Body.Messages)-1].Text()
		}),
	}
}

// toolCallAnswer is what the tests read of a completion that stopped at
// the client's calls.
type toolCallAnswer struct {
	Choices []struct {
		Message struct {
			Role, Content string
			ToolCalls     []struct {
				ID, Type string
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		}
		FinishReason string `json:"finish_reason"`
	}
	Gram struct {
		Status    string
		ToolCalls int `json:"tool_calls"`
	}
}

// continuation is the second request of a client-tool exchange: the
// first one's conversation, the assistant message with the call, and the
// tool's result.
func continuation(stream bool, callID string) map[string]any {
	return map[string]any{"model": "hello", "stream": stream, "tools": []any{weatherTool}, "messages": []any{
		map[string]any{"role": "user", "content": "Hi, I'm Bob. Weather in Paris?"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": callID, "type": "function", "function": map[string]any{"name": "getWeather", "arguments": `{"city":"Paris"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": callID, "content": "sunny, 21°C"},
	}}
}

// TestChatClientTools: a request's tools are offered to the model after
// the agent's; a reply that calls one and one of the agent's runs the
// agent's and answers with the client's call alone (finish_reason
// tool_calls); the next request, with the tool's result, is answered.
func TestChatClientTools(t *testing.T) {
	h := newHarness(t, clientToolSteps())
	body := map[string]any{"model": "hello", "tools": []any{weatherTool},
		"messages": []any{map[string]any{"role": "user", "content": "Hi, I'm Bob. Weather in Paris?"}}}
	resp, b := h.post("/v1/chat/completions", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var c toolCallAnswer
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	ch := c.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 || c.Gram.Status != "tool_calls" || c.Gram.ToolCalls != 1 {
		t.Fatalf("answer %s", b)
	}
	call := ch.Message.ToolCalls[0]
	if call.ID != "call_weather" || call.Type != "function" || call.Function.Name != "getWeather" || call.Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("call %+v", call)
	}
	first := h.model.Requests()[0].Body.Tools
	if len(first) != 2 || first[0].Function.Name != "sayHello" || first[1].Function.Name != "getWeather" ||
		!strings.Contains(string(first[1].Function.Parameters), `"required":["city"]`) {
		t.Errorf("the model was offered %+v", first)
	}
	resp, b = h.post("/v1/chat/completions", continuation(false, call.ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var done completion
	if err := json.Unmarshal(b, &done); err != nil {
		t.Fatal(err)
	}
	if m := done.Choices[0]; m.FinishReason != "stop" || m.Message.Content != "In Paris: sunny, 21°C" {
		t.Errorf("answer %s", b)
	}
	msgs := h.model.Requests()[1].Body.Messages
	if roles := rolesOf(msgs); roles != "system,user,assistant,tool" || msgs[2].ToolCalls[0].ID != "call_weather" {
		t.Errorf("the model saw %s", roles)
	}
}

// TestChatClientToolsStream: streamed, the answer ends with the client's
// call as a tool_calls delta and the finish reason tool_calls.
func TestChatClientToolsStream(t *testing.T) {
	h := newHarness(t, clientToolSteps())
	body := map[string]any{"model": "hello", "stream": true, "tools": []any{weatherTool},
		"messages": []any{map[string]any{"role": "user", "content": "Hi, I'm Bob. Weather in Paris?"}}}
	resp, b := h.post("/v1/chat/completions", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	events := sseEvents(t, b)
	if len(events) < 4 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events %q", events)
	}
	var calls, last chunk
	if err := json.Unmarshal([]byte(events[len(events)-3]), &calls); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(events[len(events)-2]), &last); err != nil {
		t.Fatal(err)
	}
	tc := calls.Choices[0].Delta.ToolCalls
	if len(tc) != 1 || tc[0].Index == nil || *tc[0].Index != 0 || tc[0].ID != "call_weather" || tc[0].Function.Name != "getWeather" || tc[0].Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("tool call chunk %s", events[len(events)-3])
	}
	if f := last.Choices[0].FinishReason; f == nil || *f != "tool_calls" {
		t.Errorf("last chunk %s", events[len(events)-2])
	}
	resp, b = h.post("/v1/chat/completions", continuation(true, "call_weather"))
	var text strings.Builder
	for _, e := range sseEvents(t, b) {
		var ck chunk
		if json.Unmarshal([]byte(e), &ck) == nil && len(ck.Choices) > 0 && ck.Choices[0].Delta.Content != nil {
			text.WriteString(*ck.Choices[0].Delta.Content)
		}
	}
	if resp.StatusCode != http.StatusOK || text.String() != "In Paris: sunny, 21°C" || !strings.Contains(string(b), `"finish_reason":"stop"`) {
		t.Errorf("status %d, text %q: %s", resp.StatusCode, text.String(), b)
	}
}

// rolesOf returns the roles of messages, joined by commas.
func rolesOf(msgs []fakeopenai.Message) string {
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	return strings.Join(roles, ",")
}
