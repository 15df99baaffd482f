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

const xrefOtherAgent = `[other:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Look orders up."} |
  lookupOrder
]
`

// xrefTests is a test file of the package: it names the agent of b.gram
// and the tools of a.gram as property values, bare and quoted.
const xrefTests = `{kind: "tests"}

[looks_up:Test {agent: other} |
  (:User {says: "What is the status of order 1?"}),
  (:Call {tool: lookupOrder}),
  (:Answer {contains: "1"})
]
[does_not_cancel:Test {agent: "desk"} |
  (:User {says: "What is the status of order 1?"}),
  (:Call {tool: "lookupOrder"}),
  (:NoCall {tool: cancelOrder})
]
`

// xrefPackage writes a package of four files: a.gram declares the tools,
// b.gram and c.gram have agents listing them, d_test.gram tests the
// agents. A is opened with a buffer two lines below its text on disk, B
// is opened, C and D stay on disk. It returns the client, the URIs and
// each file's text as the server sees it.
func xrefPackage(t *testing.T) (*testClient, [4]protocol.DocumentURI, map[protocol.DocumentURI]string) {
	t.Helper()
	dir := t.TempDir()
	names := [4]string{"a.gram", "b.gram", "c.gram", "d_test.gram"}
	texts := []string{pkgToolsText, pkgAgentText, xrefOtherAgent, xrefTests}
	var uris [4]protocol.DocumentURI
	seen := map[protocol.DocumentURI]string{}
	for i, n := range names {
		path := filepath.Join(dir, n)
		if err := os.WriteFile(path, []byte(texts[i]), 0o644); err != nil {
			t.Fatal(err)
		}
		uris[i] = pathURI(path)
		seen[uris[i]] = texts[i]
	}
	c := newTestClient(t, nil)
	seen[uris[0]] = "\n\n" + pkgToolsText
	c.open(uris[0], seen[uris[0]])
	c.open(uris[1], pkgAgentText)
	c.lastDiagnostics(uris[1], "B", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	return c, uris, seen
}

// locString writes a location as "file line:col-line:col".
func locString(l protocol.Location) string {
	r := l.Range
	return fmt.Sprintf("%s %d:%d-%d:%d", filepath.Base(uriPath(l.URI)), r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

// TestPackageReferences asks for the references of a tool declared in one
// file from its use in another: the declaration (in the open buffer, not
// the disk) and the uses in both agent files come back, each with its
// file's URI and a range in that file.
func TestPackageReferences(t *testing.T) {
	c, uris, _ := xrefPackage(t)
	a, b := uris[0], uris[1]
	refs := func(uri protocol.DocumentURI, pos protocol.Position, decl bool) []string {
		var locs []protocol.Location
		c.mustCall("textDocument/references", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": pos, "context": map[string]any{"includeDeclaration": decl}}, &locs)
		var out []string
		for _, l := range locs {
			out = append(out, locString(l))
		}
		slices.Sort(out)
		return out
	}
	want := []string{"a.gram 2:1-2:12", "b.gram 1:2-1:13", "c.gram 1:2-1:13", "d_test.gram 4:16-4:27", "d_test.gram 9:16-9:29"}
	if got := refs(b, docPos(t, pkgAgentText, "lookupOrder", 0, 3), true); !slices.Equal(got, want) {
		t.Errorf("references from B's use = %v, want %v", got, want)
	}
	if got := refs(b, docPos(t, pkgAgentText, "lookupOrder", 0, 3), false); !slices.Equal(got, want[1:]) {
		t.Errorf("references from B's use, no declaration = %v, want %v", got, want[1:])
	}
	// From the declaration, the same.
	if got := refs(a, protocol.Position{Line: 2, Character: 4}, true); !slices.Equal(got, want) {
		t.Errorf("references from A's declaration = %v, want %v", got, want)
	}
	// cancelOrder is not listed by C.
	if got := refs(b, docPos(t, pkgAgentText, "cancelOrder", 0, 3), true); !slices.Equal(got, []string{"a.gram 5:1-5:12", "b.gram 2:2-2:13", "d_test.gram 10:18-10:29"}) {
		t.Errorf("references of cancelOrder = %v", got)
	}
	// Highlights stay in the document.
	var hs []protocol.DocumentHighlight
	c.mustCall("textDocument/documentHighlight", tdp(b, docPos(t, pkgAgentText, "lookupOrder", 0, 3)), &hs)
	if len(hs) > 1 {
		t.Errorf("highlights of lookupOrder in B = %+v", hs)
	}
}

// TestPackageRename renames a tool from its use in another file: every
// file of the package is edited and the package checks clean afterwards; a
// new name another file of the package declares is refused.
func TestPackageRename(t *testing.T) {
	c, uris, texts := xrefPackage(t)
	b := uris[1]
	pos := docPos(t, pkgAgentText, "lookupOrder", 0, 3)
	var r *protocol.Range
	c.mustCall("textDocument/prepareRename", tdp(b, pos), &r)
	if r == nil || *r != rng(1, 2, 1, 13) {
		t.Fatalf("prepareRename from B's use = %+v", r)
	}
	rename := func(uri protocol.DocumentURI, pos protocol.Position, name string) (*protocol.WorkspaceEdit, error) {
		var we *protocol.WorkspaceEdit
		err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos, "newName": name}, &we)
		return we, err
	}
	// Clashes: an agent of B, a tool of A, an agent of C (which does not
	// declare the tool).
	for _, clash := range []string{"desk", "cancelOrder", "other"} {
		if _, err := rename(b, pos, clash); err == nil || !strings.Contains(err.Error(), "already") {
			t.Errorf("rename to %s: err = %v, want a clash", clash, err)
		}
	}
	// An agent: its declaration and the test that names it.
	if we, err := rename(b, docPos(t, pkgAgentText, "desk", 0, 1), "counter"); err != nil || len(we.Changes) != 2 || len(we.Changes[b]) != 1 ||
		applyEdits(t, xrefTests, we.Changes[uris[3]]) != strings.Replace(xrefTests, `"desk"`, `"counter"`, 1) {
		t.Errorf("rename of agent desk: %+v, %v", we, err)
	}
	if _, err := rename(b, pos, "bad name"); err == nil || !strings.Contains(err.Error(), "not a valid tool name") {
		t.Errorf("rename to an invalid name: %v", err)
	}
	we, err := rename(b, pos, "findOrder")
	if err != nil {
		t.Fatal(err)
	}
	if len(we.Changes) != 4 {
		t.Fatalf("rename edits %d files, want 4: %+v", len(we.Changes), we.Changes)
	}
	var srcs []project.Source
	for i, u := range uris {
		edits := we.Changes[u]
		if want := []int{1, 1, 1, 2}[i]; len(edits) != want {
			t.Errorf("%s: %d edits, want %d", u, len(edits), want)
		}
		text := applyEdits(t, texts[u], edits)
		if strings.Contains(text, "lookupOrder") || !strings.Contains(text, "findOrder") {
			t.Errorf("%s after the rename:\n%s", u, text)
		}
		f := diag.NewFile(uriPath(u), []byte(text))
		doc, parsed := parser.Parse(f)
		srcs = append(srcs, project.Source{File: f, Doc: doc, Diags: parsed})
	}
	if got := applyEdits(t, xrefTests, we.Changes[uris[3]]); !strings.Contains(got, `{tool: "findOrder"}`) || !strings.Contains(got, "{tool: findOrder}") {
		t.Errorf("the test file after the rename:\n%s", got)
	}
	pkg := project.Compile(filepath.Dir(uriPath(b)), srcs)
	if len(pkg.Files) != 4 {
		t.Fatalf("%d files compiled", len(pkg.Files))
	}
	for _, f := range pkg.Files {
		if !f.Member || len(f.Diags) > 0 {
			t.Errorf("%s after the rename: member %v, %v", f.File.Path, f.Member, f.Diags)
		}
	}
}

// TestPackageFileDeleted deletes on disk the file that declares the tools
// the open files list: once the client reports it, their diagnostics are
// published again and report the tools undefined.
func TestPackageFileDeleted(t *testing.T) {
	dir := t.TempDir()
	aPath := filepath.Join(dir, "a.gram")
	for name, text := range map[string]string{"a.gram": pkgToolsText, "b.gram": pkgAgentText, "c.gram": xrefOtherAgent} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, cu := pathURI(filepath.Join(dir, "b.gram")), pathURI(filepath.Join(dir, "c.gram"))
	c := newTestClient(t, nil)
	c.open(b, pkgAgentText)
	c.open(cu, xrefOtherAgent)
	c.lastDiagnostics(b, "B", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	c.lastDiagnostics(cu, "C", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	if err := os.Remove(aPath); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(aPath), "type": 3}}})
	undefined := func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == "undefined-reference" && strings.Contains(d.Message, "lookupOrder") {
				return true
			}
		}
		return false
	}
	ds := c.lastDiagnostics(b, "B after A deleted", undefined)
	if got := diagCodes(ds); len(got) != 2 {
		t.Errorf("B after A deleted: %v", got)
	}
	c.lastDiagnostics(cu, "C after A deleted", undefined)
}

