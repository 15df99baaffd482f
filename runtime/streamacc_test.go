package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestStreamAccumulatorAgreesWithSDK feeds the same chunk sequences to
// streamAccumulator and to openai-go's ChatCompletionAccumulator and checks
// that both accept and refuse the same chunks and assemble the same
// completion (the fields a reply is made of).
func TestStreamAccumulatorAgreesWithSDK(t *testing.T) {
	const usage = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`
	chunk := func(choices string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + choices + `]}`
	}
	delta := func(index int, d, finish string) string {
		return fmt.Sprintf(`{"index":%d,"delta":%s,"logprobs":null,"finish_reason":%s}`, index, d, finish)
	}
	call := func(index int, id, name, args string) string {
		return fmt.Sprintf(`{"role":null,"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}`, index, id, name, args)
	}
	args := func(index int, args string) string {
		return fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]}`, index, args)
	}
	fromServer := func(step fakeopenai.Step) []string {
		req := &fakeopenai.Request{N: 3, Body: fakeopenai.ChatRequest{Model: "m", Stream: true,
			StreamOptions: &fakeopenai.StreamOptions{IncludeUsage: true}}}
		resp := step(req)
		raw, err := fakeopenai.Chunks(req, resp.Body, resp.Streaming)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(raw))
		for i, r := range raw {
			out[i] = string(r)
		}
		return out
	}
	three := fakeopenai.Calls(
		fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Ann"}`},
		fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bartholomew"}`},
		fakeopenai.Call{Name: "lookUp", Arguments: `{"q":"héllo wörld","n":3}`})

	for _, tc := range []struct {
		name   string
		chunks []string
	}{
		{"text only", []string{
			chunk(delta(0, `{"role":"assistant","content":""}`, "null")),
			chunk(delta(0, `{"content":"Hel"}`, "null")),
			chunk(delta(0, `{"content":"lo, wö"}`, "null")),
			chunk(delta(0, `{"content":"rld"}`, "null")),
			chunk(delta(0, `{}`, `"stop"`)),
			usage,
		}},
		{"text from the server", fromServer(fakeopenai.Text("Greeted all five of them, 😀 included."))},
		{"parallel tool calls, interleaved", fromServer(fakeopenai.Interleaved(three))},
		{"parallel tool calls, one after the other", fromServer(three)},
		{"parallel tool calls by hand, names in pieces", []string{
			chunk(delta(0, call(0, "call_a", "say", ""), "null")),
			chunk(delta(0, call(1, "call_b", "look", `{"q"`), "null")),
			chunk(delta(0, `{"tool_calls":[{"index":0,"function":{"name":"Hello","arguments":"{\"p"}},{"index":1,"function":{"arguments":":1}"}}]}`, "null")),
			chunk(delta(0, args(0, `":2}`), "null")),
			chunk(delta(0, `{}`, `"tool_calls"`)),
			usage,
		}},
		{"text then a tool call", []string{
			chunk(delta(0, `{"role":"assistant","content":"Let me look."}`, "null")),
			chunk(delta(0, call(0, "call_x", "lookUp", `{}`), "null")),
			chunk(delta(0, `{}`, `"tool_calls"`)),
		}},
		{"refusal", []string{
			chunk(delta(0, `{"role":"assistant","refusal":""}`, "null")),
			chunk(delta(0, `{"refusal":"I can't "}`, "null")),
			chunk(delta(0, `{"refusal":"help with that."}`, "null")),
			chunk(delta(0, `{}`, `"stop"`)),
			usage,
		}},
		{"refusal from the server", fromServer(fakeopenai.Completion(json.RawMessage(`{"role":"assistant","content":null,"refusal":"No."}`), "stop"))},
		{"usage-only last chunk and usage in pieces", []string{
			chunk(delta(0, `{"content":"a"}`, `"length"`)),
			`{"id":"c","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`,
			usage,
		}},
		{"only usage", []string{usage}},
		{"a null message", fromServer(fakeopenai.Completion(json.RawMessage(`null`), "stop"))},
		{"finish_reason reset by a later chunk", []string{
			chunk(delta(0, `{"content":"a"}`, `"stop"`)),
			chunk(delta(0, `{"content":"b"}`, "null")),
		}},
		{"index -1 for a single call", []string{
			chunk(delta(0, call(-1, "call_1", "sayHello", `{"personName"`), "null")),
			chunk(delta(0, args(-1, `:"Z"}`), "null")),
			chunk(delta(0, `{}`, `"tool_calls"`)),
		}},
		{"sparse tool call index", []string{
			chunk(delta(0, call(2, "call_3", "sayHello", `{}`), "null")),
			chunk(delta(0, call(0, "call_1", "lookUp", `{}`), "null")),
			chunk(delta(0, `{}`, `"tool_calls"`)),
		}},
		{"a second choice", []string{
			chunk(delta(0, `{"content":"zero"}`, "null") + "," + delta(1, `{"content":"one"}`, `"stop"`)),
			chunk(delta(1, `{"content":" more"}`, "null")),
			chunk(delta(0, `{}`, `"stop"`)),
		}},
		{"a chunk of another completion", []string{
			chunk(delta(0, `{"content":"a"}`, "null")),
			`{"id":"other","choices":[{"index":0,"delta":{"content":"b"}}]}`,
			chunk(delta(0, `{"content":"c"}`, `"stop"`)),
		}},
		{"an empty id after the first", []string{
			chunk(delta(0, `{"content":"a"}`, "null")),
			`{"choices":[{"index":0,"delta":{"content":"b"}}]}`,
		}},
		{"a choice index out of range", []string{
			chunk(delta(0, `{"content":"a"}`, "null")),
			chunk(delta(128, `{"content":"b"}`, "null")),
			chunk(delta(-1, `{"content":"b"}`, "null")),
			chunk(delta(0, `{"content":"c"}`, `"stop"`)),
		}},
		{"tool call indexes out of range", []string{
			chunk(delta(0, call(0, "call_1", "a", `{}`), "null")),
			chunk(delta(0, call(129, "call_x", "b", `{}`), "null")),
			chunk(delta(0, call(-2, "call_y", "c", `{}`), "null")),
			chunk(delta(0, call(128, "call_z", "d", `{}`), "null")),
			chunk(delta(0, `{}`, `"tool_calls"`)),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sdk openai.ChatCompletionAccumulator
			var ours streamAccumulator
			for i, raw := range tc.chunks {
				var sc openai.ChatCompletionChunk
				if err := json.Unmarshal([]byte(raw), &sc); err != nil {
					t.Fatalf("chunk %d: %v", i+1, err)
				}
				var oc streamChunk
				if err := json.Unmarshal([]byte(raw), &oc); err != nil {
					t.Fatalf("chunk %d: %v", i+1, err)
				}
				if s, o := sdk.AddChunk(sc), ours.add(&oc); s != o {
					t.Errorf("chunk %d %s: the SDK accepts it: %v, streamAccumulator: %v", i+1, raw, s, o)
				}
			}
			want, got := assembled(&sdk.ChatCompletion), assembled(ours.completion())
			// The SDK makes an empty call for each index a stream skips;
			// the accumulator makes calls only for the indices sent.
			want.Calls = slices.DeleteFunc(want.Calls, func(c [4]string) bool { return c == [4]string{} })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("assembled\n got  %+v\n want %+v", got, want)
			}
			if strings.Contains(tc.name, "tool calls") && len(want.Calls) < 2 {
				t.Errorf("the case has %d tool calls, want several", len(want.Calls))
			}
		})
	}
}

