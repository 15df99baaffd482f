package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
)

// composeBilling declares the agent billing, with a signature element and
// a tool of its own.
const composeBilling = `[Invoice:Record {description: "An invoice"} |
  (total::Number)
]
[lookupOrder:Tool {description: "Finds an order"} |
  (orderId::Integer)==>(::String)
]
[billing:Agent {description: "Answers billing questions", model: "OpenAI/gpt-4o-mini", instruction: "Bill."} |
  (question::String {description: "The customer's question"})==>(::Invoice),
  lookupOrder
]
`

// composeTriage lists billing, which billing.gram declares, and hands off
// to it.
const composeTriage = `[triage:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Triage."} |
  billing
]
(triage)-[:Handoff {description: "Billing questions"}]->(billing)
`

// composePackage writes the package of billing.gram and triage.gram and
// returns a client with triage.gram open, and the two URIs.
func composePackage(t *testing.T, triage string) (*testClient, protocol.DocumentURI, protocol.DocumentURI) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"billing.gram": composeBilling, "triage.gram": triage} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, nil)
	bu, tu := pathURI(filepath.Join(dir, "billing.gram")), pathURI(filepath.Join(dir, "triage.gram"))
	c.open(tu, triage)
	if ds := c.waitDiagnostics(tu, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("triage.gram: %v", diagCodes(ds))
	}
	return c, bu, tu
}

// references asks for the references at pos of uri, the declaration
// included, as sorted "file line:col-line:col".
func references(c *testClient, uri protocol.DocumentURI, pos protocol.Position) []string {
	var locs []protocol.Location
	c.mustCall("textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": pos, "context": map[string]any{"includeDeclaration": true}}, &locs)
	var out []string
	for _, l := range locs {
		out = append(out, locString(l))
	}
	slices.Sort(out)
	return out
}

// TestComposedAgentDefinitionAndReferences: the agent of another file that
// an agent lists and hands off to goes to its declaration from both uses,
// and its references, asked from either file, are the declaration and
// both uses.
func TestComposedAgentDefinitionAndReferences(t *testing.T) {
	c, bu, tu := composePackage(t, composeTriage)
	for _, n := range []int{0, 1} {
		var locs []protocol.Location
		c.mustCall("textDocument/definition", tdp(tu, docPos(t, composeTriage, "billing", n, 2)), &locs)
		if len(locs) != 1 || locString(locs[0]) != "billing.gram 6:1-6:8" || locs[0].URI != bu {
			t.Errorf("definition of billing #%d: %+v", n, locs)
		}
	}
	want := []string{"billing.gram 6:1-6:8", "triage.gram 1:2-1:9", "triage.gram 3:57-3:64"}
	if got := references(c, tu, docPos(t, composeTriage, "billing", 1, 1)); !slices.Equal(got, want) {
		t.Errorf("references from the handoff = %v, want %v", got, want)
	}
	c.open(bu, composeBilling)
	c.waitDiagnostics(bu, 1)
	if got := references(c, bu, docPos(t, composeBilling, "billing:", 0, 1)); !slices.Equal(got, want) {
		t.Errorf("references from the declaration = %v, want %v", got, want)
	}
}

// TestComposedAgentRename renames the agent of another file from a
// Handoff that names it: its declaration, the element and the handoff are
// edited.
func TestComposedAgentRename(t *testing.T) {
	c, bu, tu := composePackage(t, composeTriage)
	pos := docPos(t, composeTriage, "billing", 1, 1)
	var r *protocol.Range
	c.mustCall("textDocument/prepareRename", tdp(tu, pos), &r)
	if r == nil || *r != rng(3, 57, 3, 64) {
		t.Fatalf("prepareRename on the handoff = %+v", r)
	}
	var we *protocol.WorkspaceEdit
	c.mustCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": tu}, "position": pos, "newName": "accounts"}, &we)
	if we == nil || len(we.Changes) != 2 {
		t.Fatalf("rename of billing: %+v", we)
	}
	if got, want := applyEdits(t, composeTriage, we.Changes[tu]), strings.ReplaceAll(composeTriage, "billing", "accounts"); got != want {
		t.Errorf("triage.gram after the rename:\n%s\nwant\n%s", got, want)
	}
	if got, want := applyEdits(t, composeBilling, we.Changes[bu]), strings.Replace(composeBilling, "[billing:", "[accounts:", 1); got != want {
		t.Errorf("billing.gram after the rename:\n%s", got)
	}
	// The package checks clean after the rename.
	var srcs []project.Source
	for _, u := range []protocol.DocumentURI{bu, tu} {
		text := applyEdits(t, map[protocol.DocumentURI]string{bu: composeBilling, tu: composeTriage}[u], we.Changes[u])
		f := diag.NewFile(uriPath(u), []byte(text))
		doc, parsed := parser.Parse(f)
		srcs = append(srcs, project.Source{File: f, Doc: doc, Diags: parsed})
	}
	for _, f := range project.Compile(filepath.Dir(uriPath(tu)), srcs).Files {
		if !f.Member || len(f.Diags) > 0 {
			t.Errorf("%s after the rename: member %v, %v", f.File.Path, f.Member, f.Diags)
		}
	}
	// The model of triage calls billing by its name and hands off to it by
	// transfer_to_ and its name: both must be valid tool names.
	for _, bad := range []string{"bill.ing", strings.Repeat("b", 60)} {
		if err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": tu}, "position": pos, "newName": bad}, &we); err == nil || !strings.Contains(err.Error(), "not a valid tool name, and agent triage would call agent "+bad) {
			t.Errorf("rename to %s: %v", bad, err)
		}
	}
	var err error
	if err = c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": tu}, "position": pos, "newName": "lookupOrder"}, &we); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("rename to a tool of the package: %v", err)
	}
}

