package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// featRecords declares a record the other files of the package name.
const featRecords = "[Order:Record {description: \"An order\"} |\n  (id::Integer)\n]\n"

// featAgent lists a tool of a.gram and declares a tool of its own.
const featAgent = `[refundOrder:Tool {description: "Refunds an order"} |
  (orderId::Integer)==>(::String)
]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer about orders."} |
  lookupOrder,
  refundOrder
]
`

// featTests is a test file: the tool it declares is its own.
const featTests = `{kind: "tests"}

[fakeClock:Tool {description: "A clock for tests"} |
  (zone::String)==>(::String)
]
[looks_up:Test {agent: desk} |
  (:User {says: "What is the status of order 1?"}),
  (:Call {tool: lookupOrder})
]
`

// featPackage writes a package (a.gram: tools, b.gram: an agent and a
// tool, records.gram: a record, d_test.gram: a test and a tool of its
// own) and returns the directory and a client with none of it open.
func featPackage(t *testing.T) (string, *testClient) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"a.gram": pkgToolsText, "b.gram": featAgent, "records.gram": featRecords, "d_test.gram": featTests} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, newTestClient(t, nil)
}

// completeMarked opens (version 1) or changes the document to text with
// the marker § taken out, waits for its analysis and completes at the
// marker.
func completeMarked(t *testing.T, c *testClient, u protocol.DocumentURI, version int32, text string) []protocol.CompletionItem {
	t.Helper()
	i := strings.Index(text, "§")
	if i < 0 {
		t.Fatalf("no marker in %q", text)
	}
	text = text[:i] + text[i+len("§"):]
	if version == 1 {
		c.open(u, text)
	} else {
		c.change(u, version, text)
	}
	c.waitDiagnostics(u, version)
	var list protocol.CompletionList
	c.mustCall("textDocument/completion", tdp(u, docPos(t, text+"\x00", text[i:]+"\x00", 0, 0)), &list)
	return list.Items
}

// itemsByLabel returns the items with their label, in sort order, as
// "label sortText detail".
func itemsByLabel(items []protocol.CompletionItem) []string {
	slices.SortStableFunc(items, func(x, y protocol.CompletionItem) int { return strings.Compare(x.SortText, y.SortText) })
	var out []string
	for _, it := range items {
		out = append(out, it.Label+" | "+it.Detail)
	}
	return out
}

