package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/internal/gramgen"
)

const deskURI = protocol.DocumentURI("file:///work/desk.gram")

// readTestdata reads a file of testdata/lsp.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "lsp", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openDesk opens testdata/lsp/desk.gram (with CRLF line ends if crlf is set)
// and waits for its diagnostics, which must be empty.
func openDesk(t *testing.T, crlf bool) (*testClient, string) {
	c := newTestClient(t, nil)
	text := readTestdata(t, "desk.gram")
	if crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	c.open(deskURI, text)
	if p := c.waitDiagnostics(deskURI, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("desk.gram has diagnostics: %+v", p.Diagnostics)
	}
	return c, text
}

// forBothLineEnds runs a test on desk.gram with LF and with CRLF line ends:
// LSP positions are the same either way.
func forBothLineEnds(t *testing.T, f func(t *testing.T, c *testClient, text string)) {
	for _, crlf := range []bool{false, true} {
		name := "LF"
		if crlf {
			name = "CRLF"
		}
		t.Run(name, func(t *testing.T) {
			c, text := openDesk(t, crlf)
			f(t, c, text)
		})
	}
}

func hoverAt(t *testing.T, c *testClient, uri protocol.DocumentURI, p protocol.Position) *protocol.Hover {
	t.Helper()
	var h *protocol.Hover
	c.mustCall("textDocument/hover", tdp(uri, p), &h)
	return h
}

func TestHover(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, text string) {
		tests := []struct {
			name string
			pos  protocol.Position
			rng  protocol.Range
			want []string
			not  []string
		}{
			{"tool reference", protocol.Position{Line: 32, Character: 5}, rng(32, 2, 32, 10),
				[]string{"**tool** `getOrder`", "Fetches one order by its id", "```gram\n(orderId::Integer)==>(customerId::String)==>(::Order)\n```",
					"- `customerId` `String` · injected by the host", "```json", `"orderId": {`, `"required": [`},
				[]string{`"customerId": {`}},
			{"tool definition", protocol.Position{Line: 14, Character: 1}, rng(14, 1, 14, 9), []string{"**tool** `getOrder`"}, nil},
			{"cursor after a name", protocol.Position{Line: 32, Character: 10}, rng(32, 2, 32, 10), []string{"**tool** `getOrder`"}, nil},
			{"parameter", protocol.Position{Line: 15, Character: 4}, rng(15, 3, 15, 10),
				[]string{"**parameter** `orderId` of tool `getOrder`", "type: `Integer` (JSON integer)", "- required", "minimum: `1`", "The order's id"}, nil},
			{"optional parameter", docPos(t, text, "limit", 0, 1), rng(21, 3, 21, 8),
				[]string{"**parameter** `limit`", "optional, default `10`"}, nil},
			{"agent", protocol.Position{Line: 24, Character: 2}, rng(24, 1, 24, 5),
				[]string{"**agent** `desk`", "Answers questions about orders", "model: `OpenAI/gpt-4o-mini`", "tools: `getOrder`, `findOrders`, `cancel`", "You help customers with their orders.\nLook orders up; never guess."}, nil},
			{"record as a type", protocol.Position{Line: 10, Character: 12}, rng(10, 10, 10, 15),
				[]string{"**record** `Money`", "An amount", "[Money:Record | (amount::Number), (currency::String)]", "optional, default `\"EUR\"`"}, nil},
			{"record in items", protocol.Position{Line: 11, Character: 25}, rng(11, 24, 11, 29), []string{"**record** `Money`"}, nil},
			{"built-in type", protocol.Position{Line: 9, Character: 8}, rng(9, 7, 9, 14), []string{"**type** `Integer`: JSON `integer`"}, nil},
			{"label Agent", protocol.Position{Line: 24, Character: 7}, rng(24, 6, 24, 11), []string{"**Agent**: an LLM agent.", "[Language reference](" + ide.LanguageDocURL + "#agents)"}, nil},
			{"label Tool", protocol.Position{Line: 14, Character: 11}, rng(14, 10, 14, 14), []string{"**Tool**: a tool an agent may call."}, nil},
			{"agent property", protocol.Position{Line: 26, Character: 3}, rng(26, 2, 26, 7), []string{"**model** (agent property)", "Provider/model-id", "[Language reference](" + ide.LanguageDocURL + "#agent-properties)"}, nil},
			{"parameter property", docPos(t, text, "minimum: 1", 0, 2), rng(15, 52, 15, 59), []string{"**minimum** (parameter property)", "[Language reference](" + ide.LanguageDocURL + "#parameter-properties)"}, nil},
			{"field", protocol.Position{Line: 4, Character: 4}, rng(4, 3, 4, 9), []string{"**field** `amount` of record `Money`", "minimum: `0`"}, nil},
			{"node", protocol.Position{Line: 41, Character: 2}, rng(41, 1, 41, 4), []string{"**node** `bob` `:Person`", "defined at line 41"}, nil},
			{"relationship", docPos(t, text, "knows", 0, 1), rng(40, 32, 40, 37), []string{"**relationship** `knows` `:KNOWS`"}, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				h := hoverAt(t, c, deskURI, tc.pos)
				if h == nil {
					t.Fatal("no hover")
				}
				if h.Range == nil || *h.Range != tc.rng {
					t.Errorf("range = %+v, want %+v", h.Range, tc.rng)
				}
				if h.Contents.Kind != protocol.Markdown {
					t.Errorf("kind = %q", h.Contents.Kind)
				}
				for _, w := range tc.want {
					if !strings.Contains(h.Contents.Value, w) {
						t.Errorf("hover lacks %q:\n%s", w, h.Contents.Value)
					}
				}
				for _, w := range tc.not {
					if strings.Contains(h.Contents.Value, w) {
						t.Errorf("hover has %q:\n%s", w, h.Contents.Value)
					}
				}
			})
		}
		// Nothing under the cursor: null.
		if h := hoverAt(t, c, deskURI, protocol.Position{Line: 2, Character: 0}); h != nil {
			t.Errorf("hover on a blank line = %+v", h)
		}
	})
}

