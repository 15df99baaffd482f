package schema

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// packageTexts are the files of a package whose files use each other's
// names: records of one file in the types of another, tools of one in the
// agents of another, a cycle of records across two files, a file of its
// own, and a test file.
var packageTexts = []struct{ path, text string }{
	{"p/agents.gram", `[support:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | getOrder, cancelOrder, local]
[local:Tool {description: "Local"} | (a::Address)==>(::String)]
`},
	{"p/other.gram", `[solo:Tool {description: "Alone"} | (q::String)==>(::String)]
[soloAgent:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Solo."} | solo]
`},
	{"p/records.gram", `[Address:Record | (street::String), (city::String)]
[Order:Record {description: "An order"} | (id::Integer), (ship::Address), (status::String)]
[Loop:Record | (next::Loop2)]
`},
	{"p/tools.gram", `[Loop2:Record | (back::Loop)]
[getOrder:Tool {description: "Fetches an order"} | (orderId::Integer)==>(::Order)]
[cancelOrder:Tool {description: "Cancels an order"} | (orderId::Integer)==>(::Order)]
[spare:Tool {description: "Not listed"} | (x::String)==>(::String)]
`},
	{"p/agents_test.gram", `[helper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Helps."} | spare]
[t1:Test {agent: support} | (:User {says: "Where?"}), (:Call {tool: getOrder, args: {orderId: 7}}), (:Answer {contains: "x"})]
`},
}

// packageEdits are what the random edits of TestRecompilePackageMatches
// type, besides recompileEdits: names of other files, and declarations
// that clash with another file's.
var packageEdits = []string{"getOrder", "Order", "Address", "cancelOrder", "solo", "spare", ", spare", "Loop", ", support", "soloAgent",
	"\n[dup:Tool {description: \"d\"} | ()==>(::String)]\n", "\n[getOrder:Tool {description: \"again\"} | ()==>(::String)]\n",
	"\n[Address:Record | (zip::String)]\n", "\n[t2:Test {agent: soloAgent} | (:User {says: \"hi\"}), (:Answer {contains: \"x\"})]\n",
	// Headers, whole and broken.
	"{kind: \"agents\"}\n", "{ \"agents\"}\n", "{kind: \"agentsel: \""}

// packageChanges are edits whose results reach into other files: an agent
// that stops or starts listing another file's tool, a record's field type
// changed, a tool or record renamed.
var packageChanges = []struct {
	file     int
	from, to string
}{
	{0, "getOrder, ", ""},
	{0, "| getOrder", "| spare, getOrder"},
	{1, "| solo]", "| solo, getOrder]"},
	{2, "(city::String)", "(city::Integer)"},
	{2, "[Order:Record", "[Order2:Record"},
	{3, "[spare:Tool", "[spare2:Tool"},
	{3, "(back::Loop)", "(back::String)"},
	{3, "Fetches", "Gets"},
	{3, "[Loop2", "// moved\n[Loop2"},
	{2, "[Address", "// moved\n[Address"},
	{0, "[support", "\n[support"},
	{0, "| getOrder", "| spare2, getOrder"},
	{0, "(a::Address)", "(a::Address2)"},
	{2, "[Address:Record", "[Address2:Record"},
	{4, "| spare]", "| solo]"},
	{4, "| solo]", "| spare]"},
	{1, "[soloAgent", "[t3:Test {agent: soloAgent} | (:User {says: \"hi\"}), (:Call {tool: getOrder, args: {orderId: 7}}), (:Answer {contains: \"x\"})]\n[soloAgent"},
	{2, "[Loop:Record", "[Loop:Tool"},
	// A header added or broken with the declaration after it, the agent a
	// test names made unparsable, a test naming the agent of another file.
	{0, "[support:Agent {model", "{kind: \"agents\"}\n][support:Agent {mode"},
	{0, "[support:Agent {model: \"OpenAI/gpt-4o-mini\", ", "Or(de[support:Agent {modeenAI/"},
	{1, "[solo:Tool", "{ \"agents\"}\n[solo:}"},
	{3, "[getOrder:Tool", "{kind: \"agentsel: \"[getOrder:Tool"},
	{4, "{agent: support}", "{agent: soloAgent}"},
	{4, "[t1:Test", "{kind: \"tests\"}\n[t1:Test"},
	// Composition: an agent of another file listed, given a signature
	// or a description, a cycle of agents across files, handoffs.
	{1, "| solo]", "| solo, support]"},
	{0, "| getOrder", "| (q::String)==>(::Order), getOrder"},
	{0, "instruction: \"Help.\"}", "instruction: \"Help.\", description: \"Supports\"}"},
	{0, "cancelOrder, local]", "cancelOrder, local, soloAgent]"},
	{1, "[soloAgent", "(soloAgent)-[:Handoff {description: \"Orders\"}]->(support)\n[soloAgent"},
	{2, "[Address", "(support)-[:Handoff]->(soloAgent)\n[Address"},
}