// TestPackageCompletion completes in the files of a package: an agent's
// tool list offers the top-level tools of the other files after the
// document's own, with their file in the detail, and never a tool of a
// test file; a type offers the records of the other files; a test file
// gets the package's agents and tools where it names them. A name the
// document declares itself is offered once.
func TestPackageCompletion(t *testing.T) {
	dir, c := featPackage(t)
	b := pathURI(filepath.Join(dir, "b.gram"))

	// The agent's list: refundOrder and lookupOrder are listed already.
	withNew := featAgent + `[other:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Other."} |
  refundOrder,
  §
]
`
	got := itemsByLabel(completeMarked(t, c, b, 1, withNew))
	want := []string{
		"lookupOrder | a.gram: (orderId::Integer)==>(::String)",
		"cancelOrder | a.gram: (orderId::Integer)==>(::String)",
	}
	// lookupOrder is not listed by the new agent: it is offered; refundOrder
	// is, and is not; then the agent desk; the snippet of an inline tool
	// comes last.
	desk := "desk | agent (message::String)==>(::String)"
	if len(got) != 4 || !slices.Contains(got[:2], want[0]) || !slices.Contains(got[:2], want[1]) || got[2] != desk || !strings.HasPrefix(got[3], "tool |") {
		t.Errorf("tool list of a new agent = %q, want %q, %q then the snippet", got, want, desk)
	}
	for _, g := range got {
		if strings.HasPrefix(g, "fakeClock") {
			t.Errorf("a test file's tool is offered: %q", got)
		}
	}

	// The document declares cancelOrder too: its own comes first, once.
	own := featAgent + `[cancelOrder:Tool {description: "Cancels here"} |
  (orderId::Integer)==>(::String)
]
[other:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Other."} |
  §
]
`
	got = itemsByLabel(completeMarked(t, c, b, 2, own))
	if want := []string{
		"cancelOrder | (orderId::Integer)==>(::String)",
		"refundOrder | (orderId::Integer)==>(::String)",
		"lookupOrder | a.gram: (orderId::Integer)==>(::String)",
		desk,
	}; len(got) != 5 || !slices.Equal(got[:4], want) {
		t.Errorf("tool list with a tool of the document's own = %q, want %q then the snippet", got, want)
	}

	// A type: the record of records.gram, after the built-in types.
	typed := featAgent + `[showOrder:Tool {description: "Shows"} |
  (order::O§)==>(::String)
]
`
	items := completeMarked(t, c, b, 3, typed)
	i := slices.IndexFunc(items, func(it protocol.CompletionItem) bool { return it.Label == "Order" })
	if i < 0 || items[i].Detail != "record in records.gram" || items[i].TextEdit == nil || items[i].TextEdit.NewText != "Order" {
		t.Errorf("type completion: no record Order of records.gram in %q", itemsByLabel(items))
	}

	// The test file: the agent of a test, the tool of a call (b.gram closed:
	// its file on disk, without showOrder).
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b}})
	d := pathURI(filepath.Join(dir, "d_test.gram"))
	agentOf := featTests + "[cancels:Test {agent: §"
	got = itemsByLabel(completeMarked(t, c, d, 1, agentOf))
	if want := []string{"desk | agent in b.gram"}; !slices.Equal(got, want) {
		t.Errorf("agent of a test = %q, want %q", got, want)
	}
	callOf := featTests + "[cancels:Test {agent: desk} |\n  (:User {says: \"Cancel 1\"}),\n  (:Call {tool: §"
	got = itemsByLabel(completeMarked(t, c, d, 2, callOf))
	if want := []string{
		"fakeClock | (zone::String)==>(::String)",
		"cancelOrder | a.gram: (orderId::Integer)==>(::String)",
		"lookupOrder | a.gram: (orderId::Integer)==>(::String)",
		"refundOrder | b.gram: (orderId::Integer)==>(::String)",
	}; !slices.Equal(got, want) {
		t.Errorf("tool of a call = %q, want %q", got, want)
	}
}