func TestDefinition(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, text string) {
		tests := []struct {
			name string
			pos  protocol.Position
			want protocol.Range
		}{
			{"tool listed in an agent", protocol.Position{Line: 32, Character: 5}, rng(14, 1, 14, 9)},
			{"record as a parameter type", protocol.Position{Line: 10, Character: 12}, rng(3, 1, 3, 6)},
			{"record in items", protocol.Position{Line: 11, Character: 26}, rng(3, 1, 3, 6)},
			{"record as a return type", protocol.Position{Line: 17, Character: 5}, rng(8, 1, 8, 6)},
			{"path node", protocol.Position{Line: 41, Character: 2}, rng(40, 47, 40, 50)},
			{"path node back", docPos(t, text, "(alice)", 0, 2), rng(40, 1, 40, 6)},
			{"a definition itself", protocol.Position{Line: 14, Character: 3}, rng(14, 1, 14, 9)},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var locs []protocol.Location
				c.mustCall("textDocument/definition", tdp(deskURI, tc.pos), &locs)
				want := []protocol.Location{{URI: deskURI, Range: tc.want}}
				if diff := cmp.Diff(want, locs); diff != "" {
					t.Errorf("definition (-want +got):\n%s", diff)
				}
			})
		}
		var locs []protocol.Location
		c.mustCall("textDocument/definition", tdp(deskURI, protocol.Position{Line: 1, Character: 3}), &locs)
		if len(locs) != 0 {
			t.Errorf("definition on a header key = %v", locs)
		}
	})
}

