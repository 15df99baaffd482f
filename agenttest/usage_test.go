package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

// usageSrc has an agent that calls another as a tool, and a judge of
// a model the embedded price table does not know.
const usageSrc = `[lookup:Tool {description: "Finds"} | (q::String)==>(::String)]
[clerk:Agent {description: "Looks up", model: "OpenAI/gpt-4o-mini", instruction: "x"} | lookup]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x"} | clerk]
[critic:Agent {model: "Ollama/house-judge", instruction: "Judge."}]
[answers:Test {agent: desk} |
  (:User {says: "q"}),
  (:Answer {contains: "done"}),
  (:Rubric {judge: critic, criterion: "It answers", threshold: 0.5})
]
`

// TestUsageAndCost: a test's usage counts every model call of its runs
// (the tested agent's, the sub-agent's and the judge's), recorded or
// replayed from the cassette, each run's; its cost is null while a model's
// price is unknown and the sum of the calls' prices once the table has
// it; a test run several times says whether every run passed.
func TestUsageAndCost(t *testing.T) {
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "clerk", Arguments: `{"message":"q"}`}),
		fakeopenai.Calls(fakeopenai.Call{Name: "lookup", Arguments: `{"q":"q"}`}),
		fakeopenai.Text("found"),
		fakeopenai.Text("done"),
		fakeopenai.Text(`{"score": 1}`),
	)
	checked := project.CheckText(diag.NewFile("desk_test.gram", []byte(usageSrc)))
	if checked.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", checked.Diags)
	}
	dir := t.TempDir()
	jobs := []Job{{Path: filepath.Join(dir, "desk_test.gram"), Test: checked.Program.Tests[0], Program: checked.Program}}
	lib := runtime.NewLibrary(runtime.Tool{Name: "lookup", Invoke: func(context.Context, map[string]any) (any, error) { return "it", nil }})
	r := &Runner{Mode: ModeRecord, Setup: &binding.Setup{Options: binding.Options{BaseURL: srv.URL}, APIKey: "sk-test"}, Library: lib,
		Options: []runtime.Option{runtime.WithStreaming(false)}}

	// Five calls of 20 prompt and 10 completion tokens each.
	call := runtime.Usage{PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30}
	times := func(n int64) runtime.Usage {
		return runtime.Usage{PromptTokens: n * call.PromptTokens, CompletionTokens: n * call.CompletionTokens, TotalTokens: n * call.TotalTokens}
	}
	res := r.RunAll(context.Background(), jobs)[0]
	if res.Status != Pass {
		t.Fatalf("record: %s: %s %+v", res.Status, res.Error, res.Failures)
	}
	if res.Usage != times(5) || res.CostUSD != nil || res.PassAll != nil {
		t.Errorf("record: usage %+v, cost %v, passAll %v; want %+v, an unknown cost and no passAll", res.Usage, res.CostUSD, res.PassAll, times(5))
	}

	srv.Close()
	judge := pricing.Price{Input: 1, Output: 2}
	r.Mode, r.Setup.BaseURL, r.Repeat = ModeReplay, "", 2
	r.Setup.Bound.Bindings = &project.Bindings{Prices: map[string]pricing.Price{"Ollama/house-judge": judge}}
	res = r.RunAll(context.Background(), jobs)[0]
	if res.Status != Pass {
		t.Fatalf("replay: %s: %s %+v", res.Status, res.Error, res.Failures)
	}
	mini, known := pricing.Cost("OpenAI", "gpt-4o-mini", pricing.Usage{InputTokens: 20, OutputTokens: 10})
	if !known {
		t.Fatal("the table has no price of gpt-4o-mini")
	}
	want := 2 * (4*mini + judge.Cost(pricing.Usage{InputTokens: 20, OutputTokens: 10}))
	if res.Usage != times(10) || res.CostUSD == nil || math.Abs(*res.CostUSD-want) > 1e-9 {
		t.Errorf("replay: usage %+v, cost %v; want %+v and $%g", res.Usage, res.CostUSD, times(10), want)
	}
	if res.PassAll == nil || !*res.PassAll {
		t.Errorf("replay: passAll %v, want true", res.PassAll)
	}
}

