package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// sse joins events into an event-stream body.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String()
}

// TestStreamCallIndicesAsSent: the tool calls of a streamed answer are the
// ones whose indices the stream used; a first call with index 5 is one
// call, not five phantom calls without a function before it.
func TestStreamCallIndicesAsSent(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	body := sse(
		`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":5,"id":"call_a","type":"function","function":{"name":"sayHello","arguments":""}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":5,"function":{"arguments":"{\"personName\":\"Ann\"}"}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`)
	h := newHarness(t, fakeopenai.Raw(body, "text/event-stream"), fakeopenai.Text("Hello, Ann!"))
	var log eventLog
	resp := h.mustRun(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
	if len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Name != "sayHello" || resp.ToolsUsed[0].Failed() {
		t.Fatalf("tools used %+v, want one call of sayHello", resp.ToolsUsed)
	}
	reqs := h.srv.Requests()
	if tm := toolMessages(reqs[1]); len(tm) != 1 || tm[0].ToolCallID != "call_a" {
		t.Errorf("tool messages sent back %+v, want one answering call_a", tm)
	}
}

// TestStreamAnswerNotRetried: a stream whose events are not chunks (a
// malformed first chunk, an error event), an empty body or a lone [DONE]
// is what the server answered: reported as such at once, not retried as
// a server that cannot be reached.
func TestStreamAnswerNotRetried(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	for _, tc := range []struct {
		name, body, want string
	}{
		{"malformed first chunk", sse(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel`), `the stream's event 1 is not a chat completion chunk`},
		{"error event", sse(`{"error":{"message":"the model is overloaded","type":"server_error"}}`), `the model is overloaded`},
		{"empty body", "", `the stream had no events`},
		{"lone DONE", sse(`[DONE]`), `the stream ended ([DONE]) without any chunk`},
		{"DONE without finish_reason", sse(`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant"}}]}`, `[DONE]`), `the stream ended ([DONE]) without a finish_reason`},
		{"text, then DONE without finish_reason", sse(`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}`, `[DONE]`), `the stream ended ([DONE]) without a finish_reason`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, fakeopenai.Raw(tc.body, "text/event-stream"), fakeopenai.Text("unused"), fakeopenai.Text("unused"))
			var log eventLog
			_, err := h.run(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
			var le *runtime.LLMError
			if !errors.As(err, &le) || le.Kind != runtime.LLMBadResponse || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a bad response saying %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("error %v blames the network", err)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1 (no retry)", n)
			}
		})
	}
}