// TestPackageRenameRecord renames a record from a type that names it in
// another file: the declaration and every type naming it are edited, and
// the package checks clean.
func TestPackageRenameRecord(t *testing.T) {
	dir := t.TempDir()
	records := "[Order:Record |\n  (id::Integer)\n]\n"
	tools := `[showOrder:Tool {description: "Shows an order"} |
  (order::Order)==>(::String)
]
[listOrders:Tool {description: "Lists orders"} |
  (all::Boolean)==>(::Array {items: Order})
]
[shower:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Show."} | showOrder, listOrders]
`
	texts := map[protocol.DocumentURI]string{}
	for name, text := range map[string]string{"records.gram": records, "tools.gram": tools} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		texts[pathURI(path)] = text
	}
	ru, tu := pathURI(filepath.Join(dir, "records.gram")), pathURI(filepath.Join(dir, "tools.gram"))
	c := newTestClient(t, nil)
	c.open(tu, tools)
	c.lastDiagnostics(tu, "tools", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	pos := docPos(t, tools, "Order)", 0, 1)
	var locs []protocol.Location
	c.mustCall("textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": tu}, "position": pos, "context": map[string]any{"includeDeclaration": true}}, &locs)
	var got []string
	for _, l := range locs {
		got = append(got, locString(l))
	}
	slices.Sort(got)
	if want := []string{"records.gram 0:1-0:6", "tools.gram 1:10-1:15", "tools.gram 4:36-4:41"}; !slices.Equal(got, want) {
		t.Errorf("references of Order = %v, want %v", got, want)
	}
	var we *protocol.WorkspaceEdit
	c.mustCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": tu}, "position": pos, "newName": "Purchase"}, &we)
	if len(we.Changes[ru]) != 1 || len(we.Changes[tu]) != 2 {
		t.Errorf("rename of Order: %+v", we.Changes)
	}
	var srcs []project.Source
	for u, text := range texts {
		text = applyEdits(t, text, we.Changes[u])
		if strings.Contains(text, "[Order:") || strings.Contains(text, "items: Order") || strings.Contains(text, "::Order") {
			t.Errorf("%s after the rename:\n%s", u, text)
		}
		f := diag.NewFile(uriPath(u), []byte(text))
		doc, parsed := parser.Parse(f)
		srcs = append(srcs, project.Source{File: f, Doc: doc, Diags: parsed})
	}
	slices.SortFunc(srcs, func(a, b project.Source) int { return strings.Compare(a.File.Path, b.File.Path) })
	for _, f := range project.Compile(dir, srcs).Files {
		if !f.Member || len(f.Diags) > 0 {
			t.Errorf("%s after the rename: member %v, %v", f.File.Path, f.Member, f.Diags)
		}
	}
}