func TestReferencesAndHighlights(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		refs := func(p protocol.Position, decl bool) []protocol.Range {
			var locs []protocol.Location
			c.mustCall("textDocument/references", map[string]any{
				"textDocument": map[string]any{"uri": deskURI}, "position": p,
				"context": map[string]any{"includeDeclaration": decl},
			}, &locs)
			var out []protocol.Range
			for _, l := range locs {
				if l.URI != deskURI {
					t.Errorf("reference in %s", l.URI)
				}
				out = append(out, l.Range)
			}
			return out
		}
		money := []protocol.Range{rng(3, 1, 3, 6), rng(10, 10, 10, 15), rng(11, 24, 11, 29)}
		if diff := cmp.Diff(money, refs(protocol.Position{Line: 11, Character: 25}, true)); diff != "" {
			t.Errorf("references to Money (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(money[1:], refs(protocol.Position{Line: 3, Character: 2}, false)); diff != "" {
			t.Errorf("references to Money without the declaration (-want +got):\n%s", diff)
		}
		order := []protocol.Range{rng(8, 1, 8, 6), rng(17, 5, 17, 10), rng(21, 88, 21, 93), rng(35, 28, 35, 33)}
		if diff := cmp.Diff(order, refs(protocol.Position{Line: 8, Character: 1}, true)); diff != "" {
			t.Errorf("references to Order (-want +got):\n%s", diff)
		}
		bob := []protocol.Range{rng(40, 47, 40, 50), rng(41, 1, 41, 4)}
		if diff := cmp.Diff(bob, refs(protocol.Position{Line: 41, Character: 1}, true)); diff != "" {
			t.Errorf("references to bob (-want +got):\n%s", diff)
		}

		var hl []protocol.DocumentHighlight
		c.mustCall("textDocument/documentHighlight", tdp(deskURI, protocol.Position{Line: 33, Character: 4}), &hl)
		want := []protocol.DocumentHighlight{
			{Range: rng(20, 1, 20, 11), Kind: protocol.DocumentHighlightKindWrite},
			{Range: rng(33, 2, 33, 12), Kind: protocol.DocumentHighlightKindRead},
		}
		if diff := cmp.Diff(want, hl); diff != "" {
			t.Errorf("highlights of findOrders (-want +got):\n%s", diff)
		}
	})
}

func TestDocumentSymbols(t *testing.T) {
	c, _ := openDesk(t, false)
	var syms []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": deskURI}}, &syms)
	type node struct {
		Name     string
		Kind     protocol.SymbolKind
		Children []node
	}
	var conv func([]protocol.DocumentSymbol) []node
	conv = func(ss []protocol.DocumentSymbol) []node {
		var out []node
		for _, s := range ss {
			out = append(out, node{s.Name, s.Kind, conv(s.Children)})
		}
		return out
	}
	v := protocol.SymbolKindVariable
	want := []node{
		{"Money", protocol.SymbolKindStruct, []node{{"amount", protocol.SymbolKindField, nil}, {"currency", protocol.SymbolKindField, nil}}},
		{"Order", protocol.SymbolKindStruct, []node{{"id", protocol.SymbolKindField, nil}, {"total", protocol.SymbolKindField, nil}, {"lines", protocol.SymbolKindField, nil}}},
		{"getOrder", protocol.SymbolKindFunction, []node{{"orderId", v, nil}, {"customerId", v, nil}}},
		{"findOrders", protocol.SymbolKindFunction, []node{{"limit", v, nil}, {"status", v, nil}}},
		{"desk", protocol.SymbolKindClass, []node{
			{"getOrder", protocol.SymbolKindFunction, nil},
			{"findOrders", protocol.SymbolKindFunction, nil},
			{"cancel", protocol.SymbolKindFunction, []node{{"orderId", v, nil}}},
		}},
		{"knows", protocol.SymbolKindEvent, []node{{"alice", v, nil}, {"bob", v, nil}}},
	}
	if diff := cmp.Diff(want, conv(syms)); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
	// Ranges: the agent spans its pattern, its name is selected.
	desk := syms[4]
	if desk.Range != rng(24, 0, 37, 1) || desk.SelectionRange != rng(24, 1, 24, 5) {
		t.Errorf("desk ranges = %+v %+v", desk.Range, desk.SelectionRange)
	}
	if d := desk.Detail; d != "OpenAI/gpt-4o-mini" {
		t.Errorf("desk detail = %q", d)
	}
	if g := syms[2]; g.Detail != "(orderId::Integer)==>(customerId::String)==>(::Order)" {
		t.Errorf("getOrder detail = %q", g.Detail)
	}
}

