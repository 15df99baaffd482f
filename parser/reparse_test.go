package parser

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// outcome is everything a parse produces that callers see: diagnostics, the
// syntax tree, the lowered patterns.
func outcome(t *testing.T, doc *Document, diags diag.List) string {
	t.Helper()
	var b bytes.Buffer
	f := doc.File
	for _, d := range append(diags, doc.Undefined()...).Resolved(f) {
		b.WriteString(d.Code + " " + d.Span.String() + " " + d.Message + " (" + d.Detail + ")\n")
		for _, r := range d.Related {
			b.WriteString("  related " + r.Span.String() + "\n")
		}
	}
	if err := doc.WriteSexp(&b); err != nil {
		t.Fatal(err)
	}
	if err := doc.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	spans := func(n interface{ Span() diag.Span }) { b.WriteString(f.Resolve(n.Span()).String() + " ") }
	for _, p := range doc.Patterns() {
		spans(p)
	}
	for _, p := range doc.Lowered() {
		writePattern(&b, f, p)
	}
	return b.String()
}

// writePattern writes a lowered pattern for outcome: its kind, spans and
// identity, the span of the pattern a reference resolves to, and its
// elements.
func writePattern(b *bytes.Buffer, f *diag.File, p *Pattern) {
	fmt.Fprintf(b, "(%d %s%s %q", p.Kind, f.Resolve(p.Span()), f.Resolve(p.IdentSpan()), p.Subject.Identity)
	if p.Def != nil {
		fmt.Fprintf(b, " def %s", f.Resolve(p.Def.Span()))
	}
	for _, e := range p.Elements {
		b.WriteByte(' ')
		writePattern(b, f, e)
	}
	b.WriteString(") ")
}

// TestReparseMatchesParse applies random edits (insertions, deletions and
// replacements of random text and of gram fragments) to several files, one after
// the other, and checks after each that Reparse gives exactly what Parse gives.
func TestReparseMatchesParse(t *testing.T) {
	files, _ := filepath.Glob("../testdata/parse/*.gram")
	examples, _ := filepath.Glob("../examples/*.gram")
	files = append(files, examples...)
	texts := []string{gramgen.AgentFile(120), gramgen.Broken(6<<10, 5), strayLines(60, "x"), unclosedThenLines(40), unclosedThenWide(12, 150)}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	fragments := []string{"(", ")", "[", "]", "{", "}", ",", "|", "-->", "<-", ":", "::", "\n", " ", "//c\n",
		"(x)", "[g | a]", "{k: 1}", "{a: [1, {k: 2}]}", "(m {a: [{k: 1}], b: 2})", "@k(1) ", "\"s\"", "```\nf\n```", "a", "Tool", "(p::String)==>(::String)", "", "'"}
	for _, seed := range []int64{7, 11, 42, 101, 117} {
		rng := rand.New(rand.NewSource(seed))
		randomEdits(t, rng, texts, fragments)
	}
}

// strayLines returns n lines `(aN) tail`: with a stray token after every
// node, the splitter finds no boundary, and the file is one unit that
// recovery splits at its lines.
func strayLines(n int, tail string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "(a%d) %s\n", i, tail)
	}
	return b.String()
}

