package lsp

import (
	"math/rand/v2"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gramlang/gram/diag"
)

// TestApplyChanges applies events of several ranged changes, some with a
// change of the whole text among them, and checks that the text is the
// one the changes make in turn and that the one edit returned for them
// turns the text before into it.
func TestApplyChanges(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	text := "(a)\n[g | a]\n(b {k: \"é😀\"})\r\n"
	f := diag.NewFile("t.gram", []byte(text))
	for step := 0; step < 3000; step++ {
		var changes []changeEvent
		next := text
		for range 1 + rnd.IntN(4) {
			if rnd.IntN(20) == 0 {
				next = fragments[rnd.IntN(len(fragments))] + next[:len(next)/2]
				changes = append(changes, changeEvent{Text: next})
				continue
			}
			a := boundary(next, rnd.IntN(len(next)+1))
			b := boundary(next, min(len(next), a+rnd.IntN(12)))
			ins := fragments[rnd.IntN(len(fragments))]
			nf := diag.NewFile("", []byte(next))
			r := protocol.Range{Start: lspPos(nf.OffsetLSP(a)), End: lspPos(nf.OffsetLSP(b))}
			changes = append(changes, changeEvent{Range: &r, Text: ins})
			next = next[:a] + ins + next[b:]
		}
		g, e := applyChanges(f, changes)
		edit, n := e.Span, e.NewLen
		if got := string(g.Bytes()); got != next {
			t.Fatalf("step %d: text %q, want %q", step, got, next)
		}
		if edit.Start < 0 || edit.End > len(text) || edit.Start > edit.End || edit.Start+n > len(next) ||
			text[:edit.Start]+next[edit.Start:edit.Start+n]+text[edit.End:] != next {
			t.Fatalf("step %d: the edit %v, %d bytes, does not make %q of %q", step, edit, n, next, text)
		}
		if len(next) > 4000 {
			next = next[:100]
			g = diag.NewFile("t.gram", []byte(next))
		}
		text, f = next, g
	}
}

func lspPos(p diag.LSPPosition) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}