// assembledCompletion is what a reply is made of.
type assembledCompletion struct {
	ID                             string
	Choices                        int
	Role, Content, Refusal, Finish string
	Calls                          [][4]string
	Prompt, Completion, Total      int64
}

func assembled(c *openai.ChatCompletion) assembledCompletion {
	a := assembledCompletion{ID: c.ID, Choices: min(len(c.Choices), 1),
		Prompt: c.Usage.PromptTokens, Completion: c.Usage.CompletionTokens, Total: c.Usage.TotalTokens}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		a.Role, a.Content, a.Refusal, a.Finish = string(ch.Message.Role), ch.Message.Content, ch.Message.Refusal, ch.FinishReason
		for _, tc := range ch.Message.ToolCalls {
			a.Calls = append(a.Calls, [4]string{tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments})
		}
	}
	return a
}

// TestStreamChunkDecoder checks the small chunk decoder against
// encoding/json: on every input the result (and whether there is an
// error) is the same, and the inputs a server sends are read by the small
// decoder itself rather than handed to encoding/json.
func TestStreamChunkDecoder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		fast bool // read by the small decoder
	}{
		{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"sayHello","arguments":"{\"personName\":\"Bob\"}"}}]},"finish_reason":null}]}`, true},
		{`{"id":"c","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}}}`, true},
		{` { "id" : "c" , "choices" : [ { "index" : 0 , "delta" : { "content" : "héllo 😀 wörld" } , "finish_reason" : "stop" } ] } `, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"tab\tnew\nquote\" \\ \/ \u00e9 \ud83d\ude00 \u003c"}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"bad \ud800 surrogate"}}]}`, true},
		{"{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bad \xff\xfe bytes\"}}]}", true},
		{`{"ID":"c","Choices":[{"INDEX":2,"Delta":{"Content":"x","TOOL_CALLS":null},"Finish_Reason":"stop"}]}`, true},
		{`{"id":"c","choices":null,"usage":{"prompt_tokens":null}}`, true},
		{`{"id":null,"choices":[{"index":null,"delta":null,"finish_reason":null}]}`, true},
		{`{"id":"c","extra":{"a":[1,2.5e3,true,false,null,{"b":"}"}],"c":"]"},"choices":[]}`, true},
		{`{"id":"c","choices":[{"index":-1,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":""}}]}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{}},{"index":1,"delta":{"content":"one"}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","function_call":{"name":"sayHello","arguments":"{\"p"}}}]}`, true},
		{`{"id":"c","choices":[{"index":0,"delta":{"function_call":null}}]}`, true},
		{`{"id":"a","id":"b"}`, false},
		{`{"id":"c","choices":[{"index":0}],"choices":[{"delta":{"content":"merged"}}]}`, false},
		{`{"id":"c","choices":[{"index":1.0}]}`, false},
		{`{"id":"c","choices":[{"index":1e2}]}`, false},
		{`{"id":"c","choices":[{"index":"0"}]}`, false},
		{`{"id":"c","choices":[{"index":0,"delta":{"content":5}}]}`, false},
		{`{"id":"c","choices":{}}`, false},
		{`{"id":"c","usage":[]}`, false},
		{`{"id":"c","choices":[{"index":99999999999999999999}]}`, false},
		{`[]`, false},
		{`null`, true},
		{`"text"`, false},
		{`{"error":{"message":"overloaded","type":"server_error"}}`, false},
		// Not JSON: encoding/json fails, the small decoder declines.
		{`{"id":"c",}`, false},
		{`{"id":"c","choices":[1,]}`, false},
		{`{"id":"c","x":tru}`, false},
		{`{"id":"c","x":01}`, false},
		{`{"id":"c","x":-}`, false},
		{`{"id":"c","x":1.}`, false},
		{`{"id":"c","x":1e}`, false},
		{`{"id":"c","x":.5}`, false},
		{`{"id":"c","x":nul}`, false},
		{`{"id":"c"} x`, false},
		{`{"id":"c"`, false},
		{"{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"raw\nnewline\"}}]}", false},
		{`{"id":"c\x"}`, false},
		{`{"id":"unterminated}`, false},
		{``, false},
	} {
		var want streamChunkFields
		wantErr := json.Unmarshal([]byte(tc.in), &want)
		var got streamChunk
		gotErr := json.Unmarshal([]byte(tc.in), &got)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, encoding/json: %v", tc.in, gotErr, wantErr)
		}
		if !reflect.DeepEqual(streamChunk(want), got) {
			t.Errorf("%s:\n got  %+v\n want %+v", tc.in, got, streamChunk(want))
		}
		var c streamChunk
		fast := c.decode([]byte(tc.in))
		if fast != tc.fast {
			t.Errorf("%s: read by the small decoder: %v, want %v", tc.in, fast, tc.fast)
		}
		if fast && (wantErr != nil || !reflect.DeepEqual(streamChunk(want), c)) {
			t.Errorf("%s: the small decoder reads\n %+v\nencoding/json %+v (%v)", tc.in, c, streamChunk(want), wantErr)
		}
	}
}

