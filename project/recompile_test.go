package project

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestRecompileMatchesCompile: a package compiled again after an edit of
// one file, from the previous compile, has the diagnostics and programs of
// a package compiled afresh, in every file, including those the project
// adds across files (undefined references, did-you-mean, a data file);
// and an edit inside a string takes the files it does not touch.
func TestRecompileMatchesCompile(t *testing.T) {
	files := []struct{ path, text string }{
		{"d/agents.gram", "[support:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | getOrder, cancelOrder]\n"},
		{"d/data.gram", "(getOrder {price: 3})\n"},
		{"d/other.gram", "[solo:Tool {description: \"Alone\"} | (q::String)==>(::String)]\n[soloAgent:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Solo.\"} | solo]\n"},
		{"d/tools.gram", "[Order:Record | (id::Integer)]\n[getOrder:Tool {description: \"Fetches\"} | (orderId::Integer)==>(::Order)]\n[cancelOrder:Tool {description: \"Cancels\"} | (orderId::Integer)==>(::Order)]\n"},
		{"d/agents_test.gram", "[t1:Test {agent: support} | (:User {says: \"Where?\"}), (:Call {tool: getOrder, args: {orderId: 7}}), (:Answer {contains: \"x\"})]\n"},
	}
	srcs := make([]Source, len(files))
	parse := func(path, text string) Source {
		f := diag.NewFile(path, []byte(text))
		doc, diags := parser.Parse(f)
		return Source{File: f, Doc: doc, Diags: diags}
	}
	for i, f := range files {
		srcs[i] = parse(f.path, f.text)
	}
	pkg := Recompile(nil, "d", srcs)
	edits := []struct {
		file      int
		from, to  string
		takesSome bool
	}{
		{3, "Fetches", "Fetches one", true},
		{0, "Help.", "Help them.", true},
		{0, "cancelOrder]", "cancelOrdr]", false},
		{0, "cancelOrdr]", "cancelOrder]", false},
		{3, "[cancelOrder:Tool", "[cancelOrder2:Tool", false},
		{2, "Alone", "Alone again", true},
		{1, "price: 3", "price: 4", true},
		{3, "(id::Integer)", "(id::String)", true},
		{4, "Where?", "Where is it?", true},
	}
	for _, e := range edits {
		text := string(srcs[e.file].File.Bytes())
		if !strings.Contains(text, e.from) {
			t.Fatalf("%q is not in %s", e.from, files[e.file].path)
		}
		srcs = append([]Source(nil), srcs...)
		srcs[e.file] = parse(files[e.file].path, strings.Replace(text, e.from, e.to, 1))
		got := Recompile(pkg, "d", srcs)
		want := Compile("d", srcs)
		if g, w := diagLines(got), diagLines(want); g != w {
			t.Fatalf("after %q → %q: diagnostics\n%s\nwant\n%s", e.from, e.to, g, w)
		}
		taken := 0
		for i, f := range got.Files {
			w := want.Files[i]
			if !reflect.DeepEqual(f.Diags, w.Diags) || f.Member != w.Member || f.Test != w.Test {
				t.Fatalf("after %q → %q: file %s differs", e.from, e.to, f.File.Path)
			}
			if f.Member && !f.Test && f.Program == pkg.Files[i].Program {
				taken++
			}
		}
		if e.takesSome && taken == 0 {
			t.Errorf("after %q → %q: no member file was taken from the previous compile", e.from, e.to)
		}
		pkg = got
	}
}

// TestRecompileNameInTwoFiles: a name two files declare is reported in
// both, each with the other's place as its related location; when an
// edit moves the place in one file, the other file's diagnostic gives the
// new place.
func TestRecompileNameInTwoFiles(t *testing.T) {
	const tool = "[dup:Tool {description: \"D\"} | (q::String)==>(::String)]\n"
	const agent = "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"} | dup]\n"
	srcs := []Source{}
	for _, f := range []struct{ path, text string }{{"d/a.gram", tool + agent}, {"d/b.gram", tool}} {
		file := diag.NewFile(f.path, []byte(f.text))
		doc, diags := parser.Parse(file)
		srcs = append(srcs, Source{File: file, Doc: doc, Diags: diags})
	}
	pkg := Recompile(nil, "d", srcs)
	if got := diagLines(pkg); !strings.Contains(got, "d/b.gram: duplicate-definition: tool dup is also declared in another file of the package | the files of a directory form one package with one namespace: rename one of them, or remove one → d/a.gram:1:2: tool dup is declared here") {
		t.Fatalf("before the edit:\n%s", got)
	}
	file := diag.NewFile("d/a.gram", []byte("// moved\n\n"+tool+agent))
	doc, diags := parser.Parse(file)
	srcs[0] = Source{File: file, Doc: doc, Diags: diags}
	got := diagLines(Recompile(pkg, "d", srcs))
	if want := diagLines(Compile("d", srcs)); got != want {
		t.Fatalf("diagnostics\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, "→ d/a.gram:3:2: tool dup is declared here") {
		t.Fatalf("b.gram does not name the new place of dup in a.gram:\n%s", got)
	}
}

// TestRecompileSuggestionInOtherFile: the did-you-mean of a reference that
// names nothing gives the declaration it means in another file as a
// related location; when an edit moves that declaration, the file of the
// reference is compiled again and gives the new place.
func TestRecompileSuggestionInOtherFile(t *testing.T) {
	const tool = "[lookup:Tool {description: \"L\"} | (q::String)==>(::String)]\n"
	const agent = "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"} | lookpu]\n"
	srcs := []Source{}
	for _, f := range []struct{ path, text string }{{"d/a.gram", agent}, {"d/t.gram", tool}} {
		file := diag.NewFile(f.path, []byte(f.text))
		doc, diags := parser.Parse(file)
		srcs = append(srcs, Source{File: file, Doc: doc, Diags: diags})
	}
	pkg := Recompile(nil, "d", srcs)
	if got := diagLines(pkg); !strings.Contains(got, `d/a.gram: undefined-reference: "lookpu" is not defined | did you mean "lookup"? → d/t.gram:1:2: tool lookup is declared here`) {
		t.Fatalf("before the edit:\n%s", got)
	}
	file := diag.NewFile("d/t.gram", []byte("// moved\n\n"+tool))
	doc, diags := parser.Parse(file)
	srcs[1] = Source{File: file, Doc: doc, Diags: diags}
	got := diagLines(Recompile(pkg, "d", srcs))
	if want := diagLines(Compile("d", srcs)); got != want {
		t.Fatalf("diagnostics\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, "→ d/t.gram:3:2: tool lookup is declared here") {
		t.Fatalf("a.gram does not give the new place of lookup in t.gram:\n%s", got)
	}
}