// TestDocumentSymbolsOfWalk: a walk's nodes are listed once each, also the
// inner ones that end one hop and start the next; a named hop is listed
// with its ends.
func TestDocumentSymbolsOfWalk(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///walk.gram")
	c.open(uri, "(a)-->(b)-->(c)-[r]->(d)-->(e)\n")
	c.waitDiagnostics(uri, 1)
	var syms []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	var got []string
	var walk func(prefix string, ss []protocol.DocumentSymbol)
	walk = func(prefix string, ss []protocol.DocumentSymbol) {
		for _, s := range ss {
			got = append(got, prefix+s.Name)
			walk(prefix+s.Name+"/", s.Children)
		}
	}
	walk("", syms)
	want := []string{"a", "b", "c", "r", "r/c", "r/d", "d", "e"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
}

func TestWorkspaceSymbols(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "disk.gram"), []byte("[onDisk:Tool {description: \"d\"} | ()==>(::String)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".hidden"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden", "no.gram"), []byte("[hiddenTool:Tool {description: \"d\"} | ()==>(::String)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startTestClient(t, nil)
	c.mustCall("initialize", map[string]any{"capabilities": map[string]any{}, "workspaceFolders": []map[string]any{{"uri": string(pathURI(dir)), "name": "w"}}}, nil)
	c.notify("initialized", map[string]any{})
	c.open(deskURI, readTestdata(t, "desk.gram"))
	var syms []protocol.SymbolInformation
	c.mustCall("workspace/symbol", map[string]any{"query": "ord"}, &syms)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name+"@"+s.ContainerName)
	}
	want := []string{"Order@", "getOrder@", "orderId@getOrder", "customerId@getOrder", "findOrders@", "orderId@cancel"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("symbols matching ord (-want +got):\n%s", diff)
	}
	syms = nil
	c.mustCall("workspace/symbol", map[string]any{"query": "ondisk"}, &syms)
	if len(syms) != 1 || syms[0].Name != "onDisk" || syms[0].Location.URI != pathURI(filepath.Join(dir, "disk.gram")) || syms[0].Location.Range != rng(0, 1, 0, 7) {
		t.Errorf("symbols on disk = %+v", syms)
	}
	syms = nil
	c.mustCall("workspace/symbol", map[string]any{"query": "hiddenTool"}, &syms)
	if len(syms) != 0 {
		t.Errorf("a hidden directory was searched: %+v", syms)
	}
}

func TestFoldingRanges(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		var fr []protocol.FoldingRange
		c.mustCall("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": deskURI}}, &fr)
		var got [][2]uint32
		for _, f := range fr {
			got = append(got, [2]uint32{f.StartLine, f.EndLine})
		}
		want := [][2]uint32{
			{3, 5},   // Money
			{8, 11},  // Order
			{14, 17}, // getOrder
			{20, 21}, // findOrders
			{24, 36}, // desk
			{24, 30}, // desk's record
			{27, 29}, // the instruction
			{34, 35}, // cancel
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("folding ranges (-want +got):\n%s", diff)
		}
	})
}

func TestSelectionRange(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		var sr []protocol.SelectionRange
		c.mustCall("textDocument/selectionRange", map[string]any{
			"textDocument": map[string]any{"uri": deskURI},
			"positions":    []protocol.Position{{Line: 15, Character: 40}},
		}, &sr)
		if len(sr) != 1 {
			t.Fatalf("got %d selection ranges", len(sr))
		}
		var got []protocol.Range
		for r := &sr[0]; r != nil; r = r.Parent {
			got = append(got, r.Range)
		}
		want := []protocol.Range{
			rng(15, 34, 15, 50), // "The order's id"
			rng(15, 21, 15, 50), // description: "..."
			rng(15, 20, 15, 63), // the record
			rng(15, 3, 15, 63),  // the subject
			rng(15, 2, 15, 64),  // the node
			rng(15, 2, 17, 11),  // the signature path
			rng(14, 0, 18, 1),   // the tool
			rng(0, 0, 42, 0),    // the file
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("selection ranges (-want +got):\n%s", diff)
		}
	})
}

