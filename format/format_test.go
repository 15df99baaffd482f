package format

import (
	"bytes"
	"github.com/gramlang/gram/internal/golden"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/parser"
)

// canonicalJSON returns the canonical JSON of src's lowered patterns.
func canonicalJSON(t testing.TB, src []byte) string {
	t.Helper()
	doc, _ := parser.Parse(diag.NewFile("x.gram", src))
	var b bytes.Buffer
	if err := doc.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// commentTexts returns the texts of src's comments, without trailing white
// space, sorted.
func commentTexts(src []byte) []string {
	doc, _ := parser.ParseSyntax(diag.NewFile("x.gram", src))
	var out []string
	for _, c := range doc.Comments {
		out = append(out, strings.TrimRight(string(src[c.Span.Start:c.Span.End]), " \t\r\f\v"))
	}
	slices.Sort(out)
	return out
}

// checkFormat checks the formatter's promises on src: a source with syntax
// errors is returned unchanged with its errors; otherwise formatting again
// changes nothing, the output has no syntax error, lowers to the same JSON and
// has the same comments. It returns the output.
func checkFormat(t testing.TB, name string, src []byte) []byte {
	t.Helper()
	out, diags := Format(src)
	syn, synDiags := parser.ParseSyntax(diag.NewFile(name, src))
	// Maps inside arrays are formatted as written (see prepare): the
	// parser defers them.
	if slices.ContainsFunc(synDiags, func(d diag.Diagnostic) bool { return d.Code == parser.CodeNestedMap }) {
		t.Fatalf("%s: a nested-map error among the syntax diagnostics", name)
	}
	if synDiags.HasErrors() || len(syn.Bad) > 0 {
		if !diags.HasErrors() {
			t.Fatalf("%s: syntax errors not reported: %v", name, synDiags)
		}
		if !bytes.Equal(out, src) {
			t.Fatalf("%s: a source with errors was changed", name)
		}
		return out
	}
	if diags.HasErrors() {
		t.Fatalf("%s: unexpected errors: %v", name, diags)
	}
	again, diags2 := Format(out)
	if diags2.HasErrors() {
		t.Fatalf("%s: the output does not parse: %v\ninput:\n%s\noutput:\n%s", name, diags2, src, out)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("%s: not idempotent (-first +second):\n%s\ninput:\n%q", name, cmp.Diff(string(out), string(again)), src)
	}
	if j1, j2 := canonicalJSON(t, src), canonicalJSON(t, out); j1 != j2 {
		t.Fatalf("%s: meaning changed (-input +output):\n%s\ninput:\n%s\noutput:\n%s", name, cmp.Diff(j1, j2), src, out)
	}
	if c1, c2 := commentTexts(src), commentTexts(out); !slices.Equal(c1, c2) {
		t.Fatalf("%s: comments changed (-input +output):\n%s\noutput:\n%s", name, cmp.Diff(c1, c2), out)
	}
	return out
}

// TestGolden formats every testdata/format/*.gram file and compares the result
// with the .golden file beside it; the golden file must format to itself. Run
// `go test ./format -update` to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/format/*.gram")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".gram")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, diags := Format(src); diags.HasErrors() {
				t.Fatalf("%s has errors: %v", path, diags)
			}
			got := checkFormat(t, name, src)
			golden.Check(t, path, got)
			if again, _ := Format(got); !bytes.Equal(again, got) {
				t.Errorf("the output for %s does not format to itself:\n%s", path, cmp.Diff(string(got), string(again)))
			}
		})
	}
}

// gramFiles returns the *.gram files under dir, skipping hidden directories.
func gramFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".gram") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sharedDir returns ../../shared relative to the repository, or skips the test
// when it is not there.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared is not checked out beside the repository")
	}
	return dir
}

// TestRepositoryFiles checks every .gram file of the repository (and the
// shared example agents, when present): idempotent, same meaning, same
// comments; files with syntax errors are left alone.
func TestRepositoryFiles(t *testing.T) {
	files := gramFiles(t, "..")
	if len(files) == 0 {
		t.Fatal("no .gram files")
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared")); err == nil {
		files = append(files, gramFiles(t, filepath.Join("..", "..", "shared", "examples"))...)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkFormat(t, path, src)
	}
}

// corpusCase is one case of the reference grammar's test corpus.
type corpusCase struct {
	file, title, input string
	error              bool
}

