package schema

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// recompileEdits are what the random edits of TestRecompileMatchesCompile
// type: characters of descriptions, names, types and brackets.
var recompileEdits = []string{"x", "", "", "\"", "]", "[", "(", ")", ",", " ", "::Integer", "::Item1", "::Nope", "Record", ":Tool", "lookup1", "{k: 1}", "\n", "=>", "// c\n",
	// A declaration split in two, one added, an agent added that lists a
	// tool, a string left open.
	"]\n[split:Tool {description: \"s\"} | ", "\n[added:Tool {description: \"a\"} | (a::String)==>(::String)]\n",
	"\n[helper:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"i\"} | lookup1]\n", "\"open",
	// Composition: an agent listed, a signature element, a handoff.
	", helper", "(q::String)==>(::String), ", "\n(helper)-[:Handoff]->(helper)\n"}

// typingSpan returns the bytes of text a random edit replaces: inside a
// string (where typing happens) but one time in inString, anywhere then; a
// few bytes, or one time in cutOne up to cutMax (whole declarations
// removed, or cut across).
func typingSpan(rng *rand.Rand, text []byte, inString, cutOne, cutMax int) (at, end int) {
	at = rng.IntN(len(text) + 1)
	if quotes := strings.Count(string(text), "\""); quotes > 0 && rng.IntN(inString) > 0 {
		q := rng.IntN(quotes)
		at = strings.Index(string(text), "\"")
		for ; q > 0; q-- {
			at += 1 + strings.Index(string(text[at+1:]), "\"")
		}
		at = min(at+1+rng.IntN(3), len(text))
	}
	end = min(at+rng.IntN(2)*rng.IntN(4), len(text))
	if rng.IntN(cutOne) == 0 {
		end = min(at+rng.IntN(cutMax), len(text))
	}
	return at, end
}

