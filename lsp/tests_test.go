package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

const agentsForTests = `[sayHello:Tool {description: "Returns a friendly greeting for the given name"} |
  (personName::String {default: "world", description: "The name of the person to greet"})==>(::String)
]
[sayGoodbye:Tool {description: "Returns a farewell for the given name"} |
  (personName::String {default: "world", description: "Who is leaving"})==>(::String)
]
[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet people."} | sayHello]
`

const testsText = `[greets:Test {agent: greeter} |
  (:User {says: "Hi, I'm Bob"}),
  (:Call {tool: sayHello, args: {personName: "Bob"}}),
  (:Answer {contains: "Bob"})
]
[mistakes:Test {agent: greeter} |
  (:User {says: "Bye"}),
  (:Call {tool: sayHelo}),
  (:Call {tool: sayGoodbye}),
  (:Anwser {contains: "Bob"})
]
`

// TestAgentTests opens a _test.gram file beside its agent file and checks
// what the editor gets: the tests checked against the agent file, quick
// fixes for their mistakes, the tests in the outline, a code lens per test,
// and the command behind it running a test from its cassette.
func TestAgentTests(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greeter.gram"), []byte(agentsForTests), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "greeter_test.gram")
	if err := os.WriteFile(path, []byte(testsText), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := pathURI(path)
	c := newTestClient(t, nil)
	c.open(uri, testsText)
	pub := c.waitDiagnostics(uri, 1)
	var codes []string
	for _, d := range pub.Diagnostics {
		codes = append(codes, d.Code.(string))
	}
	if diff := cmp.Diff([]string{"unknown-tool", "tool-not-available", "invalid-test-element"}, codes); diff != "" {
		t.Fatalf("diagnostics (-want +got):\n%s", diff)
	}

	// Quick fixes.
	fixes := func(r protocol.Range) []string {
		var as []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "range": r,
			"context": map[string]any{"diagnostics": []any{}, "only": []protocol.CodeActionKind{protocol.QuickFix}},
		}, &as)
		var out []string
		for _, a := range as {
			for _, e := range a.Edit.Changes[uri] {
				out = append(out, a.Title+": "+e.NewText)
			}
		}
		return out
	}
	if diff := cmp.Diff([]string{"Change to sayHello: sayHello"}, fixes(rng(7, 18, 7, 18))); diff != "" {
		t.Errorf("unknown tool (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Change to Answer: Answer"}, fixes(rng(9, 5, 9, 5))); diff != "" {
		t.Errorf("misspelt label (-want +got):\n%s", diff)
	}
	// The agent is in the other file: the fix adds the tool there.
	var as []protocol.CodeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rng(8, 18, 8, 18),
		"context": map[string]any{"diagnostics": []any{}, "only": []protocol.CodeActionKind{protocol.QuickFix}},
	}, &as)
	agentURI := pathURI(filepath.Join(dir, "greeter.gram"))
	if len(as) != 1 || as[0].Title != "Add sayGoodbye to agent greeter in greeter.gram" ||
		!cmp.Equal(as[0].Edit.Changes[agentURI], []protocol.TextEdit{{Range: rng(6, 85, 6, 85), NewText: ",\n  sayGoodbye"}}) {
		t.Errorf("tool not available: %+v", as)
	}

	// The outline.
	var syms []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 2 || syms[0].Name != "greets" || syms[0].Kind != protocol.SymbolKindMethod || syms[0].Detail != "test of greeter" {
		t.Fatalf("symbols = %+v", syms)
	}
	if len(syms[0].Children) != 1 || syms[0].Children[0].Name != "turn 1: Hi, I'm Bob" || syms[0].Children[0].Detail != "calls sayHello, 1 answer checks" {
		t.Errorf("turns of greets = %+v", syms[0].Children)
	}

	// A code lens per test, running it.
	var lenses []protocol.CodeLens
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	if len(lenses) != 2 || lenses[0].Command == nil || lenses[0].Command.Command != CommandRunTest || lenses[0].Range != rng(0, 1, 0, 7) {
		t.Fatalf("lenses = %+v", lenses)
	}

	// Fix the mistakes, record a cassette for greets against a fake model,
	// then run it from the lens: it replays, with no network.
	fixed := testsText[:strings.Index(testsText, "[mistakes")]
	c.change(uri, 2, fixed)
	if p := c.waitDiagnostics(uri, 2); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", p.Diagnostics)
	}
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Hello, Bob! Nice to meet you."))
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs, _, err := agenttest.Load([]string{path}, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := pkgs[filepath.Dir(path)].Lookup(path)
	if s == nil || s.Diags.HasErrors() {
		t.Fatalf("load: %v", s)
	}
	rec := &agenttest.Runner{Library: runtime.Builtins(), Mode: agenttest.ModeRecord, Setup: &binding.Setup{Options: binding.Options{BaseURL: srv.URL}},
		Options: []runtime.Option{runtime.WithLogger(slog.New(slog.DiscardHandler))}}
	if r := rec.RunAll(context.Background(), []agenttest.Job{{Path: path, Test: s.Program.Tests[0]}})[0]; r.Status != agenttest.Pass {
		t.Fatalf("recording: %+v", r)
	}
	var res json.RawMessage
	c.mustCall("workspace/executeCommand", map[string]any{"command": lenses[0].Command.Command, "arguments": lenses[0].Command.Arguments}, &res)
	var got struct{ Test, Status, Source string }
	if err := json.Unmarshal(res, &got); err != nil || got.Test != "greets" || got.Status != "pass" || got.Source != "replay" {
		t.Errorf("run = %s", res)
	}
	c.mu.Lock()
	shown := strings.Contains(strings.Join(c.other, " "), "window/showMessage")
	c.mu.Unlock()
	if !shown {
		t.Error("the outcome was not shown")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the fake model got %d requests, want the 2 of the recording only", n)
	}
	// An unknown test is an error.
	if err := c.call("workspace/executeCommand", map[string]any{"command": CommandRunTest, "arguments": []any{string(uri), "nope"}}, &res); err == nil {
		t.Error("running an unknown test succeeded")
	}
}
