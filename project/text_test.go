package project

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

const (
	doorTools = "[Order:Record | (id::Integer)]\n[getOrder:Tool {description: \"Fetches\"} | (orderId::Integer)==>(::Order)]\n"
	doorAgent = "[support:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"} | getOrder]\n"
	doorTest  = "[t1:Test {agent: support} | (:User {says: \"Where?\"}), (:Call {tool: getOrder, args: {orderId: 7}})]\n"
)

// codes returns the codes of a list of diagnostics, one a line.
func codes(l diag.List) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.Code + ": " + d.Message + "\n")
	}
	return b.String()
}

// TestCheckTextAlone: a text alone is parsed and compiled, the
// diagnostics of both merged, as parsing and compiling it gives.
func TestCheckTextAlone(t *testing.T) {
	for _, text := range []string{doorTools + doorAgent, doorAgent, "[a:Agent {model: 3} | nothing]\n(a)\n", "[broken"} {
		f := diag.NewFile("x.gram", []byte(text))
		got := CheckText(f)
		doc, parsed := parser.Parse(f)
		prog, compiled := schema.Compile(doc)
		if g, w := codes(got.Diags), codes(schema.Merge(parsed, compiled)); g != w {
			t.Errorf("%q: diagnostics\n%s\nwant\n%s", text, g, w)
		}
		if got.Program.NumAgents() != prog.NumAgents() || got.File != f || got.Package != nil {
			t.Errorf("%q: %+v", text, got)
		}
	}
}

// TestCheckTextEnv: the tests of a text alone use the programs given.
func TestCheckTextEnv(t *testing.T) {
	subject := CheckText(diag.NewFile("d/agents.gram", []byte(doorTools+doorAgent)))
	f := diag.NewFile("d/agents_test.gram", []byte(doorTest))
	if got := CheckText(f); !got.Diags.HasErrors() {
		t.Errorf("alone: no errors, want the agent undefined")
	}
	if got := CheckText(f, subject.Program); len(got.Diags) > 0 || len(got.Program.Tests) != 1 {
		t.Errorf("with its subject:\n%s", codes(got.Diags))
	}
}

// TestCheckTextBinary: binary data is one diagnostic, whatever checks it.
func TestCheckTextBinary(t *testing.T) {
	text := []byte("[a:Agent]\x00\x01")
	got := CheckText(diag.NewFile("x.gram", text))
	if len(got.Diags) != 1 || got.Diags[0].Code != CodeBinaryFile || got.Diags[0].Span.Start != 9 {
		t.Errorf("diagnostics:\n%s", codes(got.Diags))
	}
	prev := editText(nil, diag.NewFile("x.gram", text))
	fixed := editText(prev, diag.NewFile("x.gram", []byte("[a:Tool {description: \"x\"} | ()==>(::String)]\n")))
	if len(fixed.Diags) > 0 || fixed.Program.NumTools() != 1 {
		t.Errorf("fixed:\n%s", codes(fixed.Diags))
	}
	if _, bin := Binary([]byte("plain text, é")); bin {
		t.Error("text taken for binary data")
	}
	// A short text in Latin-1: not binary, its byte 0xE9 an error where it is.
	latin1 := CheckText(diag.NewFile("x.gram", []byte("caf\xe9\n")))
	if len(latin1.Diags) == 0 || !slices.ContainsFunc(latin1.Diags, func(d diag.Diagnostic) bool { return d.Span.Start == 3 && strings.Contains(d.Message, "UTF-8") }) ||
		slices.ContainsFunc(latin1.Diags, func(d diag.Diagnostic) bool { return d.Code == CodeBinaryFile }) {
		t.Errorf("Latin-1 text:\n%s", codes(latin1.Diags))
	}
}

// TestCheckTextBindings: a bindings file is checked by the rules of
// bindings, alone as in a package.
func TestCheckTextBindings(t *testing.T) {
	text := "{kind: \"bindings\"}\n(:Oops {x: 1})\n"
	got := CheckText(diag.NewFile("bindings.gram", []byte(text)))
	if len(got.Diags) != 1 || got.Diags[0].Code != CodeBindings || got.Program.NumAgents() != 0 {
		t.Errorf("alone:\n%s", codes(got.Diags))
	}
	pkg := compileTexts(t, "dir/agents.gram", doorTools+doorAgent, "dir/bindings.gram", text)
	if f := pkg.Lookup("dir/bindings.gram"); f.Member || codes(f.Diags) != codes(got.Diags) {
		t.Errorf("in a package:\n%s", codes(f.Diags))
	}
}