// TestSelectionRangeOfDeepTree: in a walk of many hops, which nests each
// relationship in the next, the chain holds the innermost ranges, then the
// top-level pattern and the file, and no more than maxSelectionDepth.
func TestSelectionRangeOfDeepTree(t *testing.T) {
	c := newTestClient(t, nil)
	const uri = protocol.DocumentURI("file:///deep.gram")
	var b strings.Builder
	b.WriteString("(a0)")
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&b, "-->(a%d)", i)
	}
	line := b.String()
	c.open(uri, line+"\n")
	c.waitDiagnostics(uri, 1)
	at := strings.Index(line, "(a200)") + 2
	var sr []protocol.SelectionRange
	c.mustCall("textDocument/selectionRange", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"positions":    []protocol.Position{{Line: 0, Character: uint32(at)}},
	}, &sr)
	var got []protocol.Range
	for r := &sr[0]; r != nil; r = r.Parent {
		got = append(got, r.Range)
	}
	if len(got) != maxSelectionDepth {
		t.Fatalf("a chain of %d ranges, want %d", len(got), maxSelectionDepth)
	}
	if want := rng(0, uint32(at-1), 0, uint32(at+3)); got[0] != want {
		t.Errorf("innermost %v, want the identity %v", got[0], want)
	}
	if want := rng(0, 0, 0, uint32(len(line))); got[len(got)-2] != want {
		t.Errorf("second outermost %v, want the walk %v", got[len(got)-2], want)
	}
	if want := rng(0, 0, 1, 0); got[len(got)-1] != want {
		t.Errorf("outermost %v, want the file %v", got[len(got)-1], want)
	}
	for i := 1; i < len(got); i++ {
		if !covers(got[i], got[i-1]) {
			t.Fatalf("range %d, %v, does not hold range %d, %v", i, got[i], i-1, got[i-1])
		}
	}
}

// covers reports whether range a holds range b (both on one line or in
// line order).
func covers(a, b protocol.Range) bool {
	before := func(p, q protocol.Position) bool {
		return p.Line < q.Line || p.Line == q.Line && p.Character <= q.Character
	}
	return before(a.Start, b.Start) && before(b.End, a.End)
}

func TestInlayHints(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		var hints []inlayHint
		c.mustCall("textDocument/inlayHint", map[string]any{
			"textDocument": map[string]any{"uri": deskURI},
			"range":        rng(14, 0, 36, 0),
		}, &hints)
		type h struct {
			Pos   protocol.Position
			Label string
		}
		var got []h
		for _, x := range hints {
			got = append(got, h{x.Position, x.Label})
			tokenHint := strings.Contains(x.Label, "tokens")
			if tokenHint != (x.Kind == 0) || !x.PaddingLeft || x.Tooltip == nil {
				t.Errorf("hint %+v", x)
			}
		}
		want := []h{
			{protocol.Position{Line: 14, Character: 9}, "30 tokens"},
			{protocol.Position{Line: 15, Character: 64}, "integer"},
			{protocol.Position{Line: 16, Character: 39}, "string, injected"},
			{protocol.Position{Line: 20, Character: 11}, "23 tokens"},
			{protocol.Position{Line: 21, Character: 32}, "integer, optional"},
			{protocol.Position{Line: 21, Character: 68}, "string, optional"},
			{protocol.Position{Line: 24, Character: 5}, "101 tokens (tools 83)"},
			{protocol.Position{Line: 34, Character: 9}, "21 tokens"},
			{protocol.Position{Line: 35, Character: 22}, "integer"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("inlay hints (-want +got):\n%s", diff)
		}
	})
}

// decodeTokens turns semantic token data into (line, char, length, type,
// modifiers) tuples with absolute positions.
func decodeTokens(data []uint32) [][5]uint32 {
	var out [][5]uint32
	var line, char uint32
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			line += data[i]
			char = data[i+1]
		} else {
			char += data[i+1]
		}
		out = append(out, [5]uint32{line, char, data[i+2], data[i+3], data[i+4]})
	}
	return out
}

