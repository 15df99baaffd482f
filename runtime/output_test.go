package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeanthropic"
	"github.com/gramlang/gram/runtime/fakegemini"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// outputSrc declares an Invoice record, signatures returning it, a number
// and a list, and agents on each provider.
const outputSrc = `{ kind: "agents" }
[Invoice:Record {description: "An invoice"} |
  (number::String),
  (total::Number),
  (paid::Boolean)
]
[Draft:Record | (number::String), (note::String {optional: true})]
[billing_sig:Tool {description: "Answers billing questions"} | (question::String)==>(::Invoice)]
[draft_sig:Tool {description: "Drafts"} | (question::String)==>(::Draft)]
[count_sig:Tool {description: "Counts"} | (question::String)==>(::Integer)]
[list_sig:Tool {description: "Lists"} | (question::String)==>(::Array {items: Invoice})]
[Score:Record | (value::Integer {minimum: 0, maximum: 10})]
[score_sig:Tool {description: "Scores"} | (question::String)==>(::Score)]
[text_sig:Tool {description: "Talks"} | (question::String)==>(::String)]
[ping:Tool {description: "Pings"} | ()==>(::String)]
[billing:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer about invoices."} | ping]
[billing_claude:Agent {model: "Anthropic/claude-sonnet-4-5", instruction: "Answer about invoices."} | ping]
[billing.gemini:Agent {model: "Gemini/gemini-2.5-flash", instruction: "Answer about invoices."} | ping]
`

// typedAgent compiles outputSrc and returns the named agent with the named
// tool as its signature element.
func typedAgent(t *testing.T, agent, sig string) *schema.Agent {
	t.Helper()
	prog := compile(t, outputSrc)
	a, tool := prog.Agent(agent), prog.Tool(sig)
	if a == nil || tool == nil {
		t.Fatalf("no agent %q or tool %q", agent, sig)
	}
	a.Signature, a.AsTool = true, tool
	return a
}

// pingLib binds the ping tool.
func pingLib() *runtime.Library {
	lib := &runtime.Library{}
	if err := lib.Register(toolFunc("ping", map[string]any{"type": "object"}, func(context.Context, map[string]any) (any, error) { return "pong", nil })); err != nil {
		panic(err)
	}
	return lib
}

const validInvoice = `{"number":"INV-1","total":12.5,"paid":false}`

// sameJSON fails the test unless got and want are the same JSON value.
func sameJSON(t *testing.T, what string, got []byte, want any) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	wb, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, wb)
	}
}

func TestOutputOpenAIRequestCarriesSchema(t *testing.T) {
	for _, stream := range []bool{false, true} {
		h := newHarness(t, fakeopenai.Text(validInvoice))
		a := typedAgent(t, "billing", "billing_sig")
		resp := h.mustRun(t, a, pingLib(), nil, "what is invoice 1?", runtime.WithStreaming(stream))
		if resp.Status != runtime.StatusCompleted {
			t.Fatalf("stream %v: status %s (%s)", stream, resp.Status, resp.Error)
		}
		sameJSON(t, "Output", resp.Output, map[string]any{"number": "INV-1", "total": 12.5, "paid": false})
		if resp.Content != validInvoice {
			t.Errorf("Content = %q", resp.Content)
		}
		req := h.srv.Requests()[0]
		if req.Body.Stream != stream {
			t.Errorf("stream = %v, want %v", req.Body.Stream, stream)
		}
		if len(req.Body.Tools) != 1 {
			t.Errorf("tools = %d, want 1 beside the response format", len(req.Body.Tools))
		}
		sameJSON(t, "response_format", req.Body.ResponseFormat, map[string]any{
			"type": "json_schema",
			"json_schema": map[string]any{
				"name": "billing", "strict": true,
				"schema": schema.OutputSchema(a.AsTool),
			},
		})
	}
}

func TestOutputAnthropicRequestCarriesSchema(t *testing.T) {
	const key = "sk-ant-test-0123456789"
	for _, stream := range []bool{false, true} {
		srv := fakeanthropic.NewWithKey(t, key, fakeanthropic.Text(validInvoice))
		a := typedAgent(t, "billing_claude", "billing_sig")
		resp, err := runtime.Run(context.Background(), a, pingLib(), nil, "what is invoice 1?", runtime.WithStreaming(stream), runtime.WithLogger(discard()),
			runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, key), Retry: noWait()}))
		if err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
		sameJSON(t, "Output", resp.Output, map[string]any{"number": "INV-1", "total": 12.5, "paid": false})
		req := srv.Requests()[0]
		if req.Body.Stream != stream {
			t.Errorf("stream = %v, want %v", req.Body.Stream, stream)
		}
		sameJSON(t, "output_config", req.Body.OutputConfig, map[string]any{
			"format": map[string]any{"type": "json_schema", "schema": schema.OutputSchema(a.AsTool)},
		})
	}
}