// TestPackageHover hovers over references to names another file of the
// package declares: a tool an agent lists and a record named as a type
// show their description, signature or definition, and their file.
func TestPackageHover(t *testing.T) {
	dir, c := featPackage(t)
	b := pathURI(filepath.Join(dir, "b.gram"))
	text := featAgent + `[showOrder:Tool {description: "Shows"} |
  (order::Order)==>(::String)
]
`
	c.open(b, text)
	if ds := c.waitDiagnostics(b, 1).Diagnostics; len(ds) != 1 || ds[0].Code != "unused-tool" {
		t.Fatalf("B: %v", diagCodes(ds))
	}
	for _, tc := range []struct {
		needle string
		want   []string
		rng    protocol.Range
	}{
		{"lookupOrder", []string{"**tool** `lookupOrder`", "Looks an order up", "(orderId::Integer)==>(::String)", "Declared in `a.gram`"}, rng(4, 2, 4, 13)},
		{"Order)", []string{"**record** `Order`", "An order", "[Order:Record | (id::Integer)]", "Declared in `records.gram`"}, rng(8, 10, 8, 15)},
	} {
		var h *protocol.Hover
		c.mustCall("textDocument/hover", tdp(b, docPos(t, text, tc.needle, 0, 1)), &h)
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

// symbolPlaces asks for the workspace symbols matching query and returns
// them as "name file line".
func symbolPlaces(c *testClient, query string) []string {
	var syms []protocol.SymbolInformation
	c.mustCall("workspace/symbol", map[string]any{"query": query}, &syms)
	var out []string
	for _, s := range syms {
		out = append(out, s.Name+" "+filepath.Base(uriPath(s.Location.URI))+" "+strconv.Itoa(int(s.Location.Range.Start.Line)))
	}
	slices.Sort(out)
	return out
}

// TestPackageSymbols checks the symbols of a package's files: the outline
// of a document is its own; workspace symbols, with no workspace folder,
// hold the declarations of the package's files that are not open, from
// disk, and those of the open ones from their buffers, each once; with the
// package's directory as a workspace folder too.
func TestPackageSymbols(t *testing.T) {
	dir, c := featPackage(t)
	b := pathURI(filepath.Join(dir, "b.gram"))
	c.open(b, featAgent)
	c.waitDiagnostics(b, 1)

	var outline []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": b}}, &outline)
	var names []string
	for _, s := range outline {
		names = append(names, s.Name)
	}
	if want := []string{"refundOrder", "desk"}; !slices.Equal(names, want) {
		t.Errorf("outline of b.gram = %q, want %q", names, want)
	}

	// (Parameters and the turn of a test match too.)
	turn := "turn 1: What is the status of order 1? d_test.gram 6"
	want := []string{"Order records.gram 0", "cancelOrder a.gram 3", "lookupOrder a.gram 0", "orderId a.gram 1", "orderId a.gram 4", "orderId b.gram 1", "refundOrder b.gram 0", turn}
	if got := symbolPlaces(c, "order"); !slices.Equal(got, want) {
		t.Errorf("symbols of the package = %q, want %q", got, want)
	}
	if got := symbolPlaces(c, "fakeclock"); !slices.Equal(got, []string{"fakeClock d_test.gram 2"}) {
		t.Errorf("symbols of the test file = %q", got)
	}

	// a.gram open, its buffer two lines down and lookupOrder renamed: its
	// symbols are the buffer's, listed once.
	a := pathURI(filepath.Join(dir, "a.gram"))
	c.open(a, "\n\n"+strings.ReplaceAll(pkgToolsText, "lookupOrder", "findOrder"))
	c.waitDiagnostics(a, 1)
	want = []string{"Order records.gram 0", "cancelOrder a.gram 5", "findOrder a.gram 2", "orderId a.gram 3", "orderId a.gram 6", "orderId b.gram 1", "refundOrder b.gram 0", turn}
	if got := symbolPlaces(c, "ord"); !slices.Equal(got, want) {
		t.Errorf("symbols with a.gram open = %q, want %q", got, want)
	}

	// The directory a workspace folder too: nothing twice.
	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]any{{"uri": string(pathURI(dir)), "name": "p"}}, "removed": []map[string]any{}}})
	if got := symbolPlaces(c, "ord"); !slices.Equal(got, want) {
		t.Errorf("symbols with the package a workspace folder = %q, want %q", got, want)
	}
}

// TestPackageFileCreatedAndRenamed creates on disk the file that declares
// the tools an open file lists, renames it, then deletes it: once the
// client reports each change, the open file's diagnostics and definitions
// follow (an undefined tool, clean, its definition in the renamed file,
// undefined again).
func TestPackageFileCreatedAndRenamed(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"b.gram": pkgAgentText, "c.gram": xrefOtherAgent} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := pathURI(filepath.Join(dir, "b.gram"))
	c := newTestClient(t, nil)
	c.open(b, pkgAgentText)
	undefined := func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == "undefined-reference" && strings.Contains(d.Message, "lookupOrder") {
				return true
			}
		}
		return false
	}
	clean := func(ds []protocol.Diagnostic) bool { return len(ds) == 0 }
	if got := diagCodes(c.waitDiagnostics(b, 1).Diagnostics); len(got) != 2 {
		t.Fatalf("B without the tools: %v", got)
	}
	changed := func(changes ...any) {
		var cs []map[string]any
		for i := 0; i < len(changes); i += 2 {
			cs = append(cs, map[string]any{"uri": pathURI(changes[i].(string)), "type": changes[i+1]})
		}
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": cs})
	}
	definedIn := func() string {
		var locs []protocol.Location
		c.mustCall("textDocument/definition", tdp(b, docPos(t, pkgAgentText, "lookupOrder", 0, 1)), &locs)
		if len(locs) != 1 {
			return ""
		}
		return filepath.Base(uriPath(locs[0].URI))
	}

	// Created.
	aPath := filepath.Join(dir, "a.gram")
	if err := os.WriteFile(aPath, []byte(pkgToolsText), 0o644); err != nil {
		t.Fatal(err)
	}
	changed(aPath, 1)
	c.lastDiagnostics(b, "B after a.gram created", clean)
	if got := definedIn(); got != "a.gram" {
		t.Errorf("lookupOrder after a.gram created: defined in %q", got)
	}

	// Renamed: a deletion and a creation.
	toolsPath := filepath.Join(dir, "tools.gram")
	if err := os.Rename(aPath, toolsPath); err != nil {
		t.Fatal(err)
	}
	changed(aPath, 3, toolsPath, 1)
	if got := definedIn(); got != "tools.gram" {
		t.Errorf("lookupOrder after a.gram renamed tools.gram: defined in %q", got)
	}
	c.lastDiagnostics(b, "B after the rename", clean)

	// Deleted.
	if err := os.Remove(toolsPath); err != nil {
		t.Fatal(err)
	}
	changed(toolsPath, 3)
	c.lastDiagnostics(b, "B after tools.gram deleted", undefined)
}

