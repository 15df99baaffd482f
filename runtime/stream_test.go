package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// eventLog collects the events of a run.
type eventLog struct {
	mu     sync.Mutex
	events []runtime.Event
}

func (l *eventLog) add(e runtime.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// types returns the event types in order, text deltas merged into one
// "text" entry per run of them.
func (l *eventLog) types() []string {
	var out []string
	for _, e := range l.events {
		t := string(e.Type)
		if e.Type == runtime.EventTextDelta {
			t = "text"
			if len(out) > 0 && out[len(out)-1] == t {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// text returns the text deltas of an iteration, in order.
func (l *eventLog) text(iter int) []string {
	var out []string
	for _, e := range l.events {
		if e.Type == runtime.EventTextDelta && e.Iteration == iter {
			out = append(out, e.Text)
		}
	}
	return out
}

// TestStreamText: a text answer streamed in pieces arrives as several text
// deltas that make up the answer, then model_turn_finished with the usage
// and finish reason, then run_finished; the response is the one a run
// without streaming gives.
func TestStreamText(t *testing.T) {
	const answer = "Hello, Bob! Nice to meet you. How can I help you today?"
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t, fakeopenai.Text(answer), fakeopenai.Text(answer))
	var log eventLog
	streamed := h.mustRun(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
	plain := h.mustRun(t, agent, runtime.Builtins(), nil, "hi")

	reqs := h.srv.Requests()
	if !reqs[0].Body.Stream || reqs[0].Body.StreamOptions == nil || !reqs[0].Body.StreamOptions.IncludeUsage {
		t.Errorf("the run with events did not ask for a stream with usage: %s", reqs[0].Raw)
	}
	if reqs[1].Body.Stream {
		t.Errorf("the run without events asked for a stream")
	}
	deltas := log.text(1)
	if len(deltas) < 5 || strings.Join(deltas, "") != answer {
		t.Errorf("deltas %q, want several making up %q", deltas, answer)
	}
	if diff := cmp.Diff([]string{"text", "model_turn_finished", "run_finished"}, log.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	turn := log.events[len(log.events)-2]
	if turn.Usage == nil || turn.Usage.TotalTokens != fakeopenai.PromptTokens+fakeopenai.CompletionTokens || turn.FinishReason != "stop" || turn.Duration <= 0 {
		t.Errorf("model_turn_finished: %+v", turn)
	}
	last := log.events[len(log.events)-1]
	if last.Response != streamed || last.Err != nil {
		t.Errorf("run_finished carries %+v, %v; want the response Run returned", last.Response, last.Err)
	}
	if diff := cmp.Diff(plain, streamed, cmpopts.IgnoreFields(runtime.ToolUse{}, "Duration"), cmpopts.IgnoreFields(runtime.Response{}, "RunID")); diff != "" {
		t.Errorf("streamed response differs from the plain one (-plain +streamed):\n%s", diff)
	}
}

const noteSrc = `
[slow:Tool {description: "Notes"} | (n::Integer)==>(note::String)==>(::String)]
[par:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Call slow three times."} | slow]
`

// TestStreamParallelToolCalls: three tool calls whose ids, names and
// argument pieces are interleaved across chunks are assembled, run, and
// reported with started/finished events; the text of the next call
// streams too.
func TestStreamParallelToolCalls(t *testing.T) {
	agent := compile(t, noteSrc).Agents()[0]
	h := newHarness(t,
		fakeopenai.Interleaved(fakeopenai.Calls(
			call("slow", `{"n": 1, "note": "first of three"}`),
			call("slow", `{"n": 2, "note": "second"}`),
			call("slow", `{"n": 3, "note": "the third and last"}`))),
		fakeopenai.Textf(func(req *fakeopenai.Request) string {
			var parts []string
			for _, m := range toolMessages(req) {
				parts = append(parts, m.Text())
			}
			return "results: " + strings.Join(parts, ", ")
		}),
	)
	lib := runtime.NewLibrary(toolFunc("slow", nil, func(ctx context.Context, args map[string]any) (any, error) {
		return fmt.Sprintf("%v:%v", args["n"], args["note"]), nil
	}))
	var log eventLog
	resp := h.mustRun(t, agent, lib, nil, "go", runtime.WithEvents(log.add))
	const want = "results: 1:first of three, 2:second, 3:the third and last"
	if resp.Content != want || len(resp.ToolsUsed) != 3 {
		t.Fatalf("content %q, tools used %+v", resp.Content, resp.ToolsUsed)
	}
	for i, u := range resp.ToolsUsed {
		if u.CallID != fmt.Sprintf("call_1_%d", i+1) || u.Error != "" {
			t.Errorf("tool use %d: %+v", i, u)
		}
	}
	if got := strings.Join(log.text(2), ""); got != want || len(log.text(2)) < 5 {
		t.Errorf("deltas of the answer %q", log.text(2))
	}
	started, finished := map[string]string{}, map[string]string{}
	for _, e := range log.events {
		switch e.Type {
		case runtime.EventToolCallStarted:
			started[e.CallID] = e.Arguments
		case runtime.EventToolCallFinished:
			if e.Tool == nil || e.Tool.CallID != e.CallID || e.Duration <= 0 {
				t.Errorf("tool_call_finished: %+v", e)
				continue
			}
			finished[e.CallID] = fmt.Sprint(e.Tool.Result)
		}
	}
	wantStarted := map[string]string{
		"call_1_1": `{"n": 1, "note": "first of three"}`,
		"call_1_2": `{"n": 2, "note": "second"}`,
		"call_1_3": `{"n": 3, "note": "the third and last"}`,
	}
	if diff := cmp.Diff(wantStarted, started); diff != "" {
		t.Errorf("tool_call_started arguments (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"call_1_1": "1:first of three", "call_1_2": "2:second", "call_1_3": "3:the third and last"}, finished); diff != "" {
		t.Errorf("tool_call_finished results (-want +got):\n%s", diff)
	}
	types := log.types()
	if types[0] != "model_turn_finished" || types[len(types)-1] != "run_finished" || types[len(types)-2] != "model_turn_finished" {
		t.Errorf("event order %q", types)
	}
	if e := log.events[0]; e.ToolCalls != 3 || e.FinishReason != "tool_calls" {
		t.Errorf("first model_turn_finished: %+v", e)
	}
}

// TestStreamCut: a stream that breaks after some text is an LLMError of
// kind stream_cut, not retried (the text was shown), and the text
// delivered stays in the conversation as the assistant's message.
func TestStreamCut(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	const answer = "This answer will not get to its end: the connection drops in the middle of it, " +
		"after some of its text has been shown, and so it cannot be asked for again."
	h := newHarness(t, fakeopenai.Cut(25, fakeopenai.Text(answer)), fakeopenai.Text("a retry must not happen"))
	var log eventLog
	resp, err := h.run(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
	var le *runtime.LLMError
	if !errors.As(err, &le) || le.Kind != runtime.LLMStreamCut {
		t.Fatalf("error %v (%T), want an LLMError of kind stream_cut", err, err)
	}
	shown := strings.Join(log.text(1), "")
	if shown == "" || !strings.HasPrefix(answer, shown) || shown == answer {
		t.Fatalf("text shown %q, want a proper prefix of the answer", shown)
	}
	conv := resp.Conversation
	if last := conv[len(conv)-1]; last.Role != runtime.RoleAssistant || last.Content != shown {
		t.Errorf("last message %+v, want the assistant's partial text %q", last, shown)
	}
	if resp.Status != runtime.StatusError || resp.Error == "" {
		t.Errorf("status %s, error %q", resp.Status, resp.Error)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: the cut stream was retried", n)
	}
	if !strings.Contains(err.Error(), "cut short") || strings.Contains(err.Error(), testKey) {
		t.Errorf("error text %q", err)
	}
	types := log.types()
	if diff := cmp.Diff([]string{"text", "model_turn_finished", "run_finished"}, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if e := log.events[len(log.events)-2]; e.Err == nil {
		t.Errorf("model_turn_finished of the cut call has no error: %+v", e)
	}
}

// TestStreamRetryBeforeText: a stream that breaks before any text was
// delivered is retried like a failed call.
func TestStreamRetryBeforeText(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t, fakeopenai.Cut(1, fakeopenai.Text("lost")), fakeopenai.Error(http.StatusServiceUnavailable, "busy"), fakeopenai.Text("second try"))
	var log eventLog
	resp := h.mustRun(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
	if resp.Content != "second try" || strings.Join(log.text(1), "") != "second try" {
		t.Errorf("content %q, deltas %q", resp.Content, log.text(1))
	}
	if n := len(h.srv.Requests()); n != 3 || len(h.sleeps.get()) != 2 {
		t.Errorf("%d requests, waits %v", n, h.sleeps.get())
	}
}

// TestStreamIterator: Events yields the same events as WithEvents, the
// last being run_finished with the response; stopping early cancels the
// run.
func TestStreamIterator(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t, fakeopenai.Calls(call("sayHello", `{"personName":"Ann"}`)), fakeopenai.Text("Hello, Ann!"))
	var types []runtime.EventType
	var last runtime.Event
	for e := range runtime.Events(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(h.model), runtime.WithLogger(discard())) {
		types = append(types, e.Type)
		last = e
	}
	want := []runtime.EventType{"model_turn_finished", "tool_call_started", "tool_call_finished"}
	if len(types) < 6 || !cmp.Equal(want, types[:3]) || last.Type != runtime.EventRunFinished || last.Response == nil || last.Response.Content != "Hello, Ann!" {
		t.Errorf("events %q, last %+v", types, last)
	}

	gate := make(chan struct{})
	h.srv.Push(fakeopenai.Paused(20, gate, fakeopenai.Text(strings.Repeat("a long answer that is never read whole ", 5))))
	n := 0
	for e := range runtime.Events(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(h.model), runtime.WithLogger(discard())) {
		n++
		if e.Type == runtime.EventTextDelta {
			break // the run is cancelled; the iteration returns
		}
	}
	close(gate)
	if n != 1 {
		t.Errorf("%d events before the break", n)
	}
}

// TestStreamRecordReplay: a streamed session, a clean one and a cut one,
// is recorded (SSE bodies, the cut's error) and replays to the same
// events and error, with no network.
func TestStreamRecordReplay(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	srv := fakeopenai.New(t,
		fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
		fakeopenai.Text("Hello, Bob! "+testKey),
		fakeopenai.Cut(20, fakeopenai.Text(strings.Repeat("cut somewhere in here, please ", 5))),
	)
	path := filepath.Join(t.TempDir(), "s.json")
	session := func(transport http.RoundTripper, base string) ([]string, string) {
		m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: base, APIKey: testKey, HTTPClient: &http.Client{Transport: transport}, Logger: discard()})
		if err != nil {
			t.Fatal(err)
		}
		var log eventLog
		resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(m), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
		if err != nil {
			t.Fatalf("first turn: %v", err)
		}
		_, err = runtime.Run(context.Background(), agent, runtime.Builtins(), resp.Conversation, "more", runtime.WithModel(m), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
		var texts []string
		for _, e := range log.events {
			if e.Type == runtime.EventTextDelta {
				texts = append(texts, e.Text)
			}
		}
		return texts, fmt.Sprint(err)
	}
	rec := replay.NewRecorder(path, nil, testKey)
	recTexts, recErr := session(rec, srv.URL)
	data, err := json.Marshal(rec.Recording())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(testKey)) {
		t.Errorf("the recording holds the key")
	}
	var text strings.Builder
	for _, it := range rec.Recording().Interactions {
		text.WriteString(joinedDeltas(it.Response.BodyText))
	}
	if strings.Contains(text.String(), testKey) || !strings.Contains(text.String(), "Hello, Bob! [REDACTED]") {
		t.Errorf("the recorded events, joined, read %q", text.String())
	}
	if !bytes.Contains(data, []byte(`data: {`)) || !bytes.Contains(data, []byte(`"bodyError"`)) {
		t.Errorf("the recording has no SSE body or no cut:\n%s", data)
	}
	if !strings.Contains(recErr, "cut short") || strings.Contains(strings.Join(recTexts, ""), testKey) {
		t.Errorf("recorded session: error %s, texts %q", recErr, recTexts)
	}
	rp, err := replay.NewReplayer(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	repTexts, repErr := session(rp, "http://replay.invalid/v1")
	if diff := cmp.Diff(recTexts, repTexts); diff != "" {
		t.Errorf("replayed text deltas (-recorded +replayed):\n%s", diff)
	}
	if strings.Replace(repErr, "replayed: ", "", 1) != recErr {
		t.Errorf("replayed error %s, recorded %s", repErr, recErr)
	}
}

// TestStreamRedaction: the API key, echoed by the server inside the text in
// pieces, never appears in a delta, the response or the trace; the text
// around it arrives.
func TestStreamRedaction(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	const answer = "Your key is " + testKey + " and the other one sk-proj-abcdefghijklmnop, keep them safe."
	srv := fakeopenai.New(t, fakeopenai.Text(answer))
	var trace bytes.Buffer
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, APIKey: testKey,
		HTTPClient: &http.Client{Transport: replay.NewTracer(&trace, nil, testKey)}, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	var log eventLog
	resp, err := runtime.Run(context.Background(), agent, runtime.Builtins(), nil, "hi", runtime.WithModel(m), runtime.WithEvents(log.add), runtime.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	shown := strings.Join(log.text(1), "")
	const want = "Your key is [REDACTED] and the other one [REDACTED], keep them safe."
	if shown != want || resp.Content != want {
		t.Errorf("shown %q, content %q; want %q", shown, resp.Content, want)
	}
	for _, d := range log.text(1) {
		if strings.Contains(d, "0123") || strings.Contains(d, "abcdef") {
			t.Errorf("a delta holds part of a key: %q", d)
		}
	}
	if !strings.Contains(trace.String(), "data: [DONE]") || strings.Contains(trace.String(), testKey) {
		t.Errorf("trace:\n%s", trace.String())
	}
	// The trace shows the events, whose pieces, joined, hold no secret.
	if got := joinedDeltas(trace.String()); got != want {
		t.Errorf("the text of the traced events is %q, want %q", got, want)
	}
}

// joinedDeltas joins the text of the chunks of an event stream, as a
// reader of a trace or a recording could.
func joinedDeltas(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &chunk) == nil {
			for _, c := range chunk.Choices {
				b.WriteString(c.Delta.Content)
			}
		}
	}
	return b.String()
}

// TestStreamServerWithoutStreaming: a server that ignores "stream": true
// and answers with whole completions still works with streaming on: the
// tool call runs, the text comes in one delta, the usage counts.
func TestStreamServerWithoutStreaming(t *testing.T) {
	agent := compile(t, helloSrc).Agents()[0]
	h := newHarness(t,
		fakeopenai.Raw(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"sayHello","arguments":"{\"personName\":\"Al\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`, ""),
		fakeopenai.Raw(`{"id":"c2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi Al."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`, ""),
	)
	var log eventLog
	resp := h.mustRun(t, agent, runtime.Builtins(), nil, "hi", runtime.WithEvents(log.add))
	if resp.Content != "Hi Al." || len(resp.ToolsUsed) != 1 || resp.ToolsUsed[0].Result != "Hello, Al! Nice to meet you." ||
		resp.ToolsUsed[0].CallID != "call_a" || resp.Usage.TotalTokens != 20 || resp.FinishReason != "stop" {
		t.Errorf("response %+v", resp)
	}
	if d := log.text(2); len(d) != 1 || d[0] != "Hi Al." {
		t.Errorf("deltas %q", d)
	}
	if !h.srv.Requests()[0].Body.Stream {
		t.Errorf("the request did not ask for a stream")
	}
}
