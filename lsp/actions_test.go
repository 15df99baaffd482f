package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

func TestRename(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		var r *protocol.Range
		c.mustCall("textDocument/prepareRename", tdp(deskURI, protocol.Position{Line: 32, Character: 4}), &r)
		if r == nil || *r != rng(32, 2, 32, 10) {
			t.Errorf("prepareRename = %+v", r)
		}
		var edit protocol.WorkspaceEdit
		c.mustCall("textDocument/rename", map[string]any{
			"textDocument": map[string]any{"uri": deskURI}, "position": protocol.Position{Line: 32, Character: 4}, "newName": "fetchOrder",
		}, &edit)
		want := []protocol.TextEdit{{Range: rng(14, 1, 14, 9), NewText: "fetchOrder"}, {Range: rng(32, 2, 32, 10), NewText: "fetchOrder"}}
		if diff := cmp.Diff(want, edit.Changes[deskURI]); diff != "" {
			t.Errorf("rename getOrder (-want +got):\n%s", diff)
		}
		// A record: its definition and every type that names it.
		c.mustCall("textDocument/rename", map[string]any{
			"textDocument": map[string]any{"uri": deskURI}, "position": protocol.Position{Line: 3, Character: 2}, "newName": "Amount",
		}, &edit)
		want = []protocol.TextEdit{{Range: rng(3, 1, 3, 6), NewText: "Amount"}, {Range: rng(10, 10, 10, 15), NewText: "Amount"}, {Range: rng(11, 24, 11, 29), NewText: "Amount"}}
		if diff := cmp.Diff(want, edit.Changes[deskURI]); diff != "" {
			t.Errorf("rename Money (-want +got):\n%s", diff)
		}

		refused := []struct {
			name string
			pos  protocol.Position
			new  string
		}{
			{"the Agent label", protocol.Position{Line: 24, Character: 8}, "x"},
			{"a built-in type", protocol.Position{Line: 9, Character: 9}, "x"},
			{"a keyword as the new name", protocol.Position{Line: 14, Character: 3}, "Tool"},
			{"an invalid tool name", protocol.Position{Line: 14, Character: 3}, "get order"},
			{"an invalid name", protocol.Position{Line: 40, Character: 2}, "9lives"},
			{"a taken name", protocol.Position{Line: 14, Character: 3}, "findOrders"},
			{"a taken parameter name", protocol.Position{Line: 15, Character: 4}, "customerId"},
			{"nothing here", protocol.Position{Line: 2, Character: 0}, "x"},
		}
		for _, tc := range refused {
			err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": deskURI}, "position": tc.pos, "newName": tc.new}, &edit)
			if err == nil {
				t.Errorf("%s: rename accepted", tc.name)
			}
		}
		// A record renamed to the name of a top-level tool: the error says
		// where that name is defined.
		err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": deskURI}, "position": protocol.Position{Line: 3, Character: 2}, "newName": "getOrder"}, &edit)
		if err == nil || !strings.Contains(err.Error(), "getOrder is already defined at line 15") {
			t.Errorf("rename Money to getOrder: %v", err)
		}
		if err := c.call("textDocument/prepareRename", tdp(deskURI, protocol.Position{Line: 24, Character: 8}), &r); err == nil || !strings.Contains(err.Error(), "keyword") {
			t.Errorf("prepareRename on Agent: %v", err)
		}
	})
}