// TestRecompilePackageMatchesCompile: after random edits of one file of a
// package at a time (now and then of a few at once), recompiling the package from the previous compile
// gives exactly what compiling it afresh gives, every file's program and
// diagnostics, along chains of edits; and the files an edit does not touch
// are taken for most edits of a package that does not compose agents. The
// edited file is parsed afresh (every declaration of it changed, as a file
// changed on disk) for odd seeds, and
// parsed again from its previous version for even ones (the declarations
// the edit did not touch kept, as in an editor).
func TestRecompilePackageMatchesCompile(t *testing.T) {
	edits := append(append([]string{}, recompileEdits...), packageEdits...)
	for seed := uint64(1); seed <= 16; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		docs := make([]*parser.Document, len(packageTexts))
		parse := func(prev *parser.Document, f *diag.File) *parser.Document {
			if seed%2 == 1 {
				doc, _ := parser.Parse(f)
				return doc
			}
			if prev == nil {
				doc, _ := parser.ParseForEdits(f)
				return doc
			}
			old, text := prev.File.Bytes(), f.Bytes()
			p, q := 0, 0
			for p < min(len(old), len(text)) && old[p] == text[p] {
				p++
			}
			for q < min(len(old), len(text))-p && old[len(old)-1-q] == text[len(text)-1-q] {
				q++
			}
			doc, _ := reparse(prev, f, diag.Span{Start: p, End: len(old) - q}, len(text)-p-q)
			return doc
		}
		for i, f := range packageTexts {
			docs[i] = parse(nil, diag.NewFile(f.path, []byte(f.text)))
		}
		split := func(all []*parser.Document) ([]*parser.Document, []*parser.Document) {
			return all[:len(all)-1], all[len(all)-1:]
		}
		m, ts := split(docs)
		prev := RecompilePackage(nil, m, ts)
		taken, steps := 0, 0
		// edit edits one file of docs at random, and returns which, what
		// it typed and where.
		edit := func(docs []*parser.Document) (fi int, ins string, at int) {
			fi = rng.IntN(len(docs))
			old := docs[fi].File.Bytes()
			at, end := typingSpan(rng, old, 3, 15, 200)
			ins = edits[rng.IntN(len(edits))]
			text := string(old[:at]) + ins + string(old[end:])
			if c := packageChanges[rng.IntN(len(packageChanges))]; rng.IntN(4) == 0 && strings.Contains(string(docs[c.file].File.Bytes()), c.from) {
				fi, text = c.file, strings.Replace(string(docs[c.file].File.Bytes()), c.from, c.to, 1)
			}
			if rng.IntN(10) == 0 {
				text = packageTexts[fi].text // back to the start
			}
			docs[fi] = parse(docs[fi], diag.NewFile(packageTexts[fi].path, []byte(text)))
			return fi, ins, at
		}
		for step := 0; step < 300; step++ {
			docs = append([]*parser.Document(nil), docs...)
			fi, ins, at := edit(docs)
			// Now and then more files at once, as a compile from an
			// older one of the package sees them (a language server's
			// check of a file whose package was edited meanwhile).
			for rng.IntN(6) == 0 {
				edit(docs)
			}
			m, ts := split(docs)
			got := RecompilePackage(prev, m, ts)
			wantProgs, wantDiags := CompilePackage(m, ts)
			for i := range docs {
				if !reflect.DeepEqual(got.Diags[i], wantDiags[i]) {
					t.Fatalf("seed %d, edit %d of %s (%q at %d): diagnostics of %s\n%v\nwant\n%v", seed, step, packageTexts[fi].path, ins, at, packageTexts[i].path, got.Diags[i], wantDiags[i])
				}
				if !sameProgram(got.Programs[i], wantProgs[i]) {
					t.Fatalf("seed %d, edit %d of %s (%q at %d): the programs of %s differ", seed, step, packageTexts[fi].path, ins, at, packageTexts[i].path)
				}
			}
			if prev.scope.composes || got.scope.composes {
				prev = got // composing agents: compiled in full (see reuse.go)
				continue
			}
			steps++
			for _, r := range got.Reused {
				if r {
					taken++
					break
				}
			}
			prev = got
		}
		if taken < steps/2 {
			t.Errorf("seed %d: files were taken from the previous compile in %d of %d edits, want at least half", seed, taken, steps)
		}
	}
}

