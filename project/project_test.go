package project

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// compileTexts compiles files given as path → text as one package.
func compileTexts(t *testing.T, files ...string) *Package {
	t.Helper()
	var srcs []Source
	for i := 0; i < len(files); i += 2 {
		f := diag.NewFile(files[i], []byte(files[i+1]))
		doc, diags := parser.Parse(f)
		srcs = append(srcs, Source{File: f, Doc: doc, Diags: diags})
	}
	return Compile("dir", srcs)
}

// diagLines returns the diagnostics of every file, one line each: the
// path, code, message and detail, and each related location as "→
// path:line:col: message".
func diagLines(p *Package) string {
	var b strings.Builder
	for _, f := range p.Files {
		for _, d := range f.Diags {
			b.WriteString(f.File.Path + ": " + d.Code + ": " + d.Message + " | " + d.Detail)
			for _, r := range d.Related {
				rf := r.In(f.File)
				b.WriteString(" → " + rf.Path + ":" + rf.OffsetPosition(rf.Offset(r.Span.Start)).String() + ": " + r.Message)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestLoadShop(t *testing.T) {
	l, err := Load("testdata/shop", LoadOptions{})
	if err != nil || len(l.Unread) > 0 {
		t.Fatal(err, l.Unread)
	}
	p := l.Package
	if got := diagLines(p); got != "" {
		t.Fatalf("diagnostics:\n%s", got)
	}
	agents := p.Agents()
	if len(agents) != 1 || len(agents[0].Tools) != 2 || agents[0].Tools[0].Name != "getOrder" {
		t.Fatalf("agents = %+v", agents)
	}
	if r := agents[0].Tools[0].Returns; r == nil || r.Record == nil || r.Record.Name != "Order" {
		t.Errorf("getOrder returns %+v, want the record Order of tools.gram", r)
	}
	test := p.Lookup("testdata/shop/agents_test.gram")
	if test == nil || !test.Member || !test.Test || len(test.Program.Tests) != 1 {
		t.Fatalf("test file = %+v", test)
	}
	if data := p.Lookup("testdata/shop/prices.gram"); data != nil {
		t.Errorf("prices.gram, a data file, was read: %+v", data)
	}
	// Given, it is read, and checked alone.
	l, err = Load("testdata/shop", LoadOptions{Files: []string{"testdata/shop/prices.gram"}})
	if err != nil || len(l.Unread) > 0 {
		t.Fatal(err, l.Unread)
	}
	if data := l.Lookup("testdata/shop/prices.gram"); data == nil || data.Member {
		t.Errorf("prices.gram joins the package: %+v", data)
	}
}

func TestCrossFile(t *testing.T) {
	tools := `[Order:Record {description: "An order"} | (id::Integer)]
[getOrder:Tool {description: "Fetches an order"} | (orderId::Integer)==>(::Order)]
`
	agent := func(tools string) string {
		return `[a:Agent {model: "OpenAI/gpt-4o", instruction: "Help."} | ` + tools + `]` + "\n"
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  []string // substrings of diagLines, in order
		none  string   // must not appear
	}{
		{"resolved", []string{"t.gram", tools, "a.gram", agent("getOrder")}, nil, "error"},
		{"duplicate", []string{"t.gram", tools, "a.gram", agent("getOrder") + tools}, []string{
			"t.gram: duplicate-definition: record Order is also declared in another file of the package",
			"→ a.gram:2:2: record Order is declared here",
			"t.gram: duplicate-definition: tool getOrder is also declared in another file of the package",
			"→ a.gram:3:2: tool getOrder is declared here",
			"a.gram: duplicate-definition: record Order is also declared in another file of the package",
			"→ t.gram:1:2: record Order is declared here",
			"a.gram: duplicate-definition: tool getOrder is also declared in another file of the package",
			"→ t.gram:2:2: tool getOrder is declared here",
		}, ""},
		{"did you mean", []string{"t.gram", tools, "a.gram", agent("getOrdr")}, []string{
			`a.gram: undefined-reference: "getOrdr" is not defined | did you mean "getOrder"? → t.gram:2:2: tool getOrder is declared here`,
		}, ""},
		{"removed", []string{"t.gram", `[Order:Record {description: "An order"} | (id::Integer)]` + "\n", "a.gram", agent("getOrder")}, []string{
			`a.gram: undefined-reference: "getOrder" is not defined`,
		}, "did you mean"},
		{"not a tool", []string{"t.gram", tools, "a.gram", agent("Order")}, []string{
			`a.gram: undefined-reference: "Order" is not defined | Order is declared in another file of the package, but it is not a tool or an agent: an agent's elements are tools and agents → t.gram:1:2: record Order is declared here`,
		}, ""},
		{"unused across files", []string{"t.gram", tools, "a.gram", agent(`[x:Tool {description: "X"} | ()==>(::String)]`)}, []string{
			"t.gram: unused-tool: tool getOrder is not used by any agent",
		}, ""},
		{"record cycle across files", []string{
			"r.gram", `[A:Record {description: "A"} | (b::B)]` + "\n",
			"s.gram", `[B:Record {description: "B"} | (a::A)]` + "\n"}, []string{
			"s.gram: record-cycle: record A contains itself: A → B → A",
		}, ""},
		{"unknown type suggests another file's record", []string{"t.gram", tools, "a.gram", `[f:Tool {description: "F"} | (o::Ordr)==>(::String)]` + "\n"}, []string{
			`a.gram: unknown-type: unknown type "Ordr" | did you mean "Order"? → t.gram:1:2: record Order is declared here`,
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := diagLines(compileTexts(t, tc.files...))
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing %q in\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if tc.none != "" && strings.Contains(got, tc.none) {
				t.Fatalf("unwanted %q in\n%s", tc.none, got)
			}
		})
	}
}

func TestLoneFileUnchanged(t *testing.T) {
	src := `[a:Agent {model: "OpenAI/gpt-4o", instruction: "Help."} | getOrdr]` + "\n"
	p := compileTexts(t, "a.gram", src)
	got := diagLines(p)
	if !strings.Contains(got, `undefined-reference: "getOrdr" is not defined | declare the tool`) {
		t.Fatalf("got\n%s", got)
	}
}

// TestFiles lists the .gram entries of a directory: files and links to
// files, not directories nor links to them, nor other names.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.gram", "a.gram", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("()\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d.gram"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d.gram", filepath.Join(dir, "ld.gram")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(dir, "la.gram")); err != nil {
		t.Fatal(err)
	}
	got, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if want := []string{"a.gram", "b.gram", "la.gram"}; !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
}

// TestNeverJoins checks which files are told not to join their package
// from their name or the header at their start alone, and that the others
// agree with Joins once parsed.
func TestNeverJoins(t *testing.T) {
	dir := t.TempDir()
	big := "{kind: \"data\", note: \"" + strings.Repeat("x", headerLimit) + "\"}\n(a)\n"
	for _, tc := range []struct {
		name, text string
		never      bool
	}{
		{"data.gram", "{kind: \"data\"}\n" + strings.Repeat("(a)-->(b)\n", 1000), true},
		{"commented.gram", "// People,\n// and who they know.\n\n{kind: \"data\"}\n(a)\n", true},
		{"bindings.gram", "{kind: \"bindings\"}\n", true},
		{"agents.gram", "{kind: \"agents\"}\n[a:Agent {model: \"OpenAI/x\", instruction: \"y\"}]\n", false},
		{"tests.gram", "{kind: \"tests\"}\n", false},
		{"nokind.gram", "{title: \"x\"}\n[t:Tool {description: \"x\"} | ()==>(::String)]\n", false},
		{"noheader.gram", "(a)-->(b)\n", true},
		{"empty.gram", "", true},
		{"bigheader.gram", big, true}, // not closed in the first 64 KiB: the scan tells
		{"nokindheader.gram", "{title: \"x\"}\n(a:Person {name: \"Tool\"})-[:Agent]->(b)\n", false},
		{"wordsonly.gram", "// An Agent, a Tool, a Record, a Test.\n(a:Person {note: \"Agent Tool Record Test\"})\n", true},
		{"notoplevel.gram", "(a)-->(b)\n[t:Tool {description: \"x\"} | ()==>(::String)]\n", false},
		{"quoted.gram", "[t:`Tool` {description: \"x\"} | ()==>(::String)]\n", false},
		{"legacy.gram", "[t::ToolSpecification {description: \"x\"}]\n", false},
		{"unclosed.gram", "(a {name: \"x\", kind: Tool\n", false},
		{"_scratch.gram", "{kind: \"agents\"}\n", true},
		{".hidden.gram", "{kind: \"agents\"}\n", true},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := NeverJoins(path); got != tc.never {
			t.Errorf("%s: NeverJoins = %v, want %v", tc.name, got, tc.never)
		}
		doc, _ := parser.Parse(diag.NewFile(path, []byte(tc.text)))
		if NeverJoins(path) && Joins(path, doc) {
			t.Errorf("%s: NeverJoins, but Joins once parsed", tc.name)
		}
	}
	if NeverJoins(filepath.Join(dir, "missing.gram")) {
		t.Error("a missing file: NeverJoins, want false (reading it says why)")
	}
}

// TestListFiles checks which entries of a directory may join its
// package: regular .gram files and links to them, not those set aside by
// their name, a file reached by two names once; the entries that are not
// regular files are returned apart.
func TestListFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.gram", "b.gram", "_scratch.gram", ".draft.gram", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.gram"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"c.gram": "_scratch.gram", "d.gram": "a.gram", "gone.gram": "nowhere.gram"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	files, irregular, err := ListFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.gram"), filepath.Join(dir, "b.gram"), filepath.Join(dir, "c.gram")}
	if !slices.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
	if len(irregular) != 1 || !strings.Contains(irregular[0].Error(), "gone.gram") {
		t.Errorf("irregular = %v, want gone.gram", irregular)
	}
}

// TestNeverJoinsRandom checks, on random documents and random edits of
// them, and on agent files whose labels are written in every way, that
// a file [NeverJoins] tells never joins does not join once parsed.
func TestNeverJoinsRandom(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{gramgen.AgentFile(40), gramgen.Mixed(2000)}
	for range 3000 {
		text := gramgen.Random(r)
		if r.IntN(3) == 0 {
			text = gramgen.Mutate(r, text)
		}
		texts = append(texts, text)
	}
	path := filepath.Join(dir, "x.gram")
	joined := 0
	for _, text := range texts {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, _ := parser.Parse(diag.NewFile(path, []byte(text)))
		if Joins(path, doc) {
			joined++
			if NeverJoins(path) {
				t.Fatalf("NeverJoins, but Joins once parsed:\n%s", text)
			}
		}
	}
	if joined < 10 {
		t.Fatalf("only %d of %d documents join: the test shows little", joined, len(texts))
	}
}
