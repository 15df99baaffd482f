package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/runtime"
)

// TestParseConversation reads the three forms of a history, the OpenAI
// wire form of messages included, and refuses bad ones with a
// ValidationError naming the message.
func TestParseConversation(t *testing.T) {
	want := runtime.Conversation{
		{Role: "user", Content: "I'm Bob"},
		{Role: "assistant", ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "sayHello", Arguments: `{"personName":"Bob"}`}}},
		{Role: "tool", ToolCallID: "c1", Name: "sayHello", Content: "Hello, Bob!"},
		{Role: "assistant", Content: "Hello, Bob!"},
	}
	list := `[{"role":"user","content":"I'm Bob"},
		{"role":"assistant","toolCalls":[{"id":"c1","name":"sayHello","arguments":"{\"personName\":\"Bob\"}"}]},
		{"role":"tool","toolCallId":"c1","name":"sayHello","content":"Hello, Bob!"},
		{"role":"assistant","content":"Hello, Bob!"}]`
	wire := `{"version":1,"interactions":[{"request":{"body":{"messages":[
		{"role":"system","content":"Greet."},
		{"role":"user","content":[{"type":"text","text":"I'm Bob"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sayHello","arguments":"{\"personName\":\"Bob\"}"}}]},
		{"role":"tool","tool_call_id":"c1","name":"sayHello","content":"Hello, Bob!"}]}},
		"response":{"status":200,"body":{"choices":[{"message":{"role":"assistant","content":"Hello, Bob!"}}]}}}]}`
	for name, data := range map[string]string{
		"list":      list,
		"response":  `{"content":"Hello, Bob!","status":"completed","conversation":` + list + `}`,
		"recording": wire,
	} {
		got, err := runtime.ParseConversation([]byte(data), "Greet.")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, tc := range []struct{ data, want string }{
		{`[]`, "invalid conversation: the history has no messages"},
		{`[{"role":"user","content":"hi"},{"role":"robot","content":"x"}]`, `invalid conversation[1]: unknown role "robot" (want user, assistant or tool)`},
		{`[{"role":"user","content":[{"type":"image_url"}]}]`, `invalid conversation[0]: content part of type "image_url": only text parts can be read from a history`},
		{`{"content":"x"}`, `neither a response (no "conversation") nor a recording (no "interactions")`},
	} {
		_, err := runtime.ParseConversation([]byte(tc.data), "")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.data, err, tc.want)
		}
		var ve *runtime.ValidationError
		if tc.data != `{"content":"x"}` && !errors.As(err, &ve) {
			t.Errorf("%s: %T, want a ValidationError", tc.data, err)
		}
	}
}

// TestParseConversationLongEventLine: a history of event lines is read
// whatever the length of a line (here a run_finished event of more than
// 64 MiB, the longest line a default line scanner would read).
func TestParseConversationLongEventLine(t *testing.T) {
	long := strings.Repeat("a", 64<<20+1)
	data := `{"type":"turn_started"}` + "\n" +
		`{"type":"run_finished","response":{"conversation":[{"role":"user","content":"` + long + `"},{"role":"assistant","content":"ok"}]}}` + "\n"
	got, err := runtime.ParseConversation([]byte(data), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Content) != len(long) || got[1].Content != "ok" {
		t.Errorf("got %d messages", len(got))
	}
}