// editText checks the text of f, a new version of prev's (nil: none),
// alone, taking from prev what the change leaves as it was.
func editText(prev *Text, f *diag.File) *Text {
	return Check(f, Request{Prev: prev, Editing: true})
}

// TestEditText: each version checked from the one before gives what a
// check afresh gives, and takes from it what the change leaves.
func TestEditText(t *testing.T) {
	texts := []string{
		doorTools + doorAgent,
		doorTools + strings.Replace(doorAgent, "Help.", "Help them.", 1),
		doorTools + strings.Replace(doorAgent, "getOrder]", "getOrdr]", 1),
		strings.Replace(doorTools, "Fetches", "Fetches one", 1) + doorAgent,
		"[broken\n" + doorAgent,
		"",
		doorTools,
	}
	var prev *Text
	for i, text := range texts {
		got := editText(prev, diag.NewFile("x.gram", []byte(text)))
		want := CheckText(diag.NewFile("x.gram", []byte(text)))
		if g, w := codes(got.Diags), codes(want.Diags); g != w {
			t.Fatalf("version %d: diagnostics\n%s\nwant\n%s", i, g, w)
		}
		if got.Program.NumTools() != want.Program.NumTools() || got.Program.NumAgents() != want.Program.NumAgents() {
			t.Fatalf("version %d: %d tools, %d agents; want %d, %d", i, got.Program.NumTools(), got.Program.NumAgents(), want.Program.NumTools(), want.Program.NumAgents())
		}
		prev = got
	}
	// The edit said, not found.
	f := diag.NewFile("x.gram", []byte(doorTools+doorAgent+doorAgent))
	span := diag.Span{Start: len(doorTools + doorAgent), End: len(doorTools + doorAgent)}
	got := Check(f, Request{Prev: prev, Edit: &Edit{Span: span, NewLen: len(doorAgent)}, Editing: true})
	if g, w := codes(got.Diags), codes(CheckText(diag.NewFile("x.gram", f.Bytes())).Diags); g != w || w == "" {
		t.Errorf("with the edit: diagnostics\n%s\nwant\n%s", g, w)
	}
	// Stopped.
	stopped := Check(diag.NewFile("x.gram", []byte(doorTools)), Request{Prev: got, Editing: true, Stop: func() bool { return true }})
	if stopped != nil {
		t.Errorf("stopped: %+v, want nil", stopped)
	}
}

// writeFiles writes files given as name → text into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckInPackage: a text whose package is given is compiled with the
// other member files, open buffers taken before the files on disk; a text
// that does not join, or whose package has no other member, alone.
func TestCheckInPackage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tools.gram": doorTools,
		"data.gram":  "{kind: \"data\"}\n(getOrder)\n",
	})
	path := filepath.Join(dir, "agents.gram")
	src := &Sources{Dir: dir, Paths: []string{filepath.Join(dir, "data.gram"), filepath.Join(dir, "tools.gram")}, Cache: &Cache{}}
	got := Check(diag.NewFile(path, []byte(doorAgent)), Request{Package: src, Editing: true})
	if len(got.Diags) > 0 || got.Package == nil || len(got.Others) != 1 || got.Others[0].File.Path != src.Paths[1] {
		t.Fatalf("in its package: %+v\n%s", got, codes(got.Diags))
	}
	if alone := CheckText(diag.NewFile(path, []byte(doorAgent))); !alone.Diags.HasErrors() {
		t.Errorf("alone: no errors, want getOrder undefined")
	}
	// An open buffer of tools.gram without the tool.
	src2 := *src
	src2.Open = map[string]*diag.File{src.Paths[1]: diag.NewFile(src.Paths[1], []byte("[Order:Record | (id::Integer)]\n"))}
	next := Check(diag.NewFile(path, []byte(doorAgent+"\n")), Request{Prev: got, Package: &src2, Editing: true})
	if !next.Diags.HasErrors() {
		t.Errorf("with the open buffer: no errors, want getOrder undefined")
	}
	// A data file, not a member, is compiled alone.
	data := Check(diag.NewFile(path, []byte("{kind: \"data\"}\n(getOrder)\n")), Request{Package: src})
	if data.Package != nil || len(data.Diags) > 0 {
		t.Errorf("a data file: %+v\n%s", data, codes(data.Diags))
	}
}

