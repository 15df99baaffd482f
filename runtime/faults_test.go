package runtime_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestMalformedSuccessNotRetried: a 2xx answer that is empty, cut off or
// not JSON is reported at once as such, with its first bytes, and not
// retried as if the server could not be reached.
func TestMalformedSuccessNotRetried(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	for _, tc := range []struct {
		name, body, ctype, want string
	}{
		{"empty", "", "", "the server answered 200 OK with an empty body"},
		{"truncated", `{"id":"chatcmpl-1","object":"chat.completion","choi`, "", `the server answered with invalid JSON (first bytes: "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choi")`},
		{"text/plain", "upstream connect error", "text/plain", `the server answered with invalid JSON (first bytes: "upstream connect error", Content-Type text/plain)`},
		{"not an object", `["a"]`, "", `invalid JSON (first bytes: "[\"a\"]")`},
	} {
		h := newHarness(t, fakeopenai.Raw(tc.body, tc.ctype), fakeopenai.Text("unused"), fakeopenai.Text("unused"))
		_, err := h.run(t, agent, runtime.Builtins(), nil, "hi")
		var le *runtime.LLMError
		if !errors.As(err, &le) || le.Kind != runtime.LLMBadResponse || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v", tc.name, err)
		}
		if strings.Contains(err.Error(), "cannot reach the server") {
			t.Errorf("%s: %v", tc.name, err)
		}
		if n := len(h.srv.Requests()); n != 1 {
			t.Errorf("%s: %d requests, want 1 (no retry)", tc.name, n)
		}
	}
}

// TestIncompleteAnswers: an answer cut at the token limit, withheld by a
// content filter or without a message ends the turn with a distinct status
// and a warning, not as completed.
func TestIncompleteAnswers(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	for _, tc := range []struct {
		msg, finish string
		status      runtime.Status
		warning     string
	}{
		{`{"role":"assistant","content":"Hello, and here is a very long"}`, "length", runtime.StatusTruncated, `cut short at the model's token limit (finish_reason "length")`},
		{`{"role":"assistant","content":""}`, "content_filter", runtime.StatusFiltered, `content filter withheld or cut the answer`},
		{`null`, "stop", runtime.StatusNoMessage, `had no message ("message": null)`},
	} {
		h := newHarness(t, fakeopenai.Completion(json.RawMessage(tc.msg), tc.finish))
		resp, err := h.run(t, agent, runtime.Builtins(), nil, "hi")
		if err != nil {
			t.Fatalf("%s: %v", tc.status, err)
		}
		if resp.Status != tc.status || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], tc.warning) {
			t.Errorf("%s: status %s, warnings %q", tc.status, resp.Status, resp.Warnings)
		}
		if resp.FinishReason != tc.finish {
			t.Errorf("%s: finish reason %q, want %q", tc.status, resp.FinishReason, tc.finish)
		}
	}
	// A normal answer is still completed.
	h := newHarness(t, fakeopenai.Text("Hello"))
	if resp := h.mustRun(t, agent, runtime.Builtins(), nil, "hi"); resp.Status != runtime.StatusCompleted || len(resp.Warnings) != 0 || resp.FinishReason != "stop" {
		t.Errorf("status %s, warnings %q, finish reason %q", resp.Status, resp.Warnings, resp.FinishReason)
	}
}

// TestKeyRejected: a 401 or 403 is a ConfigError naming the server and
// the variable to check, after one request, without the key.
func TestKeyRejected(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	for _, status := range []int{401, 403} {
		h := newHarness(t, fakeopenai.Error(status, "Incorrect API key provided: "+testKey))
		resp, err := h.run(t, agent, runtime.Builtins(), nil, "hi")
		var ce *runtime.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Message, "the API key was rejected by the model's server at 127.0.0.1:") || !strings.HasSuffix(ce.Message, "; check OPENAI_API_KEY") {
			t.Fatalf("%d: error %v, want the key-rejected ConfigError", status, err)
		}
		if strings.Contains(err.Error(), testKey) || strings.Contains(resp.Error, testKey) || strings.Contains(h.logs.String(), testKey) {
			t.Errorf("%d: the key appears: %v", status, err)
		}
		if n := len(h.srv.Requests()); n != 1 {
			t.Errorf("%d: %d requests, want 1", status, n)
		}
	}
}