// TestPackageDuplicateRelated: a name two files of a package declare is an
// error in each file whose related location is the other file's
// declaration, as data (the file and the span of the name), not words in
// the message; IsPackageDuplicate tells it by that location, and a name
// declared twice in one file is not one.
func TestPackageDuplicateRelated(t *testing.T) {
	a := diag.NewFile("p/a.gram", []byte("[x:Tool {description: \"X\"} | ()==>(::String)]\n"))
	b := diag.NewFile("p/b.gram", []byte("// b\n[x:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"}]\n"))
	docA, _ := parser.Parse(a)
	docB, _ := parser.Parse(b)
	_, diags := CompilePackage([]*parser.Document{docA, docB}, nil)
	find := func(l diag.List) diag.Diagnostic {
		for _, d := range l {
			if d.Code == parser.CodeDuplicateDefinition {
				return d
			}
		}
		t.Fatalf("no duplicate-definition in %v", l)
		return diag.Diagnostic{}
	}
	dA, dB := find(diags[0]), find(diags[1])
	if dA.Message != "tool x is also declared in another file of the package" || dB.Message != "agent x is also declared in another file of the package" {
		t.Errorf("messages %q, %q", dA.Message, dB.Message)
	}
	wantA := []diag.Related{{File: b, Span: diag.Span{Start: 6, End: 7}, Message: "agent x is declared here"}}
	wantB := []diag.Related{{File: a, Span: diag.Span{Start: 1, End: 2}, Message: "tool x is declared here"}}
	if !reflect.DeepEqual(dA.Related, wantA) || !reflect.DeepEqual(dB.Related, wantB) {
		t.Errorf("related locations %+v and %+v, want %+v and %+v", dA.Related, dB.Related, wantA, wantB)
	}
	if !IsPackageDuplicate(dA) || !IsPackageDuplicate(dB) {
		t.Error("IsPackageDuplicate is false for a name two files declare")
	}
	one := diag.NewFile("p/one.gram", []byte("(y:A)\n(y:B)\n"))
	doc, _ := parser.Parse(one)
	if parsed := doc.Deferred(); len(parsed) != 1 || IsPackageDuplicate(parsed[0]) {
		t.Errorf("a name declared twice in one file: %v", doc.Deferred())
	}
}