// xrefBindings binds lookupOrder and the agent desk of the package, and
// the names bound and boss.
const xrefBindings = `{kind: "bindings"}
(lookupOrder:Program {command: "sh", args: ["orders.sh"]})
(bound:Program {command: "true"})
(:Model {agent: "desk", model: "OpenAI/gpt-4o", retries: 1})
(:Model {agent: "boss", model: "OpenAI/gpt-4o"})
`

// TestBindingsRename renames a tool and an agent that the project's
// bindings file (in the repository's root, above the package, open with a
// line more than on disk) binds: the rename edits the binding, and
// references list it; a new name the file binds is refused; a bindings
// file of another directory is not the package's.
func TestBindingsRename(t *testing.T) {
	root := writeTree(t, map[string]string{
		".git/HEAD": "", "bindings.gram": xrefBindings, "other/bindings.gram": xrefBindings,
		"shop/a.gram": pkgToolsText, "shop/b.gram": pkgAgentText,
	})
	dir := filepath.Join(root, "shop")
	b, bu := pathURI(filepath.Join(dir, "b.gram")), pathURI(filepath.Join(root, "bindings.gram"))
	c := newTestClient(t, nil)
	c.open(bu, "// The shop's bindings.\n"+xrefBindings)
	c.open(b, pkgAgentText)
	c.lastDiagnostics(b, "B", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	rename := func(pos protocol.Position, name string) (*protocol.WorkspaceEdit, error) {
		var we *protocol.WorkspaceEdit
		err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": b}, "position": pos, "newName": name}, &we)
		return we, err
	}
	tool, agent := docPos(t, pkgAgentText, "lookupOrder", 0, 3), docPos(t, pkgAgentText, "desk", 0, 1)
	for _, tc := range []struct {
		pos   protocol.Position
		files int // the files edited
		want  protocol.TextEdit
	}{
		{tool, 3, protocol.TextEdit{Range: rng(2, 1, 2, 12), NewText: "findOrder"}},
		{agent, 2, protocol.TextEdit{Range: rng(4, 16, 4, 22), NewText: `"findOrder"`}},
	} {
		we, err := rename(tc.pos, "findOrder")
		if err != nil || !slices.Equal(we.Changes[bu], []protocol.TextEdit{tc.want}) || len(we.Changes) != tc.files {
			t.Errorf("rename at %v: %+v, %v; want the bindings edit %+v", tc.pos, we, err, tc.want)
		}
	}
	for pos, clash := range map[protocol.Position]string{tool: "bound", agent: "boss"} {
		if _, err := rename(pos, clash); err == nil || !strings.Contains(err.Error(), "bindings.gram") {
			t.Errorf("rename to %s: err = %v, want a clash with the bindings", clash, err)
		}
	}
	var locs []protocol.Location
	c.mustCall("textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": b}, "position": tool, "context": map[string]any{"includeDeclaration": true}}, &locs)
	if !slices.ContainsFunc(locs, func(l protocol.Location) bool { return l.URI == bu && l.Range == rng(2, 1, 2, 12) }) || len(locs) != 3 {
		t.Errorf("references of lookupOrder = %+v, want its binding among them", locs)
	}
}