// TestRecompileMatchesCompile: after random edits, most of them typing
// inside a declaration's strings, compiling the edited document again from
// the previous program gives exactly what compiling it afresh gives, the
// program and the diagnostics, also along chains of edits; and the previous
// results are taken for most edits inside a declaration.
func TestRecompileMatchesCompile(t *testing.T) {
	files, _ := filepath.Glob("../testdata/schema/*.gram")
	texts := []string{gramgen.AgentFile(600)}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	reused, total := 0, 0
	for ti, text := range texts {
		doc, _ := parser.Parse(diag.NewFile("t.gram", []byte(text)))
		prog, _ := Compile(doc)
		for step := 0; step < 60; step++ {
			old := doc.File.Bytes()
			at, end := typingSpan(rng, old, 4, 12, 400)
			ins := recompileEdits[rng.IntN(len(recompileEdits))]
			text := string(old[:at]) + ins + string(old[end:])
			edit := diag.Span{Start: at, End: end}
			ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(text)), edit, len(ins))
			got, gotDiags := Recompile(prog, ndoc)
			want, wantDiags := Compile(ndoc)
			if ti == 0 {
				// The agent file: the files of a few declarations have
				// none to take when the one edited is compiled again.
				total++
				if tookSteps(got, prog) {
					reused++
				}
			}
			if !reflect.DeepEqual(gotDiags, wantDiags) {
				t.Fatalf("file %d, edit %d (%v by %q): diagnostics\n%v\nwant\n%v", ti, step, edit, ins, gotDiags, wantDiags)
			}
			if !sameProgram(got, want) {
				t.Fatalf("file %d, edit %d (%v by %q): the programs differ", ti, step, edit, ins)
			}
			doc, prog = ndoc, got
		}
	}
	// Edits whose results depend on another declaration than the one
	// edited: an inline tool another agent lists, renamed or made a record;
	// a listed tool's name; a record's field type.
	for _, c := range []struct{ from, to string }{
		{"[greet:Tool", "[greetx:Tool"},
		{"[greet:Tool", "[greet:Record"},
		{"[lookup:Tool", "[lookupx:Tool"},
		{"Greets", "Greets x"},
		{"(id::Integer)", "(id::String)"},
		{"lookup,\n", "lookup, lookup,\n"},
	} {
		const text = `[Item:Record | (id::Integer)]
[lookup:Tool {description: "Finds an item"} | (id::Integer)==>(::Item)]
[a:Agent {instruction: "Help.", model: "OpenAI/gpt-4o-mini"} |
  lookup,
  [greet:Tool {description: "Greets"} | (name::String)==>(::String)]
]
[b:Agent {instruction: "Help.", model: "OpenAI/gpt-4o-mini"} | greet, lookup]
`
		from := c.from
		at := strings.Index(text, from)
		if at < 0 {
			t.Fatalf("no %q in the text", from)
		}
		edited := text[:at] + c.to + text[at+len(from):]
		doc, _ := parser.Parse(diag.NewFile("t.gram", []byte(text)))
		prog, _ := Compile(doc)
		// The edit as an editor sends it: what changed, no more.
		p, q := 0, 0
		for p < len(text) && p < len(edited) && text[p] == edited[p] {
			p++
		}
		for q < len(text)-p && q < len(edited)-p && text[len(text)-1-q] == edited[len(edited)-1-q] {
			q++
		}
		edit := diag.Span{Start: p, End: len(text) - q}
		n := len(edited) - p - q
		ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), edit, n)
		got, gotDiags := Recompile(prog, ndoc)
		want, wantDiags := Compile(ndoc)
		if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
			t.Errorf("%q to %q: diagnostics\n%v\nwant\n%v", c.from, c.to, gotDiags, wantDiags)
		}
	}
	// Declarations before the edit that refer to records after it: the
	// records and tools are taken as they are.
	const forward = `[Box:Record | (item::Item), (items::Array {items: Item})]
[lookup:Tool {description: "Finds an item"} | (box::Box)==>(::Item)]
[plain:Tool {description: "Echoes"} | (s::String)==>(::String)]
[pack:Tool {description: "Packs"} | (box::Box)==>(::String)]
[a:Agent {instruction: "Help.", model: "OpenAI/gpt-4o-mini"} | lookup, plain, pack]
[Item:Record | (id::Integer), (owner::Person)]
[Person:Record | (name::String)]
`
	for _, ins := range []string{"x", "", "xyz"} {
		at := strings.Index(forward, "Help.")
		end := at
		if ins == "" {
			end++
		}
		edited := forward[:at] + ins + forward[end:]
		doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(forward)))
		prog, _ := Compile(doc)
		edit := diag.Span{Start: at, End: end}
		ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), edit, len(ins))
		got, gotDiags := Recompile(prog, ndoc)
		want, wantDiags := Compile(ndoc)
		if !tookSteps(got, prog) {
			t.Errorf("typing %q in the agent: compiled in full", ins)
		}
		if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
			t.Errorf("typing %q in the agent: diagnostics\n%v\nwant\n%v", ins, gotDiags, wantDiags)
		}
		// The declarations the edit left are taken by pointer, and the
		// chunks of the list of tools, which the edit did not change, are
		// the previous program's; the agent edited is compiled again.
		if n := sharedChunks(&got.tools.v, &prog.tools.v); n != prog.tools.v.numChunks() {
			t.Errorf("typing %q: %d of %d chunks of the list of tools shared", ins, n, prog.tools.v.numChunks())
		}
		for i, tool := range got.AllTools() {
			if tool != prog.ToolAt(i) {
				t.Errorf("typing %q: tool %s was compiled again", ins, tool.Name)
			}
		}
		for i := range got.Records {
			if got.Records[i] != prog.Records[i] {
				t.Errorf("typing %q: record %s was compiled again", ins, got.Records[i].Name)
			}
		}
		if got.Agents()[0] == prog.Agents()[0] {
			t.Errorf("typing %q: the agent edited is the previous program's", ins)
		}
	}
	if reused < total/4 {
		t.Errorf("the previous results were taken for %d of %d edits", reused, total)
	}
	t.Logf("the previous results were taken for %d of %d edits", reused, total)
}

// tookSteps reports whether got, a Recompile from prev, took the results of
// a step of prev as they were: a tool or an agent of prev's.
func tookSteps(got, prev *Program) bool {
	if got.memo == nil || got.NumTools() != prev.NumTools() || got.NumAgents() != prev.NumAgents() {
		return false
	}
	for _, st := range got.memo.steps {
		if st.t1 > st.t0 && got.ToolAt(int(st.t0)) == prev.ToolAt(int(st.t0)) ||
			st.a1 > st.a0 && got.AgentAt(int(st.a0)) == prev.AgentAt(int(st.a0)) {
			return true
		}
	}
	return false
}

// sameProgram reports whether two programs have the same elements, leaving
// out what their compiles kept for the next and how their lists are kept.
func sameProgram(a, b *Program) bool {
	return reflect.DeepEqual(a.File, b.File) && reflect.DeepEqual(a.Records, b.Records) && reflect.DeepEqual(a.Tests, b.Tests) &&
		reflect.DeepEqual(a.Tools(), b.Tools()) && reflect.DeepEqual(a.Agents(), b.Agents())
}

