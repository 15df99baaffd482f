package ide

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
)

// TestReferencesInOrderAfterEdit: the references of a package's name in a
// version checked from the one before come in the order of the text, as
// those of the same text checked afresh do, though the units the edit left
// keep their positions.
func TestReferencesInOrderAfterEdit(t *testing.T) {
	other := "[B:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	open := map[string]*diag.File{"pkg/other.gram": diag.NewFile("pkg/other.gram", []byte(other))}
	src := &project.Sources{Dir: "pkg", Paths: []string{"pkg/other.gram"}, Open: open}
	check := func(prev *project.Text, edit *project.Edit, text string) *Analysis {
		f := diag.NewFile("pkg/main.gram", []byte(text))
		c := project.Check(f, project.Request{Prev: prev, Edit: edit, Editing: true, Package: src})
		return NewAnalysis(c.File, c.Doc, c.Program, c.Diags, c.Others, nil)
	}
	text := "[t0:Tool {description: \"d\"} | (x::String)==>(::String)]\n[A:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	f := diag.NewFile("pkg/main.gram", []byte(text))
	prev := project.Check(f, project.Request{Editing: true, Package: src})
	added := "[a1:Agent {instruction: \"i\", model: \"OpenAI/gpt-4o-mini\"} | t0]\n"
	next := added + text
	edited := check(prev, &project.Edit{Span: diag.Span{}, NewLen: len(added)}, next)
	fresh := check(nil, nil, next)
	at := strings.LastIndex(next, "t0")
	starts := func(a *Analysis) []int {
		var out []int
		for _, l := range a.References(at, true, nil) {
			if l.File == a.File {
				out = append(out, l.Span.Start)
			}
		}
		return out
	}
	got, want := starts(edited), starts(fresh)
	if !slices.Equal(got, want) || !slices.IsSorted(got) || len(got) != 3 {
		t.Errorf("references after the edit start at %v, afresh at %v", got, want)
	}
}

// renamePkg is a package whose agent declares a tool that its test file
// expects called and not called, and names its agent; the test expects
// JSON of its record.
var renamePkg = []string{
	"{kind: \"agents\"}\n[Bill:Record | (n::Integer)]\n[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} |\n  [cancel:Tool {description: \"Cancels\"} | (id::Integer)==>(::String)]\n]\n",
	"{kind: \"tests\"}\n[t1:Test {agent: desk} |\n  (:User {says: \"hi\"}),\n  (:NoCall {tool: cancel}),\n  (:Call {tool: \"cancel\"}),\n  (:Answer {contains: \"x\"}),\n  (:Answer {json: Bill})\n]\n",
}

// renameIn renames, from the file i of the package texts at the n-th
// (from 0) occurrence of at (its first byte), to newName, and returns
// the texts edited.
func renameIn(t *testing.T, texts []string, i int, at string, n int, newName string) []string {
	t.Helper()
	paths := []string{"pkg/a.gram", "pkg/a_test.gram"}
	a := analyzePackage(t, []string{paths[i], paths[1-i]}, texts[i], texts[1-i])
	off := -1
	for range n + 1 {
		off += 1 + strings.Index(texts[i][off+1:], at)
	}
	changes, err := a.Rename(off, newName, nil)
	if err != nil {
		t.Fatalf("rename at %q: %v", at, err)
	}
	if refs := a.References(off, true, nil); len(refs) != len(changes) {
		t.Errorf("rename at %q: %d references, %d edits", at, len(refs), len(changes))
	}
	out := slices.Clone(texts)
	slices.SortFunc(changes, func(x, y Change) int { return y.Span.Start - x.Span.Start })
	for _, c := range changes {
		j := slices.Index(paths, c.File.Path)
		out[j] = out[j][:c.Span.Start] + c.NewText + out[j][c.Span.End:]
	}
	return out
}