// TestAnswerFaultsSaid: a 2xx answer that carries an error object shows
// the server's message; a body that cannot be decompressed says so; a
// redirect to another origin is not followed and says where it pointed.
// None is retried, none blames the network.
func TestAnswerFaultsSaid(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed to another origin (Authorization %q)", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	for _, tc := range []struct {
		name string
		step fakeopenai.Step
		want string
	}{
		{"error object", fakeopenai.Raw(`{"error": {"message": "you are out of quota", "type": "insufficient_quota"}}`, ""),
			"you are out of quota"},
		{"bad gzip", func(*fakeopenai.Request) fakeopenai.Response {
			return fakeopenai.Response{Raw: []byte("this is not gzip"), Header: http.Header{"Content-Encoding": {"gzip"}}}
		}, "the answer could not be decompressed (Content-Encoding gzip)"},
		{"redirect", func(*fakeopenai.Request) fakeopenai.Response {
			return fakeopenai.Response{Status: http.StatusTemporaryRedirect, Raw: []byte{},
				Header: http.Header{"Location": {other.URL + "/v1/chat/completions"}}}
		}, "redirected the request to another server, " + other.URL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, streamed := range []bool{false, true} {
				h := newHarness(t, tc.step, fakeopenai.Text("unused"), fakeopenai.Text("unused"))
				_, err := h.run(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(func(runtime.Event) {}), runtime.WithStreaming(streamed))
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("streamed %v: error %v, want one saying %q", streamed, err, tc.want)
				}
				if err != nil && (strings.Contains(err.Error(), "cannot reach") || strings.Contains(err.Error(), "no choices") || strings.Contains(err.Error(), "empty body")) {
					t.Errorf("streamed %v: error %v hides what the server sent", streamed, err)
				}
				if n := len(h.srv.Requests()); n != 1 {
					t.Errorf("streamed %v: %d requests, want 1 (no retry)", streamed, n)
				}
			}
		})
	}
}

// TestEmptyAnswerKeepsConversation: an empty answer (and one filtered
// away, or without a message) is reported with its own status and a
// warning, and the conversation it returns goes on: the next turn is sent.
func TestEmptyAnswerKeepsConversation(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	for _, tc := range []struct {
		msg, finish string
		status      runtime.Status
	}{
		{`{"role":"assistant","content":""}`, "stop", runtime.StatusEmpty},
		{`{"role":"assistant","content":"  \n"}`, "stop", runtime.StatusEmpty},
		{`{"role":"assistant","content":null}`, "stop", runtime.StatusEmpty},
		{`{"role":"assistant","content":""}`, "content_filter", runtime.StatusFiltered},
		{`null`, "stop", runtime.StatusNoMessage},
	} {
		h := newHarness(t, fakeopenai.Completion(json.RawMessage(tc.msg), tc.finish), fakeopenai.Text("Hello again"))
		resp, err := h.run(t, agent, runtime.Builtins(), nil, "hi")
		if err != nil {
			t.Fatalf("%s: %v", tc.msg, err)
		}
		if resp.Status != tc.status || len(resp.Warnings) != 1 {
			t.Errorf("%s: status %s, warnings %q; want %s and a warning", tc.msg, resp.Status, resp.Warnings, tc.status)
		}
		if tc.status == runtime.StatusEmpty && !strings.Contains(strings.Join(resp.Warnings, "\n"), "the model's answer was empty") {
			t.Errorf("%s: warnings %q", tc.msg, resp.Warnings)
		}
		next, err := h.run(t, agent, runtime.Builtins(), resp.Conversation, "are you there?")
		if err != nil || next.Content != "Hello again" {
			t.Errorf("%s: the next turn: %v, %q", tc.msg, err, next.Content)
		}
		// The history written as JSON reads back too.
		b, _ := json.Marshal(resp)
		if _, err := runtime.ParseConversation(b, ""); err != nil {
			t.Errorf("%s: the response as a history: %v", tc.msg, err)
		}
	}
}

// TestLegacyFunctionCall: an answer with a legacy "function_call" (no
// "tool_calls"), whole or streamed, is executed as a tool call; the ids
// made up for calls without one stay unique across turns, so the
// conversation stays valid.
func TestLegacyFunctionCall(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	legacy := fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":null,"function_call":{"name":"sayHello","arguments":"{\"personName\":\"Ann\"}"}}`), "function_call")
	streamed := fakeopenai.Raw(sse(
		`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","function_call":{"name":"sayHello","arguments":""}}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"function_call":{"arguments":"{\"personName\":\"Ann\"}"}}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`,
		`[DONE]`), "text/event-stream")
	for _, tc := range []struct {
		name     string
		step     fakeopenai.Step
		streamed bool
	}{
		{"whole", legacy, false},
		{"streamed", streamed, true},
		// A server that does not stream answers a streamed request whole.
		{"whole, to a streamed request", fakeopenai.Raw(`{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"function_call":{"name":"sayHello","arguments":"{\"personName\":\"Ann\"}"}},"finish_reason":"function_call"}]}`, ""), true},
	} {
		step := tc.step
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, step, fakeopenai.Text("Hello, Ann!"), step, fakeopenai.Text("Hello again, Ann!"), fakeopenai.Text("Bye"))
			var conv runtime.Conversation
			for turn := range 3 {
				resp := h.mustRun(t, agent, runtime.Builtins(), conv, "hi", runtime.WithStreaming(tc.streamed), runtime.WithEvents(func(runtime.Event) {}))
				if turn < 2 && (len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Name != "sayHello" || resp.ToolsUsed[0].Failed() || resp.Status != runtime.StatusCompleted) {
					t.Fatalf("turn %d: status %s, tools used %+v", turn+1, resp.Status, resp.ToolsUsed)
				}
				conv = resp.Conversation
			}
			reqs := h.srv.Requests()
			if tm := toolMessages(reqs[1]); len(tm) != 1 || !strings.Contains(tm[0].Text(), "Hello, Ann!") {
				t.Errorf("tool messages %+v", tm)
			}
		})
	}
}
