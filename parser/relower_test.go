package parser

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/google/go-cmp/cmp"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
)

// edited returns text with the bytes [start, end) replaced by ins, and the
// re-parse of it from prev.
func edited(prev *Document, text string, start, end int, ins string) (string, *Document, diag.List) {
	next := text[:start] + ins + text[end:]
	doc, diags := Reparse(prev, diag.NewFile("t.gram", []byte(next)), diag.Span{Start: start, End: end}, len(ins))
	return next, doc, diags
}

// TestRelowerReusesUnitsBeforeTheEdit: after an edit in the middle of a
// file, the patterns of the units before it are the earlier version's, those
// after it new, and the document is what a full parse gives.
func TestRelowerReusesUnitsBeforeTheEdit(t *testing.T) {
	text := gramgen.AgentFile(2000)
	prev, _ := Parse(diag.NewFile("t.gram", []byte(text)))
	at := len(text)/2 + strings.Index(text[len(text)/2:], "Answers questions")
	next, doc, diags := edited(prev, text, at, at, "x")
	want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
	if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, doc, diags)); diff != "" {
		t.Fatalf("Reparse differs from Parse (-want +got):\n%s", diff)
	}
	shared, fresh := 0, 0
	for i, p := range doc.Lowered {
		switch {
		case p == prev.Lowered[i]:
			shared++
			if p.Span().End > at {
				t.Fatalf("pattern %d at %s, after the edit at %d, is the earlier version's", i, p.Span(), at)
			}
		default:
			fresh++
		}
	}
	if shared < len(doc.Lowered)/3 || fresh == 0 {
		t.Errorf("%d patterns reused and %d lowered again of %d: want the units before the edit reused", shared, fresh, len(doc.Lowered))
	}
}

// TestRelowerResolvesAgain: a reference before the edit that the edit makes
// resolve elsewhere, or not at all, resolves as a full parse resolves it,
// and the earlier version's patterns are left as they were.
func TestRelowerResolvesAgain(t *testing.T) {
	for _, c := range []struct{ name, text, old, new string }{
		{"defined later", "[g | a]\n(b)\n(c)\n", "(b)", "(a)"},
		{"no longer defined", "[g | a]\n(a)\n(c)\n", "(a)", "(b)"},
		{"defined elsewhere", "[g | a]\n(b)\n[a | b]\n", "[a | b]", "(a:L)"},
		{"undefined, then suggested", "[g | abcd]\n(c)\n", "(c)", "(abce)"},
		{"self, then defined", "[a | a]\n(c)\n", "(c)", "(a)"},
		{"defined again later", "[g | a]\n(a)\n(c)\n", "(c)", "(a:L)"},
		{"a name defined later removed", "[g | a, b]\n(a)\n(b)\n", "(b)", "(x)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev, _ := Parse(diag.NewFile("t.gram", []byte(c.text)))
			before := outcome(t, prev, nil)
			at := strings.LastIndex(c.text, c.old)
			next, doc, diags := edited(prev, c.text, at, at+len(c.old), c.new)
			want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
			if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, doc, diags)); diff != "" {
				t.Errorf("Reparse differs from Parse (-want +got):\n%s", diff)
			}
			if after := outcome(t, prev, nil); after != before {
				t.Errorf("the earlier version changed:\n%s", cmp.Diff(before, after))
			}
		})
	}
}

// TestReparseKeepsNoEarlierPatterns: a version that reuses the patterns of
// the units before an edit keeps no pattern of the earlier version's later
// units alive (nor, through them, its syntax and text).
func TestReparseKeepsNoEarlierPatterns(t *testing.T) {
	for _, c := range []struct{ name, text, at string }{
		{"agents", gramgen.AgentFile(3000), "Answers questions"},
		{"data", gramgen.Clean(256 << 10), "Person"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev, _ := Parse(diag.NewFile("t.gram", []byte(c.text)))
			n := len(prev.Lowered)
			var later []weak.Pointer[Pattern]
			for _, p := range prev.Lowered[n*3/4:] {
				later = append(later, weak.Make(p))
				for _, e := range p.Elements {
					later = append(later, weak.Make(e))
				}
			}
			at := len(c.text)/2 + strings.Index(c.text[len(c.text)/2:], c.at)
			_, doc, _ := edited(prev, c.text, at, at, "x")
			if doc.Lowered[1] != prev.Lowered[1] {
				t.Fatal("the patterns before the edit were not reused")
			}
			prev = nil
			runtime.GC()
			runtime.GC()
			alive := 0
			for _, w := range later {
				if w.Value() != nil {
					alive++
				}
			}
			if alive > 0 {
				t.Errorf("%d of the earlier version's %d last patterns are still alive", alive, len(later))
			}
			runtime.KeepAlive(doc)
		})
	}
}
