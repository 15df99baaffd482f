package parser

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
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
	for _, d := range diags {
		b.WriteString(d.Code + " " + d.Span.String() + " " + d.Message + "\n")
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
	spans := func(n interface{ Span() diag.Span }) { b.WriteString(n.Span().String() + " ") }
	for _, p := range doc.Patterns {
		spans(p)
	}
	for _, p := range doc.Lowered {
		b.WriteString(p.Span().String() + p.IdentSpan().String() + " ")
	}
	return b.String()
}

// TestReparseMatchesParse applies random edits (insertions, deletions and
// replacements of random text and of gram fragments) to several files, one after
// the other, and checks after each that Reparse gives exactly what Parse gives.
func TestReparseMatchesParse(t *testing.T) {
	files, _ := filepath.Glob("../testdata/parse/*.gram")
	examples, _ := filepath.Glob("../examples/*.gram")
	files = append(files, examples...)
	texts := []string{gramgen.AgentFile(120)}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	fragments := []string{"(", ")", "[", "]", "{", "}", ",", "|", "-->", "<-", ":", "::", "\n", " ", "//c\n",
		"(x)", "[g | a]", "{k: 1}", "@k(1) ", "\"s\"", "```\nf\n```", "a", "Tool", "(p::String)==>(::String)", ""}
	for _, seed := range []int64{7, 11, 42} {
		rng := rand.New(rand.NewSource(seed))
		randomEdits(t, rng, texts, fragments)
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
			got, gotDiags := Reparse(doc, f, diag.Span{Start: start, End: end}, len(ins))
			want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
			if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
				t.Fatalf("text %d step %d: replacing %q at [%d,%d) with %q: Reparse differs from Parse (-want +got):\n%s\ntext:\n%s",
					n, step, text[start:end], start, end, ins, diff, next)
			}
			text, doc = next, got
		}
	}
}

// TestReparseSharesNoText: a reparsed document's tokens point into its own text.
func TestReparseSharesNoText(t *testing.T) {
	text := "(a {k: \"v\"})\n(b)\n(c {k: 1})\n"
	doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
	next := "(a {k: \"v\"})\n(bb)\n(c {k: 1})\n"
	f := diag.NewFile("t.gram", []byte(next))
	got, _ := Reparse(doc, f, diag.Span{Start: 14, End: 15}, 2)
	src := f.Source()
	for _, p := range got.Patterns {
		id := p.Path.Left.Subject.Ident
		if id.Value != src[id.Start():id.End()] || !sameMemory(id.Value, src) {
			t.Errorf("token %q does not point into the new text", id.Value)
		}
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
// what a full parse gives.
func FuzzReparse(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/parse/*.gram")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(string(b), uint16(10), uint16(3), "(x)-->")
		}
	}
	f.Add("(a) (b)", uint16(3), uint16(0), "-->")
	f.Add("{k: 1}\n[g | a] (a)", uint16(0), uint16(1), "")
	f.Fuzz(func(t *testing.T, text string, at, n uint16, ins string) {
		start := int(at) % (len(text) + 1)
		end := start + int(n)%(len(text)-start+1)
		doc, _ := Parse(diag.NewFile("t.gram", []byte(text)))
		next := text[:start] + ins + text[end:]
		got, gotDiags := Reparse(doc, diag.NewFile("t.gram", []byte(next)), diag.Span{Start: start, End: end}, len(ins))
		want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
		if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, got, gotDiags)); diff != "" {
			t.Fatalf("replacing [%d,%d) of %q with %q: Reparse differs from Parse (-want +got):\n%s", start, end, text, ins, diff)
		}
	})
}