// TestRenameAgentsToolInTests: a tool an agent declares is renamed in the
// tests that expect it, from its declaration and from a test's value; so
// is an agent from the test's agent.
func TestRenameAgentsToolInTests(t *testing.T) {
	want := []string{strings.Replace(renamePkg[0], "cancel:", "stop:", 1), strings.NewReplacer("tool: cancel", "tool: stop", `"cancel"`, `"stop"`).Replace(renamePkg[1])}
	for _, tc := range []struct {
		file int
		at   string
		n    int
	}{{0, "cancel", 0}, {1, "cancel", 0}, {1, "cancel", 1}} {
		if got := renameIn(t, renamePkg, tc.file, tc.at, tc.n, "stop"); !slices.Equal(got, want) {
			t.Errorf("rename from file %d at %q %d:\n%s", tc.file, tc.at, tc.n, strings.Join(got, ""))
		}
	}
	got := renameIn(t, renamePkg, 1, "desk", 0, "clerk")
	if want := []string{strings.Replace(renamePkg[0], "desk", "clerk", 1), strings.Replace(renamePkg[1], "desk", "clerk", 1)}; !slices.Equal(got, want) {
		t.Errorf("rename of the test's agent:\n%s", strings.Join(got, ""))
	}
}

// TestRenameParamInTests: a parameter of a tool is renamed in the
// argument keys and matcher nodes of the tests' Calls of the tool, from
// its declaration and from a test's key; a key of another tool's Call is
// left as it is.
func TestRenameParamInTests(t *testing.T) {
	texts := []string{
		"{kind: \"agents\"}\n[find:Tool {description: \"Finds\"} | (id::Integer)==>(::String)]\n[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} |\n  find,\n  [cancel:Tool {description: \"Cancels\"} | (id::Integer)==>(::String)]\n]\n",
		"{kind: \"tests\"}\n[t1:Test {agent: desk} |\n  (:User {says: \"hi\"}),\n  (:Call {tool: find, args: {id: 1}}),\n  [:Call {tool: cancel, argsInclude: {id: 1}} | (id {any: true})],\n  (:Answer {contains: \"x\"})\n]\n",
	}
	want := []string{strings.Replace(texts[0], "(id::", "(oid::", 1), strings.Replace(texts[1], "args: {id", "args: {oid", 1)}
	for _, tc := range []struct {
		file int
		at   string
		n    int
	}{{0, "id::", 0}, {1, "id:", 0}} {
		if got := renameIn(t, texts, tc.file, tc.at, tc.n, "oid"); !slices.Equal(got, want) {
			t.Errorf("rename from file %d at %q:\n%s", tc.file, tc.at, strings.Join(got, ""))
		}
	}
	wantCancel := []string{strings.Replace(texts[0], "(id::Integer)==>(::String)]\n]", "(oid::Integer)==>(::String)]\n]", 1), strings.NewReplacer("argsInclude: {id", "argsInclude: {oid", "(id {", "(oid {").Replace(texts[1])}
	for _, tc := range []struct {
		file int
		at   string
		n    int
	}{{0, "id::", 1}, {1, "id:", 1}, {1, "id {", 0}} {
		if got := renameIn(t, texts, tc.file, tc.at, tc.n, "oid"); !slices.Equal(got, wantCancel) {
			t.Errorf("rename of cancel's id from file %d at %q %d:\n%s", tc.file, tc.at, tc.n, strings.Join(got, ""))
		}
	}
}

