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
	doc, diags := reparse(prev, diag.NewFile("t.gram", []byte(next)), diag.Span{Start: start, End: end}, len(ins))
	return next, doc, diags
}

// TestLinkKeepsTheUnitsTheEditLeaves: after an edit in the middle of a
// file, every pattern but the edited unit's is the earlier version's, by
// pointer, before the edit and after it, and the document is what a full
// parse gives.
func TestLinkKeepsTheUnitsTheEditLeaves(t *testing.T) {
	text := gramgen.AgentFile(2000)
	prev, _ := ParseForEdits(diag.NewFile("t.gram", []byte(text)))
	at := len(text)/2 + strings.Index(text[len(text)/2:], "Answers questions")
	next, doc, diags := edited(prev, text, at, at, "x")
	want, wantDiags := Parse(diag.NewFile("t.gram", []byte(next)))
	if diff := cmp.Diff(outcome(t, want, wantDiags), outcome(t, doc, diags)); diff != "" {
		t.Fatalf("Reparse differs from Parse (-want +got):\n%s", diff)
	}
	if len(doc.Lowered()) != len(prev.Lowered()) {
		t.Fatalf("%d patterns, %d before the edit", len(doc.Lowered()), len(prev.Lowered()))
	}
	fresh := 0
	for i, p := range doc.Lowered() {
		if p != prev.Lowered()[i] {
			fresh++
			if sp := doc.File.Resolve(p.Span()); sp.End < at || sp.Start > at+1 {
				t.Errorf("pattern %d at %s, away from the edit at %d, was lowered again", i, sp, at)
			}
		}
	}
	if fresh != 1 {
		t.Errorf("%d patterns lowered again, want the edited one", fresh)
	}
}

// TestLinkResolvesAgain: a reference that the edit makes resolve
// elsewhere, or not at all, before the edit or after it, resolves as a full
// parse resolves it, and the earlier version's patterns are left as they
// were; so do the patterns that refer to a pattern lowered again.
func TestLinkResolvesAgain(t *testing.T) {
	for _, c := range []struct{ name, text, old, new string }{
		{"defined later", "[g | a]\n(b)\n(c)\n", "(b)", "(a)"},
		{"no longer defined", "[g | a]\n(a)\n(c)\n", "(a)", "(b)"},
		{"defined elsewhere", "[g | a]\n(b)\n[a | b]\n", "[a | b]", "(a:L)"},
		{"undefined, then suggested", "[g | abcd]\n(c)\n", "(c)", "(abce)"},
		{"self, then defined", "[a | a]\n(c)\n", "(c)", "(a)"},
		{"defined again later", "[g | a]\n(a)\n(c)\n", "(c)", "(a:L)"},
		{"a name defined later removed", "[g | a, b]\n(a)\n(b)\n", "(b)", "(x)"},
		{"the definition edited", "(a)\n[g | a]\n(a)-->(b)\n", "(a)\n", "(a:L)\n"},
		{"the definition removed", "(a)\n[g | a]\n(a)-->(b)\n", "(a)\n", "(c)\n"},
		{"defined earlier", "(x)\n[g | a]\n(a)-->(b)\n", "(x)\n", "(a)\n"},
		{"each refers to the other", "[a | b]\n[b | a]\n[c | a, b]\n", "[a | b]", "[a:L | b]"},
		{"a relationship repeated", "(a)-[r]->(b)\n(c)\n(a)-[r]->(b)\n", "(c)", "(a)-[r]->(c)"},
		{"the header added", "(a)\n{k: 1}\n[g | a]\n", "(a)\n", ""},
		{"the header removed", "{k: 1}\n(a)\n[g | a]\n", "{k: 1}\n", "(b)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev, _ := ParseForEdits(diag.NewFile("t.gram", []byte(c.text)))
			before := outcome(t, prev, nil)
			at := strings.Index(c.text, c.old)
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

// TestReparseKeepsNoEarlierPatterns: a version that keeps the patterns
// of the units an edit leaves keeps none of the patterns of the unit it
// edits (nor, through them, their syntax and text).
func TestReparseKeepsNoEarlierPatterns(t *testing.T) {
	for _, c := range []struct{ name, text, at string }{
		{"agents", gramgen.AgentFile(3000), "Answers questions"},
		{"data", gramgen.Clean(256 << 10), "Person"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev, _ := ParseForEdits(diag.NewFile("t.gram", []byte(c.text)))
			at := len(c.text)/2 + strings.Index(c.text[len(c.text)/2:], c.at)
			// Two edits: the first lowers the edited unit apart from the
			// others, the second replaces that lowering.
			text, doc, _ := edited(prev, c.text, at, at, "x")
			var edited1 []weak.Pointer[Pattern]
			for i, p := range doc.Lowered() {
				if p != prev.Lowered()[i] {
					edited1 = append(edited1, weak.Make(p))
					for _, e := range p.Elements {
						edited1 = append(edited1, weak.Make(e))
					}
				}
			}
			if len(edited1) == 0 {
				t.Fatal("no pattern was lowered again")
			}
			_, doc, _ = edited(doc, text, at, at, "y")
			prev = nil
			runtime.GC()
			runtime.GC()
			alive := 0
			for _, w := range edited1 {
				if w.Value() != nil {
					alive++
				}
			}
			if alive > 0 {
				t.Errorf("%d of the %d patterns of the edited unit's earlier lowering are still alive", alive, len(edited1))
			}
			runtime.KeepAlive(doc)
		})
	}
}