// TestComposedAgentCompletion completes, in a file of the package, an
// agent's element list (the agent of the other file, with its file and
// signature, after the tools; never the agent itself) and the node a
// Handoff leads to (the agents but the one it leaves).
func TestComposedAgentCompletion(t *testing.T) {
	c, _, tu := composePackage(t, composeTriage)
	elems := composeTriage + "[other:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"O.\"} |\n  lookupOrder,\n  §\n]\n"
	got := itemsByLabel(completeMarked(t, c, tu, 2, elems))
	if len(got) != 3 || got[0] != "triage | agent (message::String)==>(::String)" || got[1] != "billing | billing.gram: agent (question::String)==>(::Invoice)" || !strings.HasPrefix(got[2], "tool |") {
		t.Errorf("the element list = %q", got)
	}
	items := completeMarked(t, c, tu, 3, strings.Replace(composeTriage, "->(billing)", "->(§)", 1))
	if len(items) != 1 || items[0].Label != "billing" || items[0].Kind != protocol.CompletionItemKindClass || items[0].Documentation == nil {
		t.Errorf("the handoff's target = %+v", items)
	}
}

// TestComposedAgentHover hovers over the agent of another file listed as
// an element (the tool the calling model sees, and the file) and over a
// Handoff's label (the tool that hands off).
func TestComposedAgentHover(t *testing.T) {
	c, _, tu := composePackage(t, composeTriage)
	for _, tc := range []struct {
		needle string
		want   []string
		rng    protocol.Range
	}{
		{"billing", []string{"**agent** `billing` as a tool", "Answers billing questions", "(question::String)==>(::Invoice)", `"question": {`, "JSON Schema of the answer (`Invoice`)", `"total": {`, "Declared in `billing.gram`"}, rng(1, 2, 1, 9)},
		{"Handoff", []string{"**handoff** from `triage` to `billing`", "`transfer_to_billing`", "Billing questions"}, rng(3, 11, 3, 18)},
	} {
		var h *protocol.Hover
		c.mustCall("textDocument/hover", tdp(tu, docPos(t, composeTriage, tc.needle, 0, 1)), &h)
		if h == nil || h.Range == nil || *h.Range != tc.rng {
			t.Errorf("hover on %s: %+v", tc.needle, h)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(h.Contents.Value, w) {
				t.Errorf("hover on %s: no %q in\n%s", tc.needle, w, h.Contents.Value)
			}
		}
	}
}

// TestComposedAgentTokens colours the agents a Handoff and an agent's
// elements name, declared in another file, as agents, and the label
// Handoff as a keyword.
func TestComposedAgentTokens(t *testing.T) {
	c, _, tu := composePackage(t, composeTriage)
	var st protocol.SemanticTokens
	c.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": tu}}, &st)
	toks := decodeTokens(st.Data)
	for _, want := range [][5]uint32{
		{1, 2, 7, tokAgent, 0},    // billing among triage's elements
		{3, 1, 6, tokAgent, 0},    // (triage)
		{3, 11, 7, tokKeyword, 0}, // Handoff
		{3, 57, 7, tokAgent, 0},   // (billing)
	} {
		if !slices.Contains(toks, want) {
			t.Errorf("no token %v among %v", want, toks)
		}
	}
}

// composeOne has both agents and the handoff in one file.
const composeOne = composeBilling + composeTriage