// TestRenameRecordInTests: the record of a json answer check is a
// reference of it: found, described, and renamed from either file.
func TestRenameRecordInTests(t *testing.T) {
	want := []string{strings.Replace(renamePkg[0], "Bill", "Invoice", 1), strings.Replace(renamePkg[1], "Bill", "Invoice", 1)}
	for _, file := range []int{0, 1} {
		if got := renameIn(t, renamePkg, file, "Bill", 0, "Invoice"); !slices.Equal(got, want) {
			t.Errorf("rename from file %d:\n%s", file, strings.Join(got, ""))
		}
	}
	a := analyzePackage(t, []string{"pkg/a_test.gram", "pkg/a.gram"}, renamePkg[1], renamePkg[0])
	off := strings.Index(renamePkg[1], "Bill")
	if loc, ok := a.Definition(off); !ok || loc.File.Path != "pkg/a.gram" || loc.Span.Start != strings.Index(renamePkg[0], "Bill") {
		t.Errorf("definition of the answer's record: %+v", loc)
	}
	if h, ok := a.Hover(off); !ok || !strings.Contains(h.Markdown, "**record** `Bill`") {
		t.Errorf("hover over the answer's record: %+v", h)
	}
}

// TestRenameAgentClashesWithHandoff: an agent is not renamed to a name an
// agent that calls it would have two tools of: the tool of a handoff, or
// a tool of its own named as the renamed agent's handoff tool.
func TestRenameAgentClashesWithHandoff(t *testing.T) {
	agent := func(name, tools string) string {
		return "[" + name + ":Agent {description: \"d\", model: \"OpenAI/gpt-4o-mini\", instruction: \"i\"} |\n  " + tools + "\n]\n"
	}
	text := "[transfer_to_desk:Tool {description: \"d\"} | (x::String)==>(::String)]\n" +
		agent("billing", "transfer_to_desk") + agent("shipping", "transfer_to_desk") + agent("triage", "billing, transfer_to_desk") +
		"(triage)-[:Handoff]->(shipping)\n"
	a := Analyze("x.gram", []byte(text))
	if len(a.Diags) != 0 {
		t.Fatalf("diagnostics: %v", a.Diags)
	}
	for _, tc := range []struct{ at, newName string }{{"billing:", "transfer_to_shipping"}, {"shipping:", "desk"}} {
		_, err := a.Rename(strings.Index(text, tc.at), tc.newName, nil)
		if re, ok := err.(*RenameError); !ok || re.Place || !strings.Contains(re.Msg, "agent triage") {
			t.Errorf("rename at %q to %s: %v", tc.at, tc.newName, err)
		}
	}
	if _, err := a.Rename(strings.Index(text, "billing:"), "biller", nil); err != nil {
		t.Errorf("rename to biller: %v", err)
	}
}

// TestRenameBound: in a text compiled alone, the tool an agent declares
// and the agent are renamed in the bindings file too, and are among the
// references, as a tool of another agent of the same name is not.
func TestRenameBound(t *testing.T) {
	text := renamePkg[0] + "[other:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} |\n  [cancel:Tool {description: \"Also\"} | (id::Integer)==>(::String)]\n]\n"
	bindings := "{kind: \"bindings\"}\n(cancel:Program {command: \"true\"})\n(:Model {agent: \"desk\", model: \"OpenAI/gpt-4o\"})\n"
	f := diag.NewFile("bindings.gram", []byte(bindings))
	doc, _ := project.Parse(f)
	b := &project.Source{File: f, Doc: doc}
	a := Analyze("a.gram", []byte(text))
	for _, tc := range []struct{ at, newName, bound string }{
		{"cancel:", "void", "void:Program"},
		{"desk:", "counter", `agent: "counter"`},
		{"cancel:Tool {description: \"Also", "void", ""},
	} {
		off := strings.Index(text, tc.at)
		changes, err := a.Rename(off, tc.newName, b)
		edited := bindings
		for _, c := range changes {
			if c.File == f {
				edited = edited[:c.Span.Start] + c.NewText + edited[c.Span.End:]
			}
		}
		refs := a.References(off, true, b)
		inBindings := slices.ContainsFunc(refs, func(l Location) bool { return l.File == f })
		if err != nil || strings.Contains(edited, tc.newName) != (tc.bound != "") || !strings.Contains(edited, tc.bound) || inBindings != (tc.bound != "") {
			t.Errorf("rename at %q: %v, the bindings file:\n%s\nreferences there: %v", tc.at, err, edited, inBindings)
		}
	}
}