// readCorpus reads the cases of the corpus files in dir.
func readCorpus(t *testing.T, dir string) []corpusCase {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		t.Fatalf("no corpus files in %s", dir)
	}
	isRule := func(s string) bool { return len(s) >= 3 && strings.Trim(s, "=") == "" }
	var cases []corpusCase
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		for i := 0; i < len(lines); {
			if !isRule(lines[i]) {
				i++
				continue
			}
			c := corpusCase{file: filepath.Base(file)}
			j := i + 1
			for ; j < len(lines) && !isRule(lines[j]); j++ {
				switch s := strings.TrimSpace(lines[j]); {
				case s == ":error":
					c.error = true
				case c.title == "" && s != "":
					c.title = s
				}
			}
			j++
			k := j
			for k < len(lines) && strings.TrimSpace(lines[k]) != "---" {
				k++
			}
			if j < k {
				c.input = strings.Join(lines[j:k], "\n") + "\n"
			}
			cases = append(cases, c)
			for i = k + 1; i < len(lines) && !isRule(lines[i]); i++ {
			}
		}
	}
	return cases
}

// TestCorpus checks every accepted input of the reference grammar's corpus
// (idempotent, same meaning, same comments), and that every rejected one is
// refused and left unchanged.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "conformance", "tree-sitter-gram", "corpus")
	cases := readCorpus(t, dir)
	accepted := 0
	for _, c := range cases {
		name := c.file + ": " + c.title
		src := []byte(c.input)
		out, diags := Format(src)
		if c.error {
			if !diags.HasErrors() || !bytes.Equal(out, src) {
				t.Errorf("%s: an :error case was formatted", name)
			}
			continue
		}
		accepted++
		checkFormat(t, name, src)
	}
	if accepted < 100 {
		t.Fatalf("only %d accepted corpus cases read", accepted)
	}
}

// TestErrorsLeaveSourceAlone checks that a source with a syntax error is
// returned as it is, with the error.
func TestErrorsLeaveSourceAlone(t *testing.T) {
	for _, src := range []string{"(a) (b\n(c)", "(a), (b)", "[a | ]", "{k: 1}\n{k: 2}", "(a)-[r]=>(b)", "@k(1)"} {
		out, diags := Format([]byte(src))
		if !diags.HasErrors() {
			t.Errorf("%q: no error", src)
		}
		if string(out) != src {
			t.Errorf("%q: changed to %q", src, out)
		}
	}
}

func TestFormatSmall(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n  \n", ""},
		{"// only a comment", "// only a comment\n"},
		{"(a)\r\n(b)  // c\r\n", "(a)\r\n(b) // c\r\n"},
		{"[g | a, // x\r\n b]\r\n", "[g |\r\n  a, // x\r\n  b\r\n]\r\n"},
		{"(a)", "(a)\n"},
		{"(a)-[]->(b)", "(a)-[]->(b)\n"},
		{"(a)- ->(b)", "(a)-->(b)\n"},
		{"(a)<~ ~>(b)", "(a)<~~>(b)\n"},
		{"{ }", "{}\n"},
		{"(n {k: 1 .. 2})", "(n {k: 1..2})\n"},
		{"[g | a // x\n // y\n , b]", "[g |\n  a, // x\n  // y\n  b\n]\n"},
		{"[g | a // x\n , // y\n b]", "[g |\n  a, // x\n  // y\n  b\n]\n"},
		// White space between a tag and its string goes; a comment there
		// stays, once.
		{"(n {k: md   `x`})", "(n {k: md`x`})\n"},
		{"(n {k: md // c\n`x`})", "(n {\n  k: md // c\n`x`\n})\n"},
		{"(n {k: ``` md // c\nx\n```})", "(n {\n  k: ``` md // c\nx\n```\n})\n"},
	}
	for _, tt := range tests {
		got := checkFormat(t, tt.in, []byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// apply applies edits (sorted, not overlapping) to src.
func apply(src []byte, edits []diag.Edit) []byte {
	var out []byte
	at := 0
	for _, e := range edits {
		out = append(out, src[at:e.Span.Start]...)
		out = append(out, e.NewText...)
		at = e.Span.End
	}
	return append(out, src[at:]...)
}

func TestFormatRange(t *testing.T) {
	src := "(a {k:1})\n[g|a,b]   // g\n\n( c )  (d)\n@@x   (e)\n"
	off := func(s string) int { return strings.Index(src, s) }
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"inside the second pattern", off("g|") + 1, off("g|") + 2, "(a {k:1})\n[g | a, b] // g\n\n( c )  (d)\n@@x   (e)\n"},
		{"a cursor at the end of a pattern", off("( c )") + 5, off("( c )") + 5, "(a {k:1})\n[g|a,b]   // g\n\n(c)\n(d)\n@@x   (e)\n"},
		{"the second pattern on a line", off("(d)"), off("(d)") + 1, "(a {k:1})\n[g|a,b]   // g\n\n( c )\n(d)\n@@x   (e)\n"},
		{"two patterns", off("(a"), off("[g") + 1, "(a {k: 1})\n[g | a, b] // g\n\n( c )  (d)\n@@x   (e)\n"},
		{"everything", 0, len(src), "(a {k: 1})\n[g | a, b] // g\n\n(c)\n(d)\n@@x (e)\n"},
		{"nothing", off("\n\n") + 1, off("\n\n") + 1, src},
	}
	for _, tt := range tests {
		edits, diags := FormatRange([]byte(src), diag.Span{Start: tt.start, End: tt.end})
		if len(diags) > 0 {
			t.Errorf("%s: %v", tt.name, diags)
		}
		if got := string(apply([]byte(src), edits)); got != tt.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}

	// A syntax error elsewhere does not stop range formatting; one inside the
	// range does.
	bad := "( a )\n(b\n( c )\n"
	edits, diags := FormatRange([]byte(bad), diag.Span{Start: 0, End: 1})
	if len(diags) > 0 || string(apply([]byte(bad), edits)) != "(a)\n(b\n( c )\n" {
		t.Errorf("error elsewhere: %v %q", diags, apply([]byte(bad), edits))
	}
	edits, diags = FormatRange([]byte(bad), diag.Span{Start: 0, End: len(bad)})
	if !diags.HasErrors() || len(edits) > 0 {
		t.Errorf("error inside: %v %v", diags, edits)
	}
}