// TestPackageReferencesResolved: a reference to a top-level tool of
// another file, in an agent or elsewhere, is not undefined in the package
// (the compiler reports no error that a later layer would have to take
// back), though it is for the file read alone; a reference to nothing in
// the package is.
func TestPackageReferencesResolved(t *testing.T) {
	a := diag.NewFile("p/a.gram", []byte("[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"I.\"} | lookup]\n[g | lookup, nowhere]\n"))
	b := diag.NewFile("p/b.gram", []byte("[lookup:Tool {description: \"L\"} | (q::String)==>(::String)]\n"))
	docA, parsed := parser.Parse(a)
	docB, _ := parser.Parse(b)
	if len(parsed) != 0 || len(docA.Undefined()) != 3 {
		t.Fatalf("parsed %v, undefined alone %v", parsed, docA.Undefined())
	}
	progs, diags := CompilePackage([]*parser.Document{docA, docB}, nil)
	if len(diags[0]) != 1 || diags[0][0].Code != parser.CodeUndefinedReference || diags[0][0].Message != `"nowhere" is not defined` {
		t.Errorf("a.gram: %v", diags[0])
	}
	if len(diags[1]) != 0 {
		t.Errorf("b.gram: %v", diags[1])
	}
	if ag := progs[0].Agents(); len(ag) != 1 || len(ag[0].Tools) != 1 || ag[0].Tools[0] != progs[1].Tools()[0] {
		t.Errorf("the agent's tools are not b.gram's lookup: %+v", ag)
	}
	if _, alone := Compile(docA); len(alone) != 3 {
		t.Errorf("a.gram alone: %v", alone)
	}
}

// TestRecompilePackageSharesLists: a package recompile after an edit of
// one tool's description shares the lists of the file's programs by chunk
// with the previous version's, as Recompile does (see
// TestRecompileSharesLists), and a file that lists a tool of the edited
// one, compiled again for its references, keeps its lists by pointer.
func TestRecompilePackageSharesLists(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "[tool%d:Tool {description: \"Finds the entry %d\"} | (title::String)==>(::String)]\n", i, i)
		fmt.Fprintf(&b, "[agent%d:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Use tool%d.\"} | tool%d]\n", i, i, i)
	}
	text := b.String()
	other := "[helper:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Use tool3.\"} | tool3]\n"
	a, _ := parser.ParseForEdits(diag.NewFile("a.gram", []byte(text)))
	o, _ := parser.ParseForEdits(diag.NewFile("b.gram", []byte(other)))
	prev := RecompilePackage(nil, []*parser.Document{a, o}, nil)
	for i, d := range prev.Diags {
		if len(d) != 0 {
			t.Fatalf("file %d: %v", i, d)
		}
	}
	needle := "Finds the entry 17"
	at := strings.Index(text, needle) + len(needle)
	edited := text[:at] + "x" + text[at:]
	na, _ := reparse(a, diag.NewFile("a.gram", []byte(edited)), diag.Span{Start: at, End: at}, 1)
	got := RecompilePackage(prev, []*parser.Document{na, o}, nil)
	p, q := got.Programs[0], prev.Programs[0]
	if !tookSteps(p, q) {
		t.Fatal("compiled in full")
	}
	if p.tools.flat.Load() != nil || p.agents.flat.Load() != nil {
		t.Error("the recompile put a list in one piece")
	}
	if n := sharedChunks(&p.tools.v, &q.tools.v); n != q.tools.v.numChunks()-1 {
		t.Errorf("%d of %d chunks of tools shared, want all but one", n, q.tools.v.numChunks())
	}
	if n := sharedChunks(&p.agents.v, &q.agents.v); n != q.agents.v.numChunks()-1 {
		t.Errorf("%d of %d chunks of agents shared, want all but one", n, q.agents.v.numChunks())
	}
	if h := got.Programs[1]; h != prev.Programs[1] && (h.tools != prev.Programs[1].tools || h.agents != prev.Programs[1].agents) {
		t.Error("the other file's lists were made again")
	}
	progs, diags := CompilePackage([]*parser.Document{na, o}, nil)
	for i := range progs {
		if !sameProgram(got.Programs[i], progs[i]) || !slices.EqualFunc(got.Diags[i], diags[i], func(x, y diag.Diagnostic) bool { return x.Message == y.Message }) {
			t.Errorf("file %d differs from a fresh compile", i)
		}
	}
}
