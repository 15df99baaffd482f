package ide

import (
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// analyzePackage compiles the texts of a package, by path, and returns
// the analysis of the first with the others as its package.
func analyzePackage(t *testing.T, paths []string, texts ...string) *Analysis {
	t.Helper()
	var docs []*parser.Document
	var files []*diag.File
	for i, text := range texts {
		f := diag.NewFile(paths[i], []byte(text))
		doc, _ := parser.Parse(f)
		docs, files = append(docs, doc), append(files, f)
	}
	progs, diags := schema.CompilePackage(docs, nil)
	var others []*project.File
	for i := 1; i < len(files); i++ {
		others = append(others, &project.File{File: files[i], Doc: docs[i], Program: progs[i], Diags: diags[i]})
	}
	return NewAnalysis(files[0], docs[0], progs[0], diags[0], others, nil)
}

// TestPackageNames: in a package, a tool another file declares is
// described, found and offered with the file it is declared in.
func TestPackageNames(t *testing.T) {
	agent := "[clerk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | lookup]\n"
	tools := "[lookup:Tool {description: \"Finds an order\"} | (id::String)==>(::String)]\n" +
		"[notify:Tool {description: \"Sends a note\"} | (to::String)==>(::Boolean)]\n"
	a := analyzePackage(t, []string{"dir/agent.gram", "dir/tools.gram"}, agent, tools)
	if len(a.Diags) != 0 {
		t.Fatalf("diagnostics: %v", a.Diags)
	}
	ref := strings.Index(agent, "lookup") + 1
	h, ok := a.Hover(ref)
	if !ok || !strings.Contains(h.Markdown, "**tool** `lookup`") || !strings.Contains(h.Markdown, "Declared in `tools.gram`") {
		t.Errorf("hover over another file's tool: %+v", h)
	}
	loc, ok := a.Definition(ref)
	if !ok || loc.File.Path != "dir/tools.gram" || string(loc.File.Bytes()[loc.Span.Start:loc.Span.End]) != "lookup" {
		t.Errorf("definition of another file's tool: %+v", loc)
	}
	typing := strings.Replace(agent, "lookup]", "lookup, no]", 1)
	a = analyzePackage(t, []string{"dir/agent.gram", "dir/tools.gram"}, typing, tools)
	c := a.Complete(strings.Index(typing, "no]") + 2)
	var notify *Completion
	for i, it := range c.Items {
		if it.Label == "lookup" {
			t.Errorf("the listed tool lookup is offered again")
		}
		if it.Label == "notify" {
			notify = &c.Items[i]
		}
	}
	if notify == nil || notify.Detail != "tools.gram: (to::String)==>(::Boolean)" || notify.Doc != "Sends a note" {
		t.Fatalf("notify among %+v", c.Items)
	}
	if r, ok := a.ResolveTool("notify"); !ok || r.Detail != notify.Detail {
		t.Errorf("resolve notify: %+v", r)
	}
}

// TestDefinition finds the definition of a reference in the text, and of
// a test's agent written as a string.
func TestDefinition(t *testing.T) {
	text := sample + "[t:Test {agent: \"clerk\"} | (:User {says: \"hi\"})]\n"
	a := Analyze("sample.gram", []byte(text))
	for _, tc := range []struct{ what string }{{"getOrder\n]"}, {"clerk\""}} {
		loc, ok := a.Definition(strings.Index(text, tc.what) + 1)
		name := strings.Trim(tc.what[:strings.IndexAny(tc.what, "\n\"")], " ")
		if !ok || loc.File != a.File || string(text[loc.Span.Start:loc.Span.End]) != name || loc.Span.Start != strings.Index(text, name) {
			t.Errorf("definition at %q: %+v", tc.what, loc)
		}
	}
	if _, ok := a.Definition(strings.Index(text, "model")); ok {
		t.Error("a property key has a definition")
	}
}

// TestCompleteLeavesOutKeysAfterTheCursor: a key written after the cursor
// in the same record is not offered again.
func TestCompleteLeavesOutKeysAfterTheCursor(t *testing.T) {
	text := "[a:Agent {model: \"OpenAI/x\", , instruction: \"i\"}]\n"
	c := Analyze("t.gram", []byte(text)).Complete(strings.Index(text, ", ,") + 2)
	got := labels(c)
	for _, k := range []string{"model", "instruction"} {
		for _, l := range got {
			if l == k {
				t.Errorf("%s is offered: %v", k, got)
			}
		}
	}
	if len(got) == 0 {
		t.Error("no key offered")
	}
}

// TestCompleteReadsKeysAfterTheCursorAsBefore: a key written after the
// cursor without its separator yet is a key written, as it is before the
// cursor.
func TestCompleteReadsKeysAfterTheCursorAsBefore(t *testing.T) {
	for _, text := range []string{
		"[a:Agent {model: \"OpenAI/x\", §, instruction}]\n",
		"[a:Agent {instruction, model: \"OpenAI/x\", §}]\n",
	} {
		at := strings.Index(text, "§")
		text = strings.Replace(text, "§", "", 1)
		got := labels(Analyze("t.gram", []byte(text)).Complete(at))
		if slices.Contains(got, "instruction") || !slices.Contains(got, "description") {
			t.Errorf("%q: %v", text, got)
		}
	}
}