// TestFormatRangeEachItem formats the golden inputs one top-level item at a
// time, last first, and checks that the result formats like the whole file and
// that no range edit is left to make.
func TestFormatRangeEachItem(t *testing.T) {
	files, _ := filepath.Glob("../testdata/format/*.gram")
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, path, src)
	}
}

// checkRanges formats each top-level item of src with FormatRange, last first,
// and checks the result.
func checkRanges(t testing.TB, name string, src []byte) {
	t.Helper()
	_, items, diags := prepare(src)
	if diags.HasErrors() {
		return
	}
	cur := src
	for i := len(items) - 1; i >= 0; i-- {
		edits, diags := FormatRange(cur, diag.Span{Start: items[i].start, End: items[i].start})
		if len(diags) > 0 {
			t.Fatalf("%s: item %d: %v", name, i, diags)
		}
		cur = apply(cur, edits)
	}
	want, _ := Format(src)
	if got, _ := Format(cur); !bytes.Equal(got, want) {
		t.Fatalf("%s: formatted by items then whole (-whole +items):\n%s\ninput:\n%q\nby items:\n%q", name, cmp.Diff(string(want), string(got)), src, cur)
	}
	if j1, j2 := canonicalJSON(t, src), canonicalJSON(t, cur); j1 != j2 {
		t.Fatalf("%s: range formatting changed the meaning:\n%s", name, cmp.Diff(j1, j2))
	}
	if c1, c2 := commentTexts(src), commentTexts(cur); !slices.Equal(c1, c2) {
		t.Fatalf("%s: range formatting changed the comments:\n%s", name, cmp.Diff(c1, c2))
	}
	_, items, _ = prepare(cur)
	for _, it := range items {
		if edits, _ := FormatRange(cur, diag.Span{Start: it.start, End: it.end}); len(edits) > 0 {
			t.Fatalf("%s: range formatting is not idempotent: %v\nafter the first pass:\n%q", name, edits, cur)
		}
	}
}

// TestCommentsEverywhere inserts a comment at every offset of a few sources,
// as an end-of-line comment and on a line of its own, and checks each result
// (idempotent, same meaning, same comments).
func TestCommentsEverywhere(t *testing.T) {
	srcs := []string{
		"{h: 1}\n@@a:L @k([1, 2]) [g:G {k: 1, m: {n: 'x'}} | (a)-[r:R {s: 1..2}]->(b)<==(c), [h | d], e]\n",
		"[t:Tool {description: \"T\", doc: ```\nx\n```} |\n  (p::String {default: \"w\"})==>(::String)\n]\n(a)<-[]-(b)~~(c) @x(...1) (d)\n",
	}
	inserts := []string{"// c\n", " // c\n", "\n// c\n", "\n\n// c\n\n"}
	n := 0
	for _, src := range srcs {
		for i := 0; i <= len(src); i++ {
			for _, ins := range inserts {
				s := []byte(src[:i] + ins + src[i:])
				if _, d := Format(s); d.HasErrors() {
					continue
				}
				n++
				checkFormat(t, "insert", s)
				checkRanges(t, "insert", s)
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d sources were checked", n)
	}
}

// TestGenerated checks generated documents of every construct.
func TestGenerated(t *testing.T) {
	checkFormat(t, "mixed", []byte(gramgen.Mixed(64<<10)))
	checkFormat(t, "agents", []byte(gramgen.AgentFile(400)))
}