// TestComposedAgentsInOneFile: in one file, an agent listed as an element
// and named by a Handoff has its uses as references, hover over the
// element shows it as a tool, and its rename edits them all; the file
// checks clean after it.
func TestComposedAgentsInOneFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agents.gram")
	if err := os.WriteFile(path, []byte(composeOne), 0o644); err != nil {
		t.Fatal(err)
	}
	u := pathURI(path)
	c := newTestClient(t, nil)
	c.open(u, composeOne)
	if ds := c.waitDiagnostics(u, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("agents.gram: %v", diagCodes(ds))
	}
	// Sorted as text: the declaration on line 6 last.
	want := []string{"agents.gram 11:2-11:9", "agents.gram 13:57-13:64", "agents.gram 6:1-6:8"}
	if got := references(c, u, docPos(t, composeOne, "billing", 2, 1)); !slices.Equal(got, want) {
		t.Errorf("references of billing = %v, want %v", got, want)
	}
	var locs []protocol.Location
	c.mustCall("textDocument/definition", tdp(u, docPos(t, composeOne, "(billing)", 0, 1)), &locs)
	if len(locs) != 1 || locString(locs[0]) != want[2] {
		t.Errorf("definition from the handoff: %+v", locs)
	}
	var h *protocol.Hover
	c.mustCall("textDocument/hover", tdp(u, docPos(t, composeOne, "billing", 2, 1)), &h)
	if h == nil || !strings.HasPrefix(h.Contents.Value, "**agent** `billing` as a tool") || !strings.Contains(h.Contents.Value, "JSON Schema of the answer (`Invoice`)") {
		t.Errorf("hover of billing as an element: %+v", h)
	}
	var we *protocol.WorkspaceEdit
	c.mustCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": u}, "position": docPos(t, composeOne, "billing:", 0, 1), "newName": "accounts"}, &we)
	got := applyEdits(t, composeOne, we.Changes[u])
	if want := strings.ReplaceAll(composeOne, "billing", "accounts"); got != strings.Replace(want, "Answers accounts questions", "Answers billing questions", 1) || len(we.Changes) != 1 {
		t.Errorf("after the rename:\n%s", got)
	}
	f := diag.NewFile(path, []byte(got))
	doc, parsed := parser.Parse(f)
	for _, pf := range project.Compile(dir, []project.Source{{File: f, Doc: doc, Diags: parsed}}).Files {
		if len(pf.Diags) > 0 {
			t.Errorf("after the rename: %v", pf.Diags)
		}
	}
}

// TestComposedAgentInlayHints: the parameters of an agent's signature
// element have the hint of a tool's parameters.
func TestComposedAgentInlayHints(t *testing.T) {
	c, bu, _ := composePackage(t, composeTriage)
	c.open(bu, composeBilling)
	c.waitDiagnostics(bu, 1)
	var hints []inlayHint
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": bu}, "range": rng(0, 0, 20, 0)}, &hints)
	var got []string
	for _, h := range hints {
		if strings.Contains(h.Label, "tokens") {
			continue // the token counts of the tool and the agent (tokens_test.go)
		}
		got = append(got, fmt.Sprintf("%d:%d %s", h.Position.Line, h.Position.Character, h.Label))
	}
	if want := []string{"4:20 integer", "7:61 string"}; !slices.Equal(got, want) {
		t.Errorf("hints = %v, want %v", got, want)
	}
}

// TestComposedAgentSymbols: the outline shows an agent's signature element
// with its parameters, and an agent another lists as an agent reference.
func TestComposedAgentSymbols(t *testing.T) {
	c, bu, tu := composePackage(t, composeTriage)
	c.open(bu, composeBilling)
	c.waitDiagnostics(bu, 1)
	outline := func(u protocol.DocumentURI) []string {
		var syms []protocol.DocumentSymbol
		c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms)
		var out []string
		var walk func(prefix string, ss []protocol.DocumentSymbol)
		walk = func(prefix string, ss []protocol.DocumentSymbol) {
			for _, s := range ss {
				out = append(out, prefix+s.Name+" | "+s.Detail)
				walk(prefix+s.Name+"/", s.Children)
			}
		}
		walk("", syms)
		return out
	}
	got := outline(bu)
	for _, want := range []string{"billing/signature | (question::String)==>(::Invoice)", "billing/signature/question | String", "billing/lookupOrder | tool reference"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q in the outline of billing.gram: %q", want, got)
		}
	}
	if got := outline(tu); !slices.Contains(got, "triage/billing | agent reference") {
		t.Errorf("the outline of triage.gram: %q", got)
	}
}