// TestRecompileTypeEdit: changing the type of a tool's parameter, to a type
// that does not exist and back, or of an inline tool's, compiles that
// declaration (and the agent that lists the tool) again and takes the rest.
func TestRecompileTypeEdit(t *testing.T) {
	const text = `[lookup:Tool {description: "Finds an item"} | (id::Integer)==>(::String)]
[a:Agent {instruction: "Help.", model: "OpenAI/gpt-4o-mini"} |
  lookup,
  [greet:Tool {description: "Greets"} | (name::String)==>(::String)]
]
[plain:Tool {description: "Echoes"} | (s::String)==>(::String)]
[b:Agent {instruction: "Help.", model: "OpenAI/gpt-4o-mini"} | plain]
`
	for _, c := range []struct{ from, to string }{
		{"(id::Integer)", "(id::Intger)"},
		{"(id::Integer)", "(id::String)"},
		{"(name::String)", "(name::Strng)"},
		{"(name::String)", "(name::Tool)"},
	} {
		doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(text)))
		prog, _ := Compile(doc)
		for _, step := range [][2]string{{c.from, c.to}, {c.to, c.from}} {
			old := string(doc.File.Bytes())
			at := strings.Index(old, step[0])
			edited := old[:at] + step[1] + old[at+len(step[0]):]
			edit := diag.Span{Start: at, End: at + len(step[0])}
			ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), edit, len(step[1]))
			got, gotDiags := Recompile(prog, ndoc)
			want, wantDiags := Compile(ndoc)
			if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
				t.Fatalf("%q to %q: diagnostics\n%v\nwant\n%v", step[0], step[1], gotDiags, wantDiags)
			}
			// A parameter labelled Tool may be taken for a declaration:
			// compiled in full.
			full := strings.Contains(step[0]+step[1], "::Tool")
			if !full && !tookSteps(got, prog) {
				t.Errorf("%q to %q: compiled in full", step[0], step[1])
			}
			if !full && got.Agents()[1] != prog.Agents()[1] {
				t.Errorf("%q to %q: agent b was compiled again", step[0], step[1])
			}
			doc, prog = ndoc, got
		}
	}
}

// TestCompilePackageOfOne: CompilePackage of one document gives the
// program and the diagnostics Compile gives, but keeps nothing for the next
// compile, and a Recompile from its program gives what a compile afresh of
// the edited text gives.
func TestCompilePackageOfOne(t *testing.T) {
	files, _ := filepath.Glob("../testdata/schema/*.gram")
	texts := []string{gramgen.AgentFile(200)}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	kept := 0
	for ti, text := range texts {
		doc, _ := parser.Parse(diag.NewFile("once.gram", []byte(text)))
		want, wantDiags := Compile(doc)
		progs, diags := CompilePackage([]*parser.Document{doc}, nil)
		got, gotDiags := progs[0], diags[0]
		if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
			t.Fatalf("text %d: CompilePackage of one differs from Compile", ti)
		}
		if got.memo != nil {
			t.Fatalf("text %d: CompilePackage kept what a Recompile takes", ti)
		}
		if want.memo != nil {
			kept++
		}
		edited := strings.Replace(text, "\"", "\"x", 1)
		doc2, _ := parser.Parse(diag.NewFile("once.gram", []byte(edited)))
		again, againDiags := Recompile(got, doc2)
		fresh, freshDiags := Compile(doc2)
		if !reflect.DeepEqual(againDiags, freshDiags) || !sameProgram(again, fresh) {
			t.Fatalf("text %d: Recompile from CompilePackage's program differs from Compile", ti)
		}
	}
	if kept == 0 {
		t.Fatal("Compile kept nothing for a Recompile of any text: the test shows nothing")
	}
}

// reparse is parser.Reparse told never to stop.
func reparse(prev *parser.Document, f *diag.File, edit diag.Span, newLen int) (*parser.Document, diag.List) {
	doc, diags, _ := parser.Reparse(prev, f, edit, newLen, nil)
	return doc, diags
}

// TestRecompileAgentListsToolTwice: an edit that makes an agent list a
// tool twice, in a file where no agent did before, is compiled again as a
// compile afresh compiles it.
func TestRecompileAgentListsToolTwice(t *testing.T) {
	const text = `[t1:Tool {description: "d"} | (x::String)==>(::String)]
[t2:Tool {description: "d"} | (x::String)==>(::String)]
[A:Agent {instruction: "i", model: "OpenAI/gpt-4o-mini"} | t1, t2]
`
	doc, _ := parser.ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	prog, _ := Compile(doc)
	at := strings.LastIndex(text, "t2")
	edited := text[:at] + "t1" + text[at+2:]
	ndoc, _ := reparse(doc, diag.NewFile("t.gram", []byte(edited)), diag.Span{Start: at, End: at + 2}, 2)
	got, gotDiags := Recompile(prog, ndoc)
	want, wantDiags := Compile(ndoc)
	if !reflect.DeepEqual(gotDiags, wantDiags) || !sameProgram(got, want) {
		t.Fatalf("diagnostics\n%v\nwant\n%v", gotDiags, wantDiags)
	}
}