// TestReportsUsage: the reports give each test's usage and cost and the
// suite's sums; a cost unknown is null (JSON), "unknown" (JUnit) or left
// out of an "at least" sum (text). The text report says what the run
// spent: nothing when every test was replayed.
func TestReportsUsage(t *testing.T) {
	cost := 0.25
	no := false
	results := []Result{
		{File: "a.gram", Test: "priced", Status: Pass, Source: "record", Runs: 2, Passed: 1, PassRate: 0.5, PassAll: &no,
			Usage: runtime.Usage{PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30}, CostUSD: &cost},
		{File: "a.gram", Test: "unpriced", Status: Fail, Source: "replay", Runs: 1, Passed: 0, PassRate: 1,
			Usage: runtime.Usage{PromptTokens: 4, CompletionTokens: 2, TotalTokens: 6}, Failures: []Failure{{Turn: 1, Kind: "answer", Message: "m"}}},
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, results); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Tests []map[string]any
		Usage runtime.Usage
		Cost  *float64 `json:"costUSD"`
	}
	if err := json.Unmarshal(b.Bytes(), &report); err != nil {
		t.Fatal(err)
	}
	if report.Usage.TotalTokens != 36 || report.Cost != nil {
		t.Errorf("JSON suite: usage %+v, cost %v; want 36 tokens and null", report.Usage, report.Cost)
	}
	if got := report.Tests[0]; got["costUSD"] != 0.25 || got["passAll"] != false ||
		got["usage"].(map[string]any)["totalTokens"] != float64(30) {
		t.Errorf("JSON test: %v", got)
	}
	if got, ok := report.Tests[1]["costUSD"]; !ok || got != nil {
		t.Errorf("JSON test of unknown cost: costUSD %v (present %v), want null", got, ok)
	}
	if _, ok := report.Tests[1]["passAll"]; ok {
		t.Error("JSON test run once has passAll")
	}

	checks := []struct {
		name  string
		write func(*bytes.Buffer, []Result) error
		want  []string
	}{
		{"text", func(b *bytes.Buffer, r []Result) error { return WriteText(b, r) },
			[]string{"\nusage: 36 tokens (24 prompt, 12 completion), cost at least $0.25 (1 test of unknown price)\n"}},
		{"junit", func(b *bytes.Buffer, r []Result) error { return WriteJUnit(b, r) },
			[]string{`<property name="gram.usage.totalTokens" value="36"></property>`, `<property name="gram.costUSD" value="unknown"></property>`,
				"usage: 30 tokens (20 prompt, 10 completion), $0.25", "usage: 6 tokens (4 prompt, 2 completion), cost unknown"}},
		{"tap", func(b *bytes.Buffer, r []Result) error { return WriteTAP(b, r) },
			[]string{"  usage: {promptTokens: 4, completionTokens: 2, totalTokens: 6}\n  costUSD: null\n",
				"# usage: 36 tokens (24 prompt, 12 completion), cost at least $0.25 (1 test of unknown price)\n"}},
	}
	var replayed bytes.Buffer
	if err := WriteText(&replayed, results[1:]); err != nil || strings.Contains(replayed.String(), "usage:") {
		t.Errorf("the text report of replayed tests has a usage line (%v):\n%s", err, replayed.String())
	}
	for _, c := range checks {
		var b bytes.Buffer
		if err := c.write(&b, results); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", c.name, w, b.String())
			}
		}
	}
}

// TestSuiteCostUnknown: the usage line of a suite whose tests all used
// models of unknown price says the cost is unknown, once.
func TestSuiteCostUnknown(t *testing.T) {
	results := []Result{{File: "a.gram", Test: "unpriced", Status: Pass, Source: "live", Runs: 1, Passed: 1, PassRate: 1,
		Usage: runtime.Usage{PromptTokens: 4, CompletionTokens: 2, TotalTokens: 6}}}
	want := "usage: 6 tokens (4 prompt, 2 completion), cost unknown\n"
	for name, write := range map[string]func(io.Writer, []Result) error{"text": WriteText, "tap": WriteTAP} {
		var b bytes.Buffer
		if err := write(&b, results); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), want) {
			t.Errorf("%s report ends otherwise than %q:\n%s", name, want, b.String())
		}
	}
}