func TestSemanticTokens(t *testing.T) {
	forBothLineEnds(t, func(t *testing.T, c *testClient, _ string) {
		var st protocol.SemanticTokens
		c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": deskURI}}, &st)
		toks := decodeTokens(st.Data)
		find := func(line, char uint32) [5]uint32 {
			for _, tk := range toks {
				if tk[0] == line && tk[1] == char {
					return tk
				}
			}
			t.Errorf("no token at %d:%d", line, char)
			return [5]uint32{}
		}
		tests := []struct {
			name             string
			line, char, l    uint32
			typ              uint32
			mods             uint32
			legendTypeString string
		}{
			{"comment", 0, 0, 70, tokComment, 0, "comment"},
			{"header key", 1, 1, 4, tokKey, 0, "property"},
			{"record definition", 3, 1, 5, tokRecord, modDeclaration, "struct"},
			{"Record label", 3, 7, 6, tokKeyword, 0, "keyword"},
			{"field definition", 4, 3, 6, tokField, modDeclaration, "property"},
			{"built-in type", 4, 11, 6, tokLabel, modDefaultLibrary, "type"},
			{"number", 4, 28, 1, tokNumber, 0, "number"},
			{"record type", 10, 10, 5, tokRecord, 0, "struct"},
			{"record in items", 11, 24, 5, tokRecord, 0, "struct"},
			{"tool definition", 14, 1, 8, tokTool, modDeclaration, "function"},
			{"string", 14, 29, 29, tokString, 0, "string"},
			{"parameter", 15, 3, 7, tokParameter, modDeclaration, "parameter"},
			{"arrow open half", 15, 64, 1, tokArrow, 0, "operator"},
			{"arrow close half", 15, 65, 2, tokArrow, 0, "operator"},
			{"boolean", 16, 33, 4, tokKeyword, 0, "keyword"},
			{"agent", 24, 1, 4, tokAgent, modDeclaration, "class"},
			{"fenced string, first line", 27, 15, 3, tokString, 0, "string"},
			{"fenced string, inner line", 28, 0, 41, tokString, 0, "string"},
			{"tool reference", 32, 2, 8, tokTool, 0, "function"},
			{"node", 40, 1, 5, tokNode, modDeclaration, "variable"},
			{"relationship", 40, 32, 5, tokRelationship, modDeclaration, "event"},
			{"node reference", 41, 1, 3, tokNode, 0, "variable"},
		}
		legend := semanticLegend()
		for _, tc := range tests {
			tk := find(tc.line, tc.char)
			if tk[2] != tc.l || tk[3] != tc.typ || tk[4] != tc.mods {
				t.Errorf("%s: token %v, want length %d type %d mods %d", tc.name, tk, tc.l, tc.typ, tc.mods)
			}
			if got := string(legend.TokenTypes[tc.typ]); got != tc.legendTypeString {
				t.Errorf("%s: legend type %q, want %q", tc.name, got, tc.legendTypeString)
			}
		}
		// Tokens are sorted and do not overlap.
		for i := 1; i < len(toks); i++ {
			a, b := toks[i-1], toks[i]
			if b[0] < a[0] || b[0] == a[0] && b[1] < a[1]+a[2] {
				t.Fatalf("tokens %v and %v overlap or are out of order", a, b)
			}
		}
	})
}

// TestHoverSharedRecords hovers a tool whose argument goes through 2,000
// levels of records, each with two fields of the next: the file has no
// diagnostics, and the hover shows the schema without writing out the
// records it shares.
func TestHoverSharedRecords(t *testing.T) {
	const n = 2000
	const uri = protocol.DocumentURI("file:///work/deep.gram")
	c := newTestClient(t, nil)
	c.open(uri, gramgen.SharedRecords(n))
	if p := c.waitDiagnostics(uri, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", p.Diagnostics)
	}
	h := hoverAt(t, c, uri, protocol.Position{Line: n, Character: 2})
	if h == nil {
		t.Fatal("no hover")
	}
	v := h.Contents.Value
	if !strings.Contains(v, "**tool** `deep`") || !strings.Contains(v, `"$ref": "#/$defs/R1"`) || !strings.Contains(v, "The 1999 records it refers to") {
		t.Errorf("hover:\n%s", v)
	}
	if len(v) > 2000 {
		t.Errorf("the hover is %d bytes", len(v))
	}
}