func TestCodeActions(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///work/mistakes.gram")
	text := readTestdata(t, "mistakes.gram")
	c.open(uri, text)
	pub := c.waitDiagnostics(uri, 1)
	if len(pub.Diagnostics) != 7 {
		t.Fatalf("got %d diagnostics", len(pub.Diagnostics))
	}
	actions := func(r protocol.Range, only ...protocol.CodeActionKind) []protocol.CodeAction {
		var out []protocol.CodeAction
		c.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "range": r,
			"context": map[string]any{"diagnostics": []any{}, "only": only},
		}, &out)
		return out
	}
	type fix struct {
		Title string
		Edits []protocol.TextEdit
	}
	fixes := func(as []protocol.CodeAction) []fix {
		var out []fix
		for _, a := range as {
			if a.Kind != protocol.QuickFix {
				continue
			}
			out = append(out, fix{a.Title, a.Edit.Changes[uri]})
			if len(a.Diagnostics) != 1 {
				t.Errorf("%s: diagnostics %v", a.Title, a.Diagnostics)
			}
		}
		return out
	}
	tests := []struct {
		name string
		r    protocol.Range
		want []fix
	}{
		{"did you mean a property", rng(1, 15, 1, 15), []fix{{"Change to description", []protocol.TextEdit{{Range: rng(1, 14, 1, 24), NewText: "description"}}}}},
		{"did you mean a type", rng(2, 9, 2, 9), []fix{{"Change to Integer", []protocol.TextEdit{{Range: rng(2, 7, 2, 13), NewText: "Integer"}}}}},
		{"add a missing description to a record", rng(1, 1, 1, 1), []fix{{"Add a description", []protocol.TextEdit{{Range: rng(1, 14, 1, 14), NewText: `description: "What the tool does", `}}}}},
		{"add a missing description without a record", rng(9, 3, 9, 3), []fix{{"Add a description", []protocol.TextEdit{{Range: rng(9, 12, 9, 12), NewText: ` {description: "What the tool does"}`}}}}},
		{"add a missing instruction", rng(13, 2, 13, 2), []fix{{"Add an instruction", []protocol.TextEdit{{Range: rng(14, 2, 14, 2), NewText: "instruction: \"You are a helpful assistant.\",\n  "}}}}},
		{"remove an unused tool", rng(5, 2, 5, 2), []fix{{"Remove the unused tool orphan", []protocol.TextEdit{{Range: rng(5, 0, 9, 0), NewText: ""}}}}},
		{"did you mean a reference", rng(18, 3, 18, 3), []fix{{"Change to lookup", []protocol.TextEdit{{Range: rng(18, 2, 18, 7), NewText: "lookup"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fixes(actions(tc.r, protocol.QuickFix))); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
		})
	}
	// On a tool, the source action shows its schema; only limits the kinds.
	as := actions(rng(6, 4, 6, 4), protocol.Source)
	if len(as) != 1 || as[0].Command == nil || as[0].Command.Command != CommandToolSchema || as[0].Kind != protocol.Source {
		t.Fatalf("source actions = %+v", as)
	}
	var schemaDoc map[string]any
	c.mustCall("workspace/executeCommand", map[string]any{"command": as[0].Command.Command, "arguments": as[0].Command.Arguments}, &schemaDoc)
	if schemaDoc["title"] != "orphan" || schemaDoc["$schema"] == nil {
		t.Errorf("schema = %v", schemaDoc)
	}
}

func TestExecuteCommand(t *testing.T) {
	c, _ := openDesk(t, false)
	var raw json.RawMessage
	// By position, in the form the VS Code extension sends.
	c.mustCall("workspace/executeCommand", map[string]any{
		"command":   CommandShowToolSchema,
		"arguments": []any{string(deskURI), protocol.Position{Line: 35, Character: 8}},
	}, &raw)
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"cancel","description":"Cancels an order","type":"object","properties":{"orderId":{"type":"integer"}},"required":["orderId"],"additionalProperties":false}`
	if string(raw) != want {
		t.Errorf("schema of cancel:\n got %s\nwant %s", raw, want)
	}
	// By name, as an OpenAI tool.
	c.mustCall("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), "getOrder", "openai"},
	}, &raw)
	if !strings.HasPrefix(string(raw), `{"type":"function","function":{"name":"getOrder"`) || strings.Contains(string(raw), "customerId") {
		t.Errorf("openai schema of getOrder: %s", raw)
	}
	// Strict OpenAI mode: every property required, the function marked strict.
	c.mustCall("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), "findOrders", "openai", true},
	}, &raw)
	if !strings.Contains(string(raw), `"strict":true`) || !strings.Contains(string(raw), `"required":["limit","status"]`) {
		t.Errorf("strict openai schema of findOrders: %s", raw)
	}
	c.mustCall("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), "findOrders", "openai", false},
	}, &raw)
	if strings.Contains(string(raw), `"strict"`) {
		t.Errorf("non-strict openai schema of findOrders: %s", raw)
	}
	if err := c.call("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), "findOrders", "openai", "yes"},
	}, &raw); err == nil || !strings.Contains(err.Error(), "strict") {
		t.Errorf("a strict that is not a boolean: %v", err)
	}
	// On an agent, outside its tools: the schemas of all its tools, in order;
	// on a tool reference or inside an inline tool it is that tool (above).
	for _, arg := range []any{protocol.Position{Line: 24, Character: 3}, protocol.Position{Line: 25, Character: 4}, "desk"} {
		var tools []map[string]any
		c.mustCall("workspace/executeCommand", map[string]any{
			"command": CommandToolSchema, "arguments": []any{string(deskURI), arg, "mcp"},
		}, &tools)
		var names []string
		for _, tool := range tools {
			names = append(names, fmt.Sprint(tool["name"]))
		}
		if got := strings.Join(names, ","); got != "getOrder,findOrders,cancel" {
			t.Errorf("schemas of the agent at %v: tools %q", arg, got)
		}
	}
	// No tool or agent there: null.
	raw = nil
	c.mustCall("workspace/executeCommand", map[string]any{
		"command": CommandToolSchema, "arguments": []any{string(deskURI), protocol.Position{Line: 40, Character: 2}},
	}, &raw)
	if len(raw) != 0 && string(raw) != "null" {
		t.Errorf("schema outside a tool: %s", raw)
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "gram.nope"}, &raw); err == nil {
		t.Error("an unknown command was accepted")
	}
	// Too few arguments: what the command takes.
	for cmd, want := range map[string]string{
		CommandToolSchema: "the command takes a document URI and a position or a tool name",
		CommandRunTest:    "gram.runTest takes a document URI and a test name",
	} {
		for _, args := range [][]any{nil, {string(deskURI)}} {
			err := c.call("workspace/executeCommand", map[string]any{"command": cmd, "arguments": args}, &raw)
			if err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s with the arguments %v: error %v, want %q", cmd, args, err, want)
			}
		}
	}
}