func TestOutputGeminiRequestCarriesSchema(t *testing.T) {
	const key = "AIzaSyTest0123456789abcdef"
	for _, stream := range []bool{false, true} {
		srv := fakegemini.NewWithKey(t, key, fakegemini.Text(validInvoice))
		a := typedAgent(t, "billing.gemini", "billing_sig")
		resp, err := runtime.Run(context.Background(), a, pingLib(), nil, "what is invoice 1?", runtime.WithStreaming(stream), runtime.WithLogger(discard()),
			runtime.WithModelConfig(runtime.ModelConfig{Getenv: geminiEnv(srv.URL, "GEMINI_API_KEY", key), Retry: noWait()}))
		if err != nil {
			t.Fatalf("stream %v: %v", stream, err)
		}
		sameJSON(t, "Output", resp.Output, map[string]any{"number": "INV-1", "total": 12.5, "paid": false})
		req := srv.Requests()[0]
		if got := strings.Contains(req.Path, "streamGenerateContent"); got != stream {
			t.Errorf("path %s, stream %v", req.Path, stream)
		}
		var gc struct {
			MIME   string          `json:"responseMimeType"`
			Schema json.RawMessage `json:"responseJsonSchema"`
		}
		if err := json.Unmarshal(req.Body.GenerationConfig, &gc); err != nil {
			t.Fatalf("generationConfig %s: %v", req.Body.GenerationConfig, err)
		}
		if gc.MIME != "application/json" {
			t.Errorf("responseMimeType = %q", gc.MIME)
		}
		sameJSON(t, "responseJsonSchema", gc.Schema, schema.OutputSchema(a.AsTool))
		if len(req.Body.Tools) == 0 {
			t.Error("the tools were left out beside the response format")
		}
	}
}

func TestOutputFeedbackThenValid(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Text("Sure! ```json\n"+`{"number":"INV-1","total":"12.5","paid":false}`+"\n```"),
		fakeopenai.Text("```json\n"+validInvoice+"\n```"))
	a := typedAgent(t, "billing", "billing_sig")
	resp := h.mustRun(t, a, pingLib(), nil, "what is invoice 1?")
	reqs := h.srv.Requests()
	if len(reqs) != 2 || resp.Iterations != 2 {
		t.Fatalf("%d requests, %d iterations, want 2", len(reqs), resp.Iterations)
	}
	if resp.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", resp.Status)
	}
	sameJSON(t, "Output", resp.Output, map[string]any{"number": "INV-1", "total": 12.5, "paid": false})
	msgs := reqs[1].Body.Messages
	last, before := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if before.Role != "assistant" || !strings.Contains(before.Text(), `"total":"12.5"`) {
		t.Errorf("the wrong answer is not kept before the feedback: %+v", before)
	}
	// The first answer is not JSON (text before the fence).
	if last.Role != "user" || !strings.Contains(last.Text(), "Your answer does not match the required JSON Schema") ||
		!strings.Contains(last.Text(), "is not JSON") || !strings.Contains(last.Text(), "Answer again with JSON only.") {
		t.Errorf("feedback = %q", last.Text())
	}
	if reqs[1].Body.ResponseFormat == nil {
		t.Error("the second request has no response format")
	}
}

func TestOutputFeedbackNamesTheField(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Text(`{"number":"INV-1","total":"12.5","paid":false,"extra":1}`),
		fakeopenai.Text(validInvoice))
	a := typedAgent(t, "billing", "billing_sig")
	h.mustRun(t, a, pingLib(), nil, "what is invoice 1?")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	fb := msgs[len(msgs)-1].Text()
	for _, want := range []string{"/total: ", "number", "/extra: "} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback %q lacks %q", fb, want)
		}
	}
	if strings.Contains(fb, "12.5") {
		t.Errorf("feedback %q repeats the value", fb)
	}
}

func TestOutputInvalidAfterRetries(t *testing.T) {
	for _, tc := range []struct {
		opts  []runtime.Option
		calls int
	}{
		{nil, 3},
		{[]runtime.Option{runtime.WithOutputRetries(1)}, 2},
		{[]runtime.Option{runtime.WithOutputRetries(0)}, 1},
	} {
		bad := `{"number":"INV-1","total":"12.5","paid":false}`
		h := newHarness(t, fakeopenai.Text(bad), fakeopenai.Text(bad), fakeopenai.Text(bad), fakeopenai.Text(bad))
		a := typedAgent(t, "billing", "billing_sig")
		resp, err := h.run(t, a, pingLib(), nil, "what is invoice 1?", tc.opts...)
		var oe *runtime.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("err = %v, want *OutputError", err)
		}
		if n := len(h.srv.Requests()); n != tc.calls || resp.Iterations != tc.calls || oe.Attempts != tc.calls {
			t.Errorf("%d requests, %d iterations, %d attempts, want %d", n, resp.Iterations, oe.Attempts, tc.calls)
		}
		if resp.Status != runtime.StatusInvalidOutput || resp.Output != nil || resp.Content != bad {
			t.Errorf("status %s, output %s, content %q", resp.Status, resp.Output, resp.Content)
		}
		if len(oe.Problems) != 1 || oe.Problems[0].Pointer != "/total" {
			t.Errorf("problems = %+v", oe.Problems)
		}
		if !strings.Contains(resp.Error, "/total") || !strings.Contains(resp.Error, "Invoice") || resp.Error != runtime.UserMessage(err) {
			t.Errorf("Error = %q", resp.Error)
		}
	}
}

