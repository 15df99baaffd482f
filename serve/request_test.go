package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestDuplicateKeys: a request whose JSON repeats a key in an object (at
// the top level, in a message, in a content part; spelled alike or with
// escapes) is refused with a 400 naming the key's place, on both
// endpoints, before anything runs.
func TestDuplicateKeys(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Hello!")})
	const user = `{"role":"user","content":"hi"}`
	cases := []struct{ name, path, body, param, says string }{
		{"run: message_history twice", "/v1/agents/hello/run",
			`{"message_history":[` + user + `],"message_history":[{"role":"user","content":"other"}]}`,
			"message_history", `"message_history" appears twice in the request body`},
		{"run: escaped spelling", "/v1/agents/hello/run",
			`{"message_history":[` + user + `],"message_hist\u006fry":[` + user + `]}`,
			"message_history", `"message_history" appears twice in the request body`},
		{"run: content twice", "/v1/agents/hello/run",
			`{"message_history":[` + user + `,{"role":"assistant","content":"a"},{"role":"user","content":"b","content":"c"}]}`,
			"message_history[2].content", `"content" appears twice in message_history[2]`},
		{"chat: model twice", "/v1/chat/completions",
			`{"model":"hello","messages":[` + user + `],"model":"orders"}`,
			"model", `"model" appears twice in the request body`},
		{"chat: role twice", "/v1/chat/completions",
			`{"model":"hello","messages":[` + user + `,{"role":"assistant","role":"user","content":"x"},` + user + `]}`,
			"messages[1].role", `"role" appears twice in messages[1]`},
		{"chat: text twice in a part", "/v1/chat/completions",
			`{"model":"hello","messages":[{"role":"user","content":[{"type":"text","text":"a","t\u0065xt":"b"}]}]}`,
			"messages[0].content[0].text", `"text" appears twice in messages[0].content[0]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, b := h.do(http.MethodPost, c.path, c.body)
			e := wantError(t, resp, b, http.StatusBadRequest, "duplicate_key")
			if e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("param %v message %q, want %q saying %q", e.Error.Param, e.Error.Message, c.param, c.says)
			}
		})
	}
	// Keys repeated in different objects are no duplicates.
	resp, b := h.do(http.MethodPost, "/v1/agents/hello/run", `{"message_history":[`+user+`,{"role":"assistant","content":"a"},`+user+`]}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request without repeated keys was refused: %s", b)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want 1", n)
	}
}

// TestContentTypes: a message content that is not text (null, a number,
// an object, a part whose text is not a string) is refused with one shape,
// naming the field's path and what it holds; an assistant message with
// tool calls may have null content (and is refused for its tool calls).
func TestContentTypes(t *testing.T) {
	h := newHarness(t, nil)
	chat := func(assistant string) string {
		return `{"model":"hello","messages":[{"role":"user","content":"hi"},` + assistant + `,{"role":"user","content":"again"}]}`
	}
	run := func(assistant string) string {
		return `{"message_history":[{"role":"user","content":"hi"},` + assistant + `,{"role":"user","content":"again"}]}`
	}
	const chatType = "messages[1].content must be a string or a list of text parts"
	cases := []struct{ name, path, body, code, param, says string }{
		{"chat: null", "/v1/chat/completions", chat(`{"role":"assistant","content":null}`), "invalid_message", "messages[1].content", chatType + ` ({"type": "text", "text": "..."}), not null.`},
		{"chat: number", "/v1/chat/completions", chat(`{"role":"assistant","content":5}`), "invalid_message", "messages[1].content", chatType + ` ({"type": "text", "text": "..."}), not a number.`},
		{"chat: object", "/v1/chat/completions", chat(`{"role":"assistant","content":{"text":"x"}}`), "invalid_message", "messages[1].content", chatType + ` ({"type": "text", "text": "..."}), not an object.`},
		{"chat: missing", "/v1/chat/completions", chat(`{"role":"assistant"}`), "invalid_message", "messages[1].content", `messages[1].content is missing: it must be a string or a list of text parts`},
		{"chat: user null", "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":null}]}`, "invalid_message", "messages[0].content", "messages[0].content must be a string or a list of text parts"},
		{"chat: part text null", "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":[{"type":"text","text":null}]}]}`, "invalid_message", "messages[0].content[0].text", "messages[0].content[0].text must be a string, not null."},
		{"chat: role a number", "/v1/chat/completions", chat(`{"role":5,"content":"x"}`), "invalid_message", "messages[1].role", "messages[1].role must be a string (user or assistant), not a number."},
		{"chat: null with tool calls", "/v1/chat/completions", chat(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sayHello","arguments":"{}"}}]}`), "unsupported_parameter", "messages[1].tool_calls", "has tool calls"},
		{"chat: null with function_call", "/v1/chat/completions", chat(`{"role":"assistant","content":null,"function_call":{"name":"sayHello","arguments":"{}"}}`), "unsupported_parameter", "messages[1].function_call", "has tool calls"},
		{"run: null", "/v1/agents/hello/run", run(`{"role":"assistant","content":null}`), "invalid_history", "message_history[1].content", "message_history[1].content must be a string, not null."},
		{"run: number", "/v1/agents/hello/run", run(`{"role":"assistant","content":5}`), "invalid_history", "message_history[1].content", "message_history[1].content must be a string, not a number."},
		{"run: user null", "/v1/agents/hello/run", `{"message_history":[{"role":"user","content":null}]}`, "invalid_history", "message_history[0].content", "message_history[0].content must be a string, not null."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, b := h.do(http.MethodPost, c.path, c.body)
			e := wantError(t, resp, b, http.StatusBadRequest, c.code)
			if e.Error.Type != "invalid_request_error" || e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) {
				t.Errorf("type %q param %v message %q, want %q saying %q", e.Error.Type, e.Error.Param, e.Error.Message, c.param, c.says)
			}
		})
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestSanitisedMessages: control characters, bidirectional overrides and
// isolates are removed from the user's messages and bytes that are not
// UTF-8 (raw, or as escapes of lone surrogates) replaced before the model
// sees them; each kind of change is one warning naming the messages, and
// the envelope's messages are what the model saw.
func TestSanitisedMessages(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("Hello!"), fakeopenai.Text("Hi again!")})
	body := `{"message_history":[` +
		`{"role":"user","content":"hi\u0000 \u001b[2Jthere"},` +
		`{"role":"assistant","content":"Hello` + "\xff" + `"},` +
		`{"role":"user","content":"open \u202egnp.exe \u2066x\u2069 caf` + "\xe9" + ` \ud800 \u200f"}]}`
	resp, b := h.do(http.MethodPost, "/v1/agents/hello/run", body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var env runEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	sent := h.model.Requests()[0].Body.Messages
	want := []string{"hi [2Jthere", "Hello\uFFFD", "open gnp.exe x caf\uFFFD \uFFFD \u200f", "Hello!"}
	for i, w := range want {
		if i < 3 && sent[i+1].Text() != w {
			t.Errorf("the model got message %d as %q, want %q", i, sent[i+1].Text(), w)
		}
		if i >= len(env.Messages) || env.Messages[i].Content != w {
			t.Errorf("the envelope's messages are %q, want %q", env.Messages, want)
			break
		}
	}
	wantWarnings := []string{
		"2 control characters (U+0000, U+001B) were removed from the user's text before it was sent to the model, in message_history[0].content",
		"3 bidirectional formatting characters (U+202E right-to-left override, U+2066 left-to-right isolate, U+2069 pop directional isolate) were removed from the user's text before it was sent to the model, in message_history[2].content",
		"2 bytes that are not UTF-8 and 1 escape of a lone surrogate were replaced by U+FFFD before the text was sent to the model, in message_history[1].content and message_history[2].content",
	}
	if diff := cmp.Diff(wantWarnings, env.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	// The chat endpoint says the same in gram.warnings, naming its own
	// fields; a message left empty by sanitising is refused.
	resp, b = h.do(http.MethodPost, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":[{"type":"text","text":"a\u202e"},{"type":"text","text":"b`+"\xc3"+`"}]}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if got := h.model.Requests()[1].Body.Messages[1].Text(); got != "ab\uFFFD" {
		t.Errorf("the model got %q", got)
	}
	for _, w := range []string{
		`"1 bidirectional formatting character (U+202E right-to-left override) was removed from the user's text before it was sent to the model, in messages[0].content"`,
		`"1 byte that is not UTF-8 was replaced by U+FFFD before the text was sent to the model, in messages[0].content"`,
	} {
		if !strings.Contains(string(b), w) {
			t.Errorf("no warning %s in %s", w, b)
		}
	}
	resp, b = h.do(http.MethodPost, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"\u0000\u202e"}]}`)
	e := wantError(t, resp, b, http.StatusBadRequest, "empty_message")
	if e.Error.Param == nil || *e.Error.Param != "messages[0].content" {
		t.Errorf("param %v", e.Error.Param)
	}
}
