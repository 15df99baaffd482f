package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
)

const pkgToolsText = `[lookupOrder:Tool {description: "Looks an order up"} |
  (orderId::Integer)==>(::String)
]
[cancelOrder:Tool {description: "Cancels an order"} |
  (orderId::Integer)==>(::String)
]
`

const pkgAgentText = `[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Answer about orders."} |
  lookupOrder,
  cancelOrder
]
`

// lastDiagnostics waits until the newest diagnostics published for a
// document satisfy ok, and returns them.
func (c *testClient) lastDiagnostics(uri protocol.DocumentURI, what string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last []protocol.Diagnostic
	for time.Now().Before(deadline) {
		found := false
		for _, p := range c.publications() {
			if p.URI == uri {
				last, found = p.Diagnostics, true
			}
		}
		if found && ok(last) {
			return last
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.t.Fatalf("%s: no diagnostics of %s %s; the last: %+v", what, uri, what, last)
	return nil
}

// codes returns the codes of diagnostics, with the text each is on.
func diagCodes(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code.(string)+" "+strings.SplitN(d.Message, "\n", 2)[0])
	}
	return out
}

// TestPackageDiagnostics checks a document with the other files of its
// package: a tool of a file on disk, then of an open buffer (which wins
// over the disk), removed by an edit of that buffer; a name two files
// declare; a data file beside them never joins.
func TestPackageDiagnostics(t *testing.T) {
	dir := t.TempDir()
	aPath, bPath := filepath.Join(dir, "a.gram"), filepath.Join(dir, "b.gram")
	for path, text := range map[string]string{
		aPath:                           pkgToolsText,
		bPath:                           pkgAgentText,
		filepath.Join(dir, "data.gram"): "(lookupOrder {x: 1})\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := pathURI(aPath), pathURI(bPath)
	c := newTestClient(t, nil)

	// B alone is open: A is read from disk.
	c.open(b, pkgAgentText)
	if p := c.waitDiagnostics(b, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("B with A on disk: %v", diagCodes(p.Diagnostics))
	}

	// A is opened, and edited: its tool lookupOrder is gone from the
	// buffer (not from the disk). B's diagnostics are published again and
	// report it.
	c.open(a, pkgToolsText)
	if p := c.waitDiagnostics(a, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("A: %v", diagCodes(p.Diagnostics))
	}
	c.change(a, 2, pkgToolsText[strings.Index(pkgToolsText, "[cancelOrder"):])
	ds := c.lastDiagnostics(b, "after A's edit", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	if len(ds) != 1 || ds[0].Code != "undefined-reference" || !strings.Contains(ds[0].Message, "lookupOrder") || ds[0].Range != rng(1, 2, 1, 13) {
		t.Fatalf("B after A's edit: %+v", ds)
	}

	// The tool back in A: B is clean again.
	c.change(a, 3, pkgToolsText)
	c.lastDiagnostics(b, "after A's undo", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })

	// B declares cancelOrder too: the duplicate is reported in both files.
	dup := pkgAgentText + `[cancelOrder:Tool {description: "Cancels"} |
  (orderId::Integer)==>(::String)
]
`
	// Each names the other place as related information, with the other
	// file's URI and the range of the name in that file's text (B's open
	// buffer, A's).
	c.change(b, 2, dup)
	p := c.waitDiagnostics(b, 2)
	if got := diagCodes(p.Diagnostics); len(got) != 1 || got[0] != "duplicate-definition tool cancelOrder is also declared in another file of the package" || p.Diagnostics[0].Range != rng(4, 1, 4, 12) {
		t.Fatalf("B with a duplicate: %v %+v", got, p.Diagnostics)
	}
	wantRel := []protocol.DiagnosticRelatedInformation{{Location: protocol.Location{URI: a, Range: rng(3, 1, 3, 12)}, Message: "tool cancelOrder is declared here"}}
	if diff := cmp.Diff(wantRel, p.Diagnostics[0].RelatedInformation); diff != "" {
		t.Errorf("B's related information (-want +got):\n%s", diff)
	}
	ds = c.lastDiagnostics(a, "A after B's duplicate", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	// (A's cancelOrder is unused too: B's agent lists B's, as gramc check
	// says.)
	if got := diagCodes(ds); len(got) != 2 || got[0] != "duplicate-definition tool cancelOrder is also declared in another file of the package" || ds[0].Range != rng(3, 1, 3, 12) ||
		!strings.HasPrefix(got[1], "unused-tool") {
		t.Fatalf("A with B's duplicate: %v %+v", got, ds)
	}
	wantRel = []protocol.DiagnosticRelatedInformation{{Location: protocol.Location{URI: b, Range: rng(4, 1, 4, 12)}, Message: "tool cancelOrder is declared here"}}
	if diff := cmp.Diff(wantRel, ds[0].RelatedInformation); diff != "" {
		t.Errorf("A's related information (-want +got):\n%s", diff)
	}

	// B closed: A no longer sees B's buffer, but the file on disk, which has
	// no duplicate.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b}})
	c.lastDiagnostics(a, "A after B closed", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
}

// TestPackageDiagnosticsAlone checks that a file whose directory holds no
// other member file is compiled alone: its undefined tool is reported.
func TestPackageDiagnosticsAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.gram")
	if err := os.WriteFile(filepath.Join(dir, "notes.gram"), []byte("(lookupOrder {x: 1})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, nil)
	u := pathURI(path)
	c.open(u, pkgAgentText)
	p := c.waitDiagnostics(u, 1)
	if got := diagCodes(p.Diagnostics); len(got) != 2 || !strings.HasPrefix(got[0], "undefined-reference") {
		t.Fatalf("alone: %v", got)
	}
}

// TestPackageDefinition goes from a reference in one file of a package to
// the declaration in another: a tool an agent lists, of an open buffer,
// and a record named as a type, of a file on disk.
func TestPackageDefinition(t *testing.T) {
	dir := t.TempDir()
	records := "[Order:Record |\n  (id::Integer)\n]\n"
	agent := pkgAgentText + `[showOrder:Tool {description: "Shows an order"} |
  (order::Order)==>(::String)
]
[shower:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Show."} | showOrder]
`
	paths := map[string]string{"a.gram": pkgToolsText, "b.gram": agent, "records.gram": records}
	for name, text := range paths {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := pathURI(filepath.Join(dir, "a.gram")), pathURI(filepath.Join(dir, "b.gram"))
	c := newTestClient(t, nil)
	c.open(a, "\n\n"+pkgToolsText) // the buffer, two lines below the disk's
	c.open(b, agent)
	c.lastDiagnostics(b, "B", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	def := func(pos protocol.Position) []protocol.Location {
		var locs []protocol.Location
		c.mustCall("textDocument/definition", tdp(b, pos), &locs)
		return locs
	}
	if locs := def(docPos(t, agent, "lookupOrder", 0, 3)); len(locs) != 1 || locs[0].URI != a || locs[0].Range != rng(2, 1, 2, 12) {
		t.Errorf("definition of lookupOrder = %+v", locs)
	}
	if locs := def(docPos(t, agent, "Order)", 0, 1)); len(locs) != 1 || locs[0].URI != pathURI(filepath.Join(dir, "records.gram")) || locs[0].Range != rng(0, 1, 0, 6) {
		t.Errorf("definition of Order = %+v", locs)
	}
	// Hover on the other file's tool and record answers (their spans are
	// never taken for this file's).
	for _, needle := range []string{"lookupOrder", "Order)"} {
		var h *protocol.Hover
		c.mustCall("textDocument/hover", tdp(b, docPos(t, agent, needle, 0, 1)), &h)
		if h != nil && h.Range != nil && h.Range.Start.Line > 10 {
			t.Errorf("hover on %s: range %+v", needle, h.Range)
		}
	}
	// A name of the file itself stays there.
	if locs := def(docPos(t, agent, "showOrder]", 0, 1)); len(locs) != 1 || locs[0].URI != b {
		t.Errorf("definition of showOrder = %+v", locs)
	}
}

// TestPackageFileChangedUnreported: a file of the package changed on disk
// with no report from the client is seen by the next analysis of an open
// document once project.RecheckAfter has passed.
func TestPackageFileChangedUnreported(t *testing.T) {
	dir := t.TempDir()
	aPath, bPath := filepath.Join(dir, "a.gram"), filepath.Join(dir, "b.gram")
	for path, text := range map[string]string{aPath: pkgToolsText, bPath: pkgAgentText} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := pathURI(bPath)
	c := newTestClient(t, nil)
	c.open(b, pkgAgentText)
	if p := c.waitDiagnostics(b, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("B with A on disk: %v", diagCodes(p.Diagnostics))
	}
	// lookupOrder leaves a.gram on disk; the client says nothing of it.
	if err := os.WriteFile(aPath, []byte(pkgToolsText[strings.Index(pkgToolsText, "[cancelOrder"):]), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(project.RecheckAfter + 100*time.Millisecond)
	c.change(b, 2, pkgAgentText+"\n")
	p := c.waitDiagnostics(b, 2)
	if got := diagCodes(p.Diagnostics); len(got) != 1 || !strings.Contains(got[0], "lookupOrder") {
		t.Fatalf("B after A changed on disk: %v", got)
	}
}

// TestPackageTestsWhenOthersLeave: the files of a package, one an unsaved
// buffer, edited one after the other until none but the file of tests
// joins: its diagnostics are those `gramc check` gives for the texts, of a
// package of one file, which does not see the agent file it is named
// after on disk (whose buffer no longer joins).
func TestPackageTestsWhenOthersLeave(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"a.gram": `{kind: "agents"}
[lookup:Tool {description: "L"} | (q::Order)==>(::String)]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | lookup, cancel]
`,
		"b.gram": `{kind: "agents"}
[cancel:Tool {description: "C"} | (q::String)==>(::String)]
[Order:Record | (id::Integer)]
`,
		"c.gram": `{kind: "agents"}
[other:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | cancel]
`,
		"a_test.gram": `{kind: "tests"}
[t1:Test {agent: desk} | (:User {says: "hi"}), (:Answer {contains: "x"})]
`,
	}
	names := []string{"a.gram", "a_test.gram", "b.gram", "c.gram"}
	for _, n := range names {
		if n != "c.gram" { // c.gram is an unsaved buffer
			if err := os.WriteFile(filepath.Join(dir, n), []byte(texts[n]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	uri := func(n string) protocol.DocumentURI { return pathURI(filepath.Join(dir, n)) }
	c := newTestClient(t, nil)
	for _, n := range names {
		c.open(uri(n), texts[n])
	}
	for _, n := range names {
		c.waitDiagnostics(uri(n), 1)
	}
	for _, e := range [][2]string{
		{"b.gram", "{ \"agents\"}\n[cancel:} | (q::String)==>(::Strcancel, ing)]\n[Order:Recorddesk | (id::Integer)]\n"},
		{"a.gram", "{kind: \"agents\"}\n][lookup:Tool {description: \"L\"} | (q::Order)==>(:ring)]\nOr(de[desk:Agent {modeenAI/gpt-4o-elp.\"} | lookupl]\n"},
		{"c.gram", "[cancel:Tool {description: \"y\"} | ()=Strng=>(::String)]\n{kind: \"agentsel: \"OpenAI/gpo-mini\", instruction: \"Help.\"} | cancel]\n"},
	} {
		texts[e[0]] = e[1]
		c.change(uri(e[0]), 2, e[1])
	}
	var srcs []project.Source
	for _, n := range names {
		f := diag.NewFile(filepath.Join(dir, n), []byte(texts[n]))
		doc, parsed := parser.Parse(f)
		srcs = append(srcs, project.Source{File: f, Doc: doc, Diags: parsed})
	}
	var want []string
	for _, d := range project.Compile(dir, srcs).Lookup(filepath.Join(dir, "a_test.gram")).Diags {
		want = append(want, d.Code+" "+strings.SplitN(d.Message, "\n", 2)[0])
	}
	if len(want) == 0 {
		t.Fatal("gramc check finds nothing in a_test.gram")
	}
	// The file of tests touched, its text as it was: its diagnostics of
	// version 2 are of the package as the edits left it.
	c.change(uri("a_test.gram"), 2, texts["a_test.gram"])
	if got := diagCodes(c.waitDiagnostics(uri("a_test.gram"), 2).Diagnostics); !slices.Equal(got, want) {
		t.Errorf("a_test.gram after the edits: %v, want %v", got, want)
	}
}

// TestPackageSetAside checks that a file whose name starts with "_" never
// joins its package: a scratch copy of a file clashes with nothing, in
// the original or in itself, which is compiled alone.
func TestPackageSetAside(t *testing.T) {
	dir := t.TempDir()
	aPath, copyPath := filepath.Join(dir, "a.gram"), filepath.Join(dir, "_a.gram")
	for path, text := range map[string]string{
		aPath:                        pkgToolsText,
		filepath.Join(dir, "b.gram"): pkgAgentText,
		copyPath:                     pkgToolsText,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, nil)
	a := pathURI(aPath)
	c.open(a, pkgToolsText)
	if p := c.waitDiagnostics(a, 1); len(p.Diagnostics) != 0 {
		t.Fatalf("a.gram beside _a.gram: %v", diagCodes(p.Diagnostics))
	}
	cp := pathURI(copyPath)
	c.open(cp, pkgToolsText)
	p := c.waitDiagnostics(cp, 1)
	for _, d := range diagCodes(p.Diagnostics) {
		if !strings.HasPrefix(d, "unused-tool") {
			t.Errorf("_a.gram, alone: %s", d)
		}
	}
}

// watchedGlobs returns the glob patterns of the watchers c was asked to
// register, sorted (the registrations are sent concurrently), each as
// often as it was asked for.
func watchedGlobs(t *testing.T, c *testClient) []string {
	t.Helper()
	var globs []string
	for _, raw := range c.received("client/registerCapability") {
		var p protocol.RegistrationParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Registrations {
			if r.Method != "workspace/didChangeWatchedFiles" {
				t.Errorf("registration of %s", r.Method)
			}
			b, _ := json.Marshal(r.RegisterOptions)
			var o protocol.DidChangeWatchedFilesRegistrationOptions
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
			for _, w := range o.Watchers {
				globs = append(globs, w.GlobPattern)
			}
		}
	}
	slices.Sort(globs)
	return globs
}

// TestPackageFilesWatched: a client that registers file watchers
// dynamically is asked, once initialized, to watch the .gram files, once;
// a change reported twice (by that watcher and by one of the client's
// own) has the effect of one.
func TestPackageFilesWatched(t *testing.T) {
	dir := t.TempDir()
	aPath, bPath := filepath.Join(dir, "a.gram"), filepath.Join(dir, "b.gram")
	for path, text := range map[string]string{aPath: pkgToolsText, bPath: pkgAgentText} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startTestClient(t, nil)
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	var res map[string]any
	c.mustCall("initialize", map[string]any{"capabilities": caps, "rootUri": nil}, &res)
	c.notify("initialized", map[string]any{})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && len(watchedGlobs(t, c)) == 0; {
		time.Sleep(5 * time.Millisecond)
	}
	if got := watchedGlobs(t, c); !cmp.Equal(got, []string{"**/*.gram"}) {
		t.Fatalf("watched %q, want **/*.gram", got)
	}

	b := pathURI(bPath)
	c.open(b, pkgAgentText)
	if ds := c.waitDiagnostics(b, 1).Diagnostics; len(ds) != 0 {
		t.Fatalf("b.gram: %v", diagCodes(ds))
	}
	if err := os.WriteFile(aPath, []byte(strings.Replace(pkgToolsText, "lookupOrder", "findOrder", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := map[string]any{"uri": pathURI(aPath), "type": 2}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{changed, changed}})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{changed}})
	ds := c.lastDiagnostics(b, "b.gram after a.gram changed", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	if got := diagCodes(ds); len(got) != 1 || !strings.Contains(ds[0].Message, "lookupOrder") {
		t.Errorf("b.gram after a.gram changed: %v", got)
	}
	if got := watchedGlobs(t, c); len(got) != 1 {
		t.Errorf("watched %q after the change, want **/*.gram alone", got)
	}
}