func TestOutputScalarAndArrayWrapped(t *testing.T) {
	for _, tc := range []struct {
		sig, answer, output string
		result              any
	}{
		{"count_sig", `{"result": 42}`, `42`, map[string]any{"type": "integer"}},
		{"list_sig", `{"result": [` + validInvoice + `]}`, `[` + validInvoice + `]`, nil},
	} {
		h := newHarness(t, fakeopenai.Text(`{"result": "many"}`), fakeopenai.Text(tc.answer))
		a := typedAgent(t, "billing", tc.sig)
		resp := h.mustRun(t, a, pingLib(), nil, "how many?")
		if string(resp.Output) != tc.output {
			t.Errorf("%s: Output = %s, want %s", tc.sig, resp.Output, tc.output)
		}
		reqs := h.srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%s: %d requests, want 2", tc.sig, len(reqs))
		}
		var rf struct {
			JSONSchema struct {
				Strict bool `json:"strict"`
				Schema struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
					Additional *bool                      `json:"additionalProperties"`
				} `json:"schema"`
			} `json:"json_schema"`
		}
		if err := json.Unmarshal(reqs[0].Body.ResponseFormat, &rf); err != nil {
			t.Fatal(err)
		}
		s := rf.JSONSchema.Schema
		if s.Type != "object" || len(s.Properties) != 1 || !reflect.DeepEqual(s.Required, []string{"result"}) ||
			s.Additional == nil || *s.Additional || !rf.JSONSchema.Strict {
			t.Errorf("%s: wrapped schema = %s", tc.sig, reqs[0].Body.ResponseFormat)
		}
		if tc.result != nil {
			sameJSON(t, tc.sig+" result schema", s.Properties["result"], tc.result)
		}
		msgs := reqs[1].Body.Messages
		if fb := msgs[len(msgs)-1].Text(); !strings.Contains(fb, "/result") {
			t.Errorf("%s: feedback %q does not point into the result", tc.sig, fb)
		}
	}
}

func TestOutputNotStrictWithOptionalField(t *testing.T) {
	h := newHarness(t, fakeopenai.Text(`{"number":"D-1"}`))
	a := typedAgent(t, "billing", "draft_sig")
	resp := h.mustRun(t, a, pingLib(), nil, "draft")
	if string(resp.Output) != `{"number":"D-1"}` {
		t.Errorf("Output = %s", resp.Output)
	}
	var rf struct {
		JSONSchema map[string]json.RawMessage `json:"json_schema"`
	}
	if err := json.Unmarshal(h.srv.Requests()[0].Body.ResponseFormat, &rf); err != nil {
		t.Fatal(err)
	}
	if s := string(rf.JSONSchema["strict"]); s != "false" {
		t.Errorf("strict = %q, want false for a schema with an optional field", s)
	}
}

func TestOutputFreeTextSendsNoFormat(t *testing.T) {
	for _, sig := range []string{"", "text_sig"} {
		h := newHarness(t, fakeopenai.Text("Hello"))
		a := compile(t, outputSrc).Agent("billing")
		if sig != "" {
			a.Signature, a.AsTool = true, compile(t, outputSrc).Tool(sig)
		}
		resp := h.mustRun(t, a, pingLib(), nil, "hi")
		if resp.Output != nil || resp.Content != "Hello" {
			t.Errorf("%q: output %s, content %q", sig, resp.Output, resp.Content)
		}
		if raw := h.srv.Requests()[0].Raw; strings.Contains(string(raw), "response_format") {
			t.Errorf("%q: a free-text agent sent a response format: %s", sig, raw)
		}
	}
}

func TestOutputToolCallsNotValidated(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("ping", `{}`)),
		fakeopenai.Text(validInvoice))
	a := typedAgent(t, "billing", "billing_sig")
	resp := h.mustRun(t, a, pingLib(), nil, "ping then answer")
	if len(resp.ToolsUsed) != 1 || resp.Output == nil {
		t.Fatalf("tools %d, output %s", len(resp.ToolsUsed), resp.Output)
	}
	for i, req := range h.srv.Requests() {
		if req.Body.ResponseFormat == nil {
			t.Errorf("request %d has no response format", i+1)
		}
	}
}