// TestPackageCompletionOfManyTools: with more tools in the package than a
// completion returns, an agent's list offers those of the other files that
// start with the word being typed, in a list marked incomplete, without
// their signatures; resolving an item adds its file, signature and
// description.
func TestPackageCompletionOfManyTools(t *testing.T) {
	dir := t.TempDir()
	var tools strings.Builder
	for i := 0; i < maxCompletions+20; i++ {
		fmt.Fprintf(&tools, "[tool%d:Tool {description: \"Tool %d\"} | (n::Integer)==>(::String)]\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools.gram"), []byte(tools.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, nil)
	u := pathURI(filepath.Join(dir, "agent.gram"))
	items := completeMarked(t, c, u, 1, "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"i\"} | tool1, tool11§]\n")
	var got []string
	var first protocol.CompletionItem
	for _, it := range items {
		if it.Kind == protocol.CompletionItemKindFunction {
			got = append(got, it.Label)
			if it.Label == "tool110" {
				first = it
			}
		}
	}
	slices.Sort(got)
	want := []string{"tool11", "tool110", "tool111", "tool112", "tool113", "tool114", "tool115", "tool116", "tool117", "tool118", "tool119"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools after tool11 = %v, want %v", got, want)
	}
	if first.Detail != "tools.gram" || first.Data == nil {
		t.Fatalf("tool110 before resolve: %+v", first)
	}
	var resolved protocol.CompletionItem
	c.mustCall("completionItem/resolve", first, &resolved)
	if resolved.Detail != "tools.gram: (n::Integer)==>(::String)" || !strings.Contains(fmt.Sprint(resolved.Documentation), "Tool 110") {
		t.Errorf("tool110 resolved: %+v", resolved)
	}
}

// TestPackageCompletionFollowsOtherFiles: completion in a document offers
// the tools of the other files as they are now: after a tool of another
// open file is renamed, the new name and not the old; an edit of the
// document alone keeps offering it.
func TestPackageCompletionFollowsOtherFiles(t *testing.T) {
	dir, c := featPackage(t)
	a, b := pathURI(filepath.Join(dir, "a.gram")), pathURI(filepath.Join(dir, "b.gram"))
	text := featAgent + `[other:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Other."} |
  §
]
`
	labels := func(items []protocol.CompletionItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Label)
		}
		return out
	}
	if got := labels(completeMarked(t, c, b, 1, text)); !slices.Contains(got, "lookupOrder") {
		t.Fatalf("before the rename: %q", got)
	}
	c.open(a, pkgToolsText)
	c.waitDiagnostics(a, 1)
	c.change(a, 2, strings.Replace(pkgToolsText, "[lookupOrder:Tool", "[findOrder:Tool", 1))
	c.waitDiagnostics(a, 2)
	for v := int32(2); v <= 3; v++ {
		text += "\n"
		got := labels(completeMarked(t, c, b, v, text))
		if !slices.Contains(got, "findOrder") || slices.Contains(got, "lookupOrder") {
			t.Errorf("version %d of b.gram after the rename in a.gram: %q, want findOrder and not lookupOrder", v, got)
		}
	}
}