// TestCheckInPackageLink: a text whose file is on disk under another name
// of its package too (a link beside it) is not compiled with itself.
func TestCheckInPackageLink(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agents.gram": doorAgent, "tools.gram": doorTools})
	link := filepath.Join(dir, "b.gram")
	if err := os.Symlink("agents.gram", link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	src := &Sources{Dir: dir, Paths: []string{filepath.Join(dir, "agents.gram"), filepath.Join(dir, "tools.gram")}, Cache: &Cache{}}
	got := Check(diag.NewFile(link, []byte(doorAgent)), Request{Package: src, Editing: true})
	if len(got.Diags) > 0 || got.Package == nil || len(got.Others) != 1 {
		t.Fatalf("through the link: %+v\n%s", got, codes(got.Diags))
	}
}

// TestCheckTestsAloneInPackage: a file of tests whose package has no
// other member (the agent file it is named after does not join, by its
// open buffer) is checked as a package of one, as Compile checks it: its
// tests do not see the agent file on disk, though Subject is set.
func TestCheckTestsAloneInPackage(t *testing.T) {
	dir := t.TempDir()
	agents := "{kind: \"agents\"}\n[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"}]\n"
	tests := "{kind: \"tests\"}\n[t1:Test {agent: desk} | (:User {says: \"hi\"}), (:Answer {contains: \"x\"})]\n" +
		"[t2:Test | (:User {says: \"hi\"}), (:Answer {contains: \"x\"})]\n"
	writeFiles(t, dir, map[string]string{"a.gram": agents, "a_test.gram": tests})
	aPath, testPath := filepath.Join(dir, "a.gram"), filepath.Join(dir, "a_test.gram")
	for _, buf := range []string{
		"{kind: \"agents\"}\n][desk:Agent {modeenAI/gpt-4o-elp.\"} | lookupl]\n",
		"{kind: \"data\"}\n[desk:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Help.\"}]\n",
	} {
		open := map[string]*diag.File{aPath: diag.NewFile(aPath, []byte(buf))}
		src := &Sources{Dir: dir, Paths: []string{aPath}, Open: open, Cache: &Cache{}}
		got := Check(diag.NewFile(testPath, []byte(tests)), Request{Package: src, Editing: true, Subject: true})
		var srcs []Source
		for _, f := range []*diag.File{open[aPath], diag.NewFile(testPath, []byte(tests))} {
			doc, diags := parser.Parse(f)
			srcs = append(srcs, Source{File: f, Doc: doc, Diags: diags})
		}
		want := Compile(dir, srcs).Lookup(testPath)
		if g, w := resolved(got.File, got.Diags), resolved(want.File, want.Diags); g != w || !strings.Contains(g, "unknown-agent") {
			t.Errorf("a.gram's buffer %q: diagnostics of a_test.gram\n%s\nwant\n%s", buf, g, w)
		}
	}
}

// TestCacheDataFileUnread: a data file beside an agent file is judged by
// its header: neither read whole nor parsed, and the judgement is kept.
func TestCacheDataFileUnread(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.gram")
	writeFiles(t, dir, map[string]string{"data.gram": "{kind: \"data\"}\n(lookupOrder {x: 1})\n"})
	var c Cache
	for range 2 {
		s := c.source(path, nil, false, 0)
		if !s.ok || s.joins || s.src.File != nil || s.src.Doc != nil {
			t.Errorf("source = %+v; want a file that does not join, unread", s)
		}
	}
	if s := c.source(path, nil, true, 0); !s.ok {
		t.Errorf("needed: %+v", s)
	}
}

// TestLoadFiles: the files given are read, even one set aside by its name
// or one that never joins; one that cannot be read is said.
func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tools.gram":  doorTools,
		"agents.gram": doorAgent,
		"_draft.gram": doorAgent,
	})
	draft, missing := filepath.Join(dir, "_draft.gram"), filepath.Join(dir, "missing.gram")
	l, err := Load(dir, LoadOptions{Files: []string{draft, missing}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Unread) != 1 || l.Unread[0].Path != missing || !l.Unread[0].Needed {
		t.Errorf("unread = %+v", l.Unread)
	}
	if f := l.Lookup(filepath.Join(dir, "agents.gram")); f == nil || !f.Member || len(f.Diags) > 0 {
		t.Errorf("agents.gram = %+v", f)
	}
	if f := l.Lookup(draft); f == nil || f.Member || !f.Diags.HasErrors() {
		t.Errorf("_draft.gram = %+v, want alone, with getOrder undefined", f)
	}
}