// unclosedThenLines returns a subject pattern whose bracket is never closed,
// then n lines of nodes and relationships with records: one unit to the end
// of the file.
func unclosedThenLines(n int) string {
	var b strings.Builder
	b.WriteString("[g:Group {k: 1} | p0,\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "(p%d {name: \"p %d\"})-[:R {w: %d}]->(q%d)\n", i, i, i, i)
	}
	return b.String()
}

// unclosedThenWide is unclosedThenLines with n lines of one node each whose
// record has width entries: a re-parse inside the unit meets recovery steps
// longer than the tokens it first lexes.
func unclosedThenWide(n, width int) string {
	var b strings.Builder
	b.WriteString("[g:Group | p0,\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "(p%d {", i)
		for k := 0; k < width; k++ {
			fmt.Fprintf(&b, "k%d: %d, ", k, k)
		}
		b.WriteString("z: [1, 2]})\n")
	}
	return b.String()
}

// TestReparseAfterBrokenUnitIsLocal: an edit after a stray token on every
// line, or after a bracket never closed, re-parses a few units, not the rest
// of the file; the result is still the full parse's.
func TestReparseAfterBrokenUnitIsLocal(t *testing.T) {
	for name, text := range map[string]string{
		"stray tokens":     strayLines(2000, "x"),
		"stray arrows":     strayLines(2000, ">"),
		"unclosed bracket": unclosedThenLines(2000),
	} {
		t.Run(name, func(t *testing.T) {
			doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
			if doc.units.len() < 1000 {
				t.Fatalf("only %d units: recovery did not split the file at its lines", doc.units.len())
			}
			for _, at := range []int{len(text) / 3, len(text) / 2, len(text) - 20} {
				at = strings.IndexByte(text[at:], '(') + at + 1 // in an identity
				next := text[:at] + "zz" + text[at:]
				f := diag.NewFile("t.gram", []byte(next))
				edit := diag.Span{Start: at, End: at}
				got, ok := reparseSyntax(doc, f, edit, 2)
				if !ok {
					t.Fatal("reparseSyntax refused a valid edit")
				}
				if n := got.fresh[1] - got.fresh[0]; n > 40 {
					t.Errorf("an edit at %d of %d bytes parsed %d units again", at, len(text), n)
				}
				gotDoc, gotDiags := reparse(doc, f, edit, 2)
				want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
				if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, gotDoc, gotDiags)); diff != "" {
					t.Fatalf("Reparse differs from Parse (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func randomEdits(t *testing.T, rng *rand.Rand, texts, fragments []string) {
	for n, text := range texts {
		doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
		for step := 0; step < 300; step++ {
			start := rng.Intn(len(text) + 1)
			end := start + rng.Intn(min(8, len(text)-start)+1)
			ins := fragments[rng.Intn(len(fragments))]
			if rng.Intn(4) == 0 {
				ins = text[rng.Intn(len(text)):][:0] + string(rune('!'+rng.Intn(90)))
			}
			next := text[:start] + ins + text[end:]
			f := diag.NewFile("t.gram", []byte(next))
			if step%2 == 1 {
				// The text in chunks, shared with the version before.
				f = doc.File.Edited(diag.Span{Start: start, End: end}, ins)
			}
			got, gotDiags := reparse(doc, f, diag.Span{Start: start, End: end}, len(ins))
			want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
			if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
				t.Fatalf("text %d step %d: replacing %q at [%d,%d) with %q: Reparse differs from Parse (-want +got):\n%s\ntext before:\n%q",
					n, step, text[start:end], start, end, ins, diff, text)
			}
			if got.fineFrom != want.fineFrom || got.fineFrom >= 0 && got.fineReach != want.fineReach {
				t.Fatalf("text %d step %d: replacing %q at [%d,%d) with %q: the lexer goes token by token from %d, having looked to %d, want %d and %d\nbefore:\n%q\nafter:\n%q",
					n, step, text[start:end], start, end, ins, got.fineFrom, got.fineReach, want.fineFrom, want.fineReach, text, next)
			}
			if step%5 == 0 {
				// Versions share their units and top-level scope: another
				// edit of the same version, after this one, still gives
				// what a full parse gives (the first changed nothing of it).
				at := rng.Intn(len(text) + 1)
				other := text[:at] + "(q)" + text[at:]
				again, againDiags := reparse(doc, diag.NewFile("t.gram", []byte(other)), diag.Span{Start: at, End: at}, 3)
				want, wantDiags := Parse(diag.NewFile("t.gram", []byte(other)))
				if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, again, againDiags)); diff != "" {
					t.Fatalf("text %d step %d: a second edit of the same version, (q) at %d of %q, differs from Parse (-want +got):\n%s", n, step, at, text, diff)
				}
			}
			text, doc = next, got
		}
	}
}

// TestReparseReadsAWindow: re-parsing after an edit of a text in chunks
// (a File made by diag.File.Edited) reads the text around the edit, and
// does not put the whole text together: in a well-formed text, when the
// edit breaks a unit (which recovery splits), and after a record left open
// (the lexer goes token by token to the end).
func TestReparseReadsAWindow(t *testing.T) {
	clean := gramgen.AgentFile(8000)
	for _, tc := range []struct{ name, text, word string }{
		{"clean", clean, "z"},
		{"broken unit", clean, ", "},
		{"open record", "(a {k: 1, b: [2)\n" + clean, "z"},
	} {
		text := tc.text
		doc, _ := ParseForEdits(diag.NewFile("t.gram", []byte(text)))
		at := len(text)/2 + strings.Index(text[len(text)/2:], "(") + 1
		ins, del := diag.Span{Start: at, End: at}, diag.Span{Start: at, End: at + len(tc.word)}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		for i := range 20 {
			if i%2 == 0 {
				doc, _ = reparse(doc, doc.File.Edited(ins, tc.word), ins, len(tc.word))
			} else {
				doc, _ = reparse(doc, doc.File.Edited(del, ""), del, 0)
			}
		}
		runtime.ReadMemStats(&ms)
		if per := (ms.TotalAlloc - before) / 20; per > uint64(len(text))/2 {
			t.Errorf("%s: an edit of a %d-byte text allocates %d bytes", tc.name, len(text), per)
		}
		if string(doc.File.Bytes()) != text {
			t.Fatalf("%s: the text after the edits is not the text before them", tc.name)
		}
	}
}

// TestReparseUnitsOwnTheirText: the units of a document made for edits,
// and of every version re-parsed from it, own their texts: no token points
// into the text of any version of the document, so a version keeps no
// other's text alive.
func TestReparseUnitsOwnTheirText(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "(a%d {k: %d})\n", i, i)
	}
	text := b.String()
	f0 := diag.NewFile("t.gram", []byte(text))
	doc, _ := ParseForEdits(f0)
	texts := []string{f0.Source()}
	rng := rand.New(rand.NewSource(3))
	for step := 0; step < 60; step++ {
		// Type into an identity: forwards, backwards, anywhere.
		at := rng.Intn(len(text) - 20)
		at += strings.IndexByte(text[at:], '(') + 1
		next := text[:at] + "z" + text[at:]
		f := diag.NewFile("t.gram", []byte(next))
		got, _ := reparse(doc, f, diag.Span{Start: at, End: at}, 1)
		src := f.Source()
		texts = append(texts, src)
		for _, p := range got.Patterns() {
			id := p.Path.Left.Subject.Ident
			sp := f.Resolve(id.Span())
			if id.Value != src[sp.Start:sp.End] {
				t.Fatalf("step %d: token %q is not the text at its place %v", step, id.Value, sp)
			}
			for k, x := range texts {
				if sameMemory(id.Value, x) {
					t.Fatalf("step %d: token %q points into the text of version %d", step, id.Value, k)
				}
			}
		}
		text, doc = next, got
	}
}

func sameMemory(sub, whole string) bool {
	if len(sub) == 0 || len(whole) == 0 {
		return true
	}
	s := unsafeStringData(sub)
	w := unsafeStringData(whole)
	return s >= w && s < w+uintptr(len(whole))
}

// FuzzReparse checks that re-parsing after any edit of any text gives exactly
// what a full parse gives, from a document made for edits (whose units and
// top-level scope the re-parse takes over).
func FuzzReparse(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/parse/*.gram")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(string(b), uint16(10), uint16(3), "(x)-->")
		}
	}
	f.Add("(a) (b)", uint16(3), uint16(0), "-->")
	f.Add(strayLines(8, "x"), uint16(20), uint16(2), "]")
	f.Add(unclosedThenLines(6), uint16(60), uint16(1), "}")
	f.Add("(a {k: 1\n(b)\n(c {j: 2})\n", uint16(9), uint16(0), "}")
	f.Add("{k: 1}\n[g | a] (a)", uint16(0), uint16(1), "")
	f.Fuzz(func(t *testing.T, text string, at, n uint16, ins string) {
		start := int(at) % (len(text) + 1)
		end := start + int(n)%(len(text)-start+1)
		doc, _ := ParseForEdits(diag.NewFile("t.gram", []byte(text)))
		next := text[:start] + ins + text[end:]
		got, gotDiags := reparse(doc, diag.NewFile("t.gram", []byte(next)), diag.Span{Start: start, End: end}, len(ins))
		want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
		if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
			t.Fatalf("replacing [%d,%d) of %q with %q: Reparse differs from Parse (-want +got):\n%s", start, end, text, ins, diff)
		}
	})
}

// TestReparseStops: told to stop, a re-parse returns nothing once the
// syntax is parsed; told to go on, it gives what a full parse gives.
func TestReparseStops(t *testing.T) {
	text := "(a)\n[g | a, b]\n(b {k: 1})\n"
	doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
	next := "(a)\n[g | a, bb]\n(b {k: 1})\n"
	edit := diag.Span{Start: 13, End: 13}
	asked := 0
	got, diags, stopped := Reparse(doc, diag.NewFile("t.gram", []byte(next)), edit, 1, func() bool { asked++; return true })
	if !stopped || got != nil || diags != nil || asked != 1 {
		t.Errorf("told to stop: doc %v, %d diagnostics, stopped %v, asked %d times", got, len(diags), stopped, asked)
	}
	got, diags, stopped = Reparse(doc, diag.NewFile("t.gram", []byte(next)), edit, 1, func() bool { return false })
	want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
	if stopped || cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, diags)) != "" {
		t.Errorf("not told to stop: stopped %v, or the result differs from Parse", stopped)
	}
	if u := got.Undefined(); len(diags) != 0 || len(u) != 1 || u[0].Code != "undefined-reference" {
		t.Errorf("diagnostics = %v and undefined references %v, want the undefined reference bb", diags, u)
	}
}

// TestReparseTooDeep: a unit with brackets nested deeper than MaxDepth is
// recovered from alike by Parse and by Reparse: the patterns on the lines
// that start in column one after the deep brackets are kept.
func TestReparseTooDeep(t *testing.T) {
	texts := []string{
		"(a)\n" + strings.Repeat("[", MaxDepth+2) + "\n(b)\n(c)\n",
		"(a)\n" + strings.Repeat("[", MaxDepth+1) + "x" + strings.Repeat("]", MaxDepth+1) + "\n(b)-->(c)\n[q |\n(z)\n",
	}
	for _, text := range texts {
		doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
		for _, at := range []int{1, len(text) - 1} {
			next := text[:at] + " " + text[at:]
			got, gotDiags := reparse(doc, diag.NewFile("t.gram", []byte(next)), diag.Span{Start: at, End: at}, 1)
			want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
			if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
				t.Errorf("a space inserted at %d: Reparse differs from Parse (-want +got):\n%s", at, diff)
			}
			if len(want.Patterns()) < 2 {
				t.Errorf("a space inserted at %d: %d patterns kept, want the ones after the deep brackets too", at, len(want.Patterns()))
			}
		}
	}
}

// TestChangedLowered: after edits, ChangedLowered yields the lowered
// patterns that are not the previous version's at the same index, as a
// comparison of the whole lists finds them, and a re-parse makes neither
// list whole.
func TestChangedLowered(t *testing.T) {
	defer func(n int) { unitChunk = n }(unitChunk)
	unitChunk = 4
	text := gramgen.AgentFile(200)
	doc, _ := ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	rng := rand.New(rand.NewSource(9))
	for step := 0; step < 200; step++ {
		at := rng.Intn(len(text) - 20)
		at += strings.IndexByte(text[at:], '(') + 1
		next := text[:at] + "z" + text[at:]
		got, _ := reparse(doc, doc.File.Edited(diag.Span{Start: at, End: at}, "z"), diag.Span{Start: at, End: at}, 1)
		if got.lists.lowered.Load() != nil || got.lists.patterns.Load() != nil {
			t.Fatalf("step %d: a re-parse made a whole list", step)
		}
		if got.NumLowered() == doc.NumLowered() {
			var want, changed []int
			for i, p := range got.Lowered() {
				if p != doc.Lowered()[i] {
					want = append(want, i)
				}
				if got.LoweredAt(i) != p {
					t.Fatalf("step %d: LoweredAt(%d) is not Lowered()[%d]", step, i, i)
				}
			}
			for i, p := range got.ChangedLowered(doc) {
				if p != got.Lowered()[i] {
					t.Fatalf("step %d: ChangedLowered gives %d with another pattern", step, i)
				}
				changed = append(changed, i)
			}
			if !slices.Equal(changed, want) {
				t.Fatalf("step %d: ChangedLowered gives %v, want %v", step, changed, want)
			}
		}
		text, doc = next, got
	}
}

// reparse is Reparse told never to stop.
func reparse(prev *Document, f *diag.File, edit diag.Span, newLen int) (*Document, diag.List) {
	doc, diags, _ := Reparse(prev, f, edit, newLen, nil)
	return doc, diags
}