func TestOutputSummaryCallHasNoFormat(t *testing.T) {
	h := newHarness(t,
		fakeopenai.Calls(call("ping", `{}`)),
		fakeopenai.Text("I pinged."))
	a := typedAgent(t, "billing", "billing_sig")
	resp := h.mustRun(t, a, pingLib(), nil, "ping", runtime.WithMaxIterations(1))
	if resp.Status != runtime.StatusMaxIterations || resp.Content != "I pinged." {
		t.Fatalf("status %s, content %q", resp.Status, resp.Content)
	}
	reqs := h.srv.Requests()
	if reqs[0].Body.ResponseFormat == nil || reqs[1].Body.ResponseFormat != nil {
		t.Errorf("response formats: %s, %s; want the first only", reqs[0].Body.ResponseFormat, reqs[1].Body.ResponseFormat)
	}
}

func TestOutputAnthropicConstraintsInDescription(t *testing.T) {
	const key = "sk-ant-test-0123456789"
	srv := fakeanthropic.NewWithKey(t, key, fakeanthropic.Text(`{"value": 11}`), fakeanthropic.Text(`{"value": 7}`))
	a := typedAgent(t, "billing_claude", "score_sig")
	resp, err := runtime.Run(context.Background(), a, pingLib(), nil, "score it", runtime.WithLogger(discard()),
		runtime.WithModelConfig(runtime.ModelConfig{Getenv: anthropicEnv(srv.URL, key), Retry: noWait()}))
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Output) != `{"value":7}` {
		t.Errorf("Output = %s", resp.Output)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var oc struct {
		Format struct {
			Schema struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	}
	if err := json.Unmarshal(reqs[0].Body.OutputConfig, &oc); err != nil {
		t.Fatal(err)
	}
	v := oc.Format.Schema.Properties["value"]
	desc, _ := v["description"].(string)
	if _, ok := v["minimum"]; ok || !strings.Contains(desc, "minimum: 0") || !strings.Contains(desc, "maximum: 10") {
		t.Errorf("value schema = %v: the constraints should move into the description", v)
	}
	if !strings.Contains(string(reqs[1].Raw), "/value: ") {
		t.Errorf("the second request has no feedback on /value: %s", reqs[1].Raw)
	}
}

func TestOutputReplayMatchesTheFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typed.json")
	srv := fakeopenai.New(t, fakeopenai.Text(`{"total":1}`), fakeopenai.Text(validInvoice))
	live, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{BaseURL: srv.URL, Logger: discard(),
		HTTPClient: &http.Client{Transport: replay.NewRecorder(path, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.Run(context.Background(), typedAgent(t, "billing", "billing_sig"), pingLib(), nil, "invoice?",
		runtime.WithModel(live), runtime.WithLogger(discard())); err != nil {
		t.Fatal(err)
	}
	resp, err := runtime.Run(context.Background(), typedAgent(t, "billing", "billing_sig"), pingLib(), nil, "invoice?",
		runtime.WithModel(quickReplayModel(t, path)), runtime.WithLogger(discard()))
	if err != nil || resp.Iterations != 2 || resp.Output == nil {
		t.Fatalf("replay: %v, %d iterations, output %s", err, resp.Iterations, resp.Output)
	}
	// The same agent without its result type sends no response format:
	// the recording does not match.
	_, err = runtime.Run(context.Background(), compile(t, outputSrc).Agent("billing"), pingLib(), nil, "invoice?",
		runtime.WithModel(quickReplayModel(t, path)), runtime.WithLogger(discard()))
	var re *replay.Error
	if !errors.As(err, &re) || re.Index != 1 || !strings.HasPrefix(re.Pointer, "/response_format") {
		t.Errorf("replay without the format: %v (%+v)", err, re)
	}
}

func TestOutputRetriesBoundedByIterations(t *testing.T) {
	bad := `{"total":"x"}`
	h := newHarness(t, fakeopenai.Text(bad), fakeopenai.Text(bad), fakeopenai.Text("I could not produce the invoice."))
	a := typedAgent(t, "billing", "billing_sig")
	resp := h.mustRun(t, a, pingLib(), nil, "invoice?", runtime.WithMaxIterations(2), runtime.WithOutputRetries(5))
	reqs := h.srv.Requests()
	if resp.Status != runtime.StatusMaxIterations || resp.Iterations != 2 || len(reqs) != 3 || resp.Output != nil {
		t.Fatalf("status %s, %d iterations, %d requests, output %s", resp.Status, resp.Iterations, len(reqs), resp.Output)
	}
	if reqs[1].Body.ResponseFormat == nil || reqs[2].Body.ResponseFormat != nil {
		t.Error("the retry must carry the format and the summary call must not")
	}
}