// TestReadChunks checks the reading of a stream's events: chunks in
// order, the end at [DONE], and an error event, an event that is not
// JSON or a stream without chunks reported as what the server sent.
func TestReadChunks(t *testing.T) {
	events := func(data ...string) ssestream.Decoder {
		var b strings.Builder
		for _, d := range data {
			b.WriteString("data: " + d + "\n\n")
		}
		return ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(strings.NewReader(b.String()))})
	}
	read := func(dec ssestream.Decoder) (string, error) {
		var got []string
		_, err := readChunks(dec, func(c *streamChunk) error {
			for _, ch := range c.Choices {
				if ch.Delta.Content != nil {
					got = append(got, *ch.Delta.Content)
				}
			}
			return nil
		})
		return strings.Join(got, "|"), err
	}
	text := func(s string) string { return `{"id":"c","choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` }

	got, err := read(events(text("a"), text("b"), "[DONE]", text("after")))
	if got != "a|b" || err != nil {
		t.Errorf("got %q, %v; want a|b and no error", got, err)
	}
	// A chunk the small decoder declines is still read.
	got, err = read(events(text("a"), `{"id":"c","choices":[{"index":0,"delta":{"content":"b"}}],"choices":[{"index":0}]}`))
	if got != "a|b" || err != nil {
		t.Errorf("got %q, %v; want a|b and no error", got, err)
	}
	// What is not an answer says what the server sent, and which event.
	for _, tc := range []struct{ bad, want string }{
		{`{"error":{"message":"the server is overloaded"}}`, "the server sent an error in the stream (event 2): the server is overloaded"},
		{`{"error":"busy"}`, "the server sent an error in the stream (event 2): busy"},
		{`{"id":"c",`, `the stream's event 2 is not a chat completion chunk (unexpected end of JSON input): "{\"id\":\"c\","`},
	} {
		got, err = read(events(text("a"), tc.bad, text("b")))
		if got != "a" || err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %q, %v; want a and the error %s", tc.bad, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		dec  ssestream.Decoder
		want string
	}{
		{events(), "the stream had no events (an empty body)"},
		{events("[DONE]"), "the stream ended ([DONE]) without any chunk"},
	} {
		if _, err := read(tc.dec); err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %s", err, tc.want)
		}
	}
}