// TestChangedSpan: the changed part of two texts is the shortest edit of
// the first that gives the second, with the common prefix taken first, as
// comparing byte by byte finds it, blocks of equal bytes and all.
func TestChangedSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	naive := func(old, text []byte) (diag.Span, int) {
		p := 0
		for p < len(old) && p < len(text) && old[p] == text[p] {
			p++
		}
		q := 0
		for q < len(old)-p && q < len(text)-p && old[len(old)-1-q] == text[len(text)-1-q] {
			q++
		}
		return diag.Span{Start: p, End: len(old) - q}, len(text) - p - q
	}
	for i := 0; i < 2000; i++ {
		old := []byte(strings.Repeat("ab", r.IntN(300)))
		start := r.IntN(len(old) + 1)
		end := start + r.IntN(len(old)-start+1)
		text := append(append(append([]byte{}, old[:start]...), strings.Repeat("ba", r.IntN(3))...), old[end:]...)
		got := Changed(old, text)
		gs, gn := got.Span, got.NewLen
		ws, wn := naive(old, text)
		if gs != ws || gn != wn {
			t.Fatalf("Changed(%q, %q) = %v %d, want %v %d", old, text, gs, gn, ws, wn)
		}
	}
}

// TestEditTextBinaryRandom: whether a version is binary data is told the
// same from the version before as afresh, whatever an edit adds or takes
// away (NUL bytes, bytes that are not UTF-8, a rune cut in two).
func TestEditTextBinaryRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"(a)", " ", "\n", "é", "日本", "\x00", "\xff", "\xe6", "[t:Tool]", "{kind: \"data\"}"}
	text := []byte("(a)-->(b)\n")
	var prev *Text
	for i := range 600 {
		next := append([]byte{}, text...)
		at := r.IntN(len(next) + 1)
		cut := min(len(next), at+r.IntN(4))
		if r.IntN(3) == 0 {
			next = append(next[:at], next[cut:]...)
		} else {
			next = append(next[:at], append([]byte(pieces[r.IntN(len(pieces))]), next[at:]...)...)
		}
		if r.IntN(50) == 0 {
			next = []byte("(a)\n") // back to text
		}
		// A file is parsed once: its positions are its parse's.
		got, want := editText(prev, diag.NewFile("x.gram", next)), CheckText(diag.NewFile("x.gram", next))
		// (The parse of the rest, again from the version before, is the
		// parser's tests' business.)
		binary := func(l diag.List) bool { return len(l) == 1 && l[0].Code == CodeBinaryFile }
		if g, w := binary(got.Diags), binary(want.Diags); g != w {
			t.Fatalf("version %d %q: binary data %v, want %v", i, next, g, w)
		}
		prev, text = got, next
	}
}

// TestDeferredOnce: the errors of gram notation the parser defers are
// reported once whatever reads the text: by the compiler, in its terms,
// when it is checked (a duplicate parameter), and as the parser made them
// when it is read as notation alone (Parse) or as bindings.
func TestDeferredOnce(t *testing.T) {
	tool := "[t:Tool {description: \"T\"} | (a::String)==>(a::Integer)==>(::String)]\n"
	if got := codes(CheckText(diag.NewFile("x.gram", []byte(tool))).Diags); got != "duplicate-parameter: tool t has two parameters named a\n" {
		t.Errorf("checked:\n%s", got)
	}
	if _, diags := Parse(diag.NewFile("x.gram", []byte(tool))); codes(diags) != "duplicate-definition: \"a\" is already defined\n" {
		t.Errorf("read as notation:\n%s", codes(diags))
	}
	if _, diags := ParseSyntax(diag.NewFile("x.gram", []byte("({k: [{a: 1}]})\n"))); codes(diags) != "nested-map: an array cannot contain a map\n" {
		t.Errorf("syntax read as notation:\n%s", codes(diags))
	}
	// Loaded from a directory, alone and in a package of two files.
	legacy := "[u:Tool {description: \"U\"} | (::Object {paramName:\"p\", fields:[{name:\"a\", type:\"Text\"}]})==>(::String)]\n"
	want := "duplicate-parameter: tool t has two parameters named a\nlegacy-parameter: parameter p is written in the older notation; the canonical form is (p::P)\n"
	dir := t.TempDir()
	for _, files := range [][2]string{{"a.gram", tool + legacy}, {"b.gram", "// another file\n"}} {
		if err := os.WriteFile(filepath.Join(dir, files[0]), []byte(files[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(dir, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := codes(l.Lookup(filepath.Join(dir, "a.gram")).Diags); got != want {
			t.Errorf("loaded with %s:\n%s", files[0], got)
		}
	}
	bindings := "{kind: \"bindings\"}\n(a:X)\n(a:Y)\n"
	f := diag.NewFile("gram.bindings.gram", []byte(bindings))
	if got := CheckText(f); !strings.Contains(codes(got.Diags), "duplicate-definition") {
		t.Errorf("bindings:\n%s", codes(got.Diags))
	}
}