// writeTree writes the files of texts, by their paths in a new directory,
// and returns the directory.
func writeTree(t *testing.T, texts map[string]string) string {
	root := t.TempDir()
	for path, text := range texts {
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// injectTools inject customerId into lookupOrder and tenant into
// lookupOrder and cancelOrder.
const injectTools = `[lookupOrder:Tool {description: "Looks an order up"} |
  (orderId::Integer)==>(customerId::String {injected: true})==>(tenant::String {injected: true})==>(::String)
]
[cancelOrder:Tool {description: "Cancels an order"} |
  (orderId::Integer)==>(tenant::String {injected: true})==>(::String)
]
`

// TestBindingsRenameInject renames an injected parameter that the
// project's bindings file injects: the rename edits the Inject binding,
// and references list it; a new name the file binds is refused; so is the
// rename of a parameter whose binding injects another tool's parameter of
// the name too, unless the new name is bound apart, when the binding is
// left to that one.
func TestBindingsRenameInject(t *testing.T) {
	bindings := "{kind: \"bindings\"}\n(customerId:Inject {value: \"c-7\"})\n(tenant:Inject {env: \"SHOP_TENANT\"})\n(org:Inject {value: \"o\"})\n"
	root := writeTree(t, map[string]string{
		".git/HEAD": "", "bindings.gram": bindings, "shop/a.gram": injectTools, "shop/b.gram": pkgAgentText,
	})
	a, bu := pathURI(filepath.Join(root, "shop", "a.gram")), pathURI(filepath.Join(root, "bindings.gram"))
	c := newTestClient(t, nil)
	c.open(a, injectTools)
	c.lastDiagnostics(a, "A", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	rename := func(pos protocol.Position, name string) (*protocol.WorkspaceEdit, error) {
		var we *protocol.WorkspaceEdit
		err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": a}, "position": pos, "newName": name}, &we)
		return we, err
	}
	customer, tenant := docPos(t, injectTools, "customerId", 0, 1), docPos(t, injectTools, "tenant", 1, 1)
	we, err := rename(customer, "clientId")
	if want := []protocol.TextEdit{{Range: rng(1, 1, 1, 11), NewText: "clientId"}}; err != nil || !slices.Equal(we.Changes[bu], want) {
		t.Errorf("rename of customerId: %+v, %v; want the bindings edit %+v", we, err, want)
	}
	var locs []protocol.Location
	c.mustCall("textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": a}, "position": customer, "context": map[string]any{"includeDeclaration": true}}, &locs)
	if !slices.ContainsFunc(locs, func(l protocol.Location) bool { return l.URI == bu && l.Range == rng(1, 1, 1, 11) }) {
		t.Errorf("references of customerId = %+v, want its Inject binding among them", locs)
	}
	for _, tc := range []struct {
		pos  protocol.Position
		name string
		want string // in the error
	}{{customer, "org", "already bound"}, {tenant, "account", "tool lookupOrder"}} {
		if _, err := rename(tc.pos, tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("rename to %s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if we, err := rename(tenant, "org"); err != nil || len(we.Changes[bu]) != 0 || len(we.Changes) != 1 {
		t.Errorf("rename of cancelOrder's tenant to org, bound apart: %+v, %v; want the file's edits only", we, err)
	}
}

// TestBindingsRenameInjectServed: the rename of an injected parameter is
// refused when the Inject binding serves another package's tool too (a
// subdirectory the bindings file is the bindings file of), not when that
// package has a bindings file of its own.
func TestBindingsRenameInjectServed(t *testing.T) {
	tool := "[lookupOrder:Tool {description: \"Looks an order up\"} |\n  (orderId::Integer)==>(customerId::String {injected: true})==>(::String)\n]\n"
	other := strings.ReplaceAll(tool, "lookupOrder", "chargeCard")
	root := writeTree(t, map[string]string{
		".git/HEAD": "", "bindings.gram": "{kind: \"bindings\"}\n(customerId:Inject {value: \"c-7\"})\n", "shop/a.gram": tool,
		"own/bindings.gram": "{kind: \"bindings\"}\n", "own/c.gram": other,
	})
	a, bu := pathURI(filepath.Join(root, "shop", "a.gram")), pathURI(filepath.Join(root, "bindings.gram"))
	c := newTestClient(t, nil)
	c.open(a, tool)
	c.lastDiagnostics(a, "A", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	rename := func() (*protocol.WorkspaceEdit, error) {
		var we *protocol.WorkspaceEdit
		err := c.call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": a}, "position": docPos(t, tool, "customerId", 0, 1), "newName": "clientId"}, &we)
		return we, err
	}
	if we, err := rename(); err != nil || len(we.Changes[bu]) != 1 {
		t.Errorf("rename with the other tool under its own bindings file: %+v, %v; want the binding renamed", we, err)
	}
	if err := os.MkdirAll(filepath.Join(root, "billing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "billing", "c.gram"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rename(); err == nil || !strings.Contains(err.Error(), "tool chargeCard") {
		t.Errorf("rename with billing's chargeCard served too: err = %v, want it refused", err)
	}
}
