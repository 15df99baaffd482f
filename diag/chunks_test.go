package diag

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"weak"
)

// TestEdited applies random edits to texts with short, long, non-ASCII and
// empty lines and line terminators of every kind, each to the File of the
// text before, and checks after each that the File made by the edit has the
// text, the lines and the positions of a File made from the text afresh,
// and that its chunks end lines.
func TestEdited(t *testing.T) {
	for _, size := range []int{64, 2} {
		t.Run(fmt.Sprintf("groups of %d", size), func(t *testing.T) {
			defer func(g int) { groupSize = g }(groupSize)
			groupSize = size
			testEdited(t)
		})
	}
}

// testEdited is TestEdited at the current groupSize.
func testEdited(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	long := strings.Repeat("é-x ", 400) // a long line with marks
	pieces := []string{"\n", "\n\n", "a", "abc", "é", "😀", "\r\n", long, "(a)-->(b)\n", "", "\r", "x\r", "\ry",
		strings.Repeat("line of text\n", 500)}
	text := "first\n" + long + "\nlast é\n"
	prev := NewFile("t", []byte(text))
	for step := 0; step < 6000; step++ {
		start := r.IntN(len(text) + 1)
		end := min(len(text), start+r.IntN(12))
		if r.IntN(10) == 0 {
			end = min(len(text), start+r.IntN(20000))
		}
		ins := pieces[r.IntN(len(pieces))]
		next := text[:start] + ins + text[end:]
		got := prev.Edited(Span{Start: start, End: end}, ins)
		want := NewFile("t", []byte(next))
		checkChunks(t, step, got)
		if got.Len() != len(next) {
			t.Fatalf("step %d: Len() = %d, want %d", step, got.Len(), len(next))
		}
		if got.LineCount() != want.LineCount() {
			t.Fatalf("step %d: replacing [%d,%d) with %q: %d lines, want %d", step, start, end, ins, got.LineCount(), want.LineCount())
		}
		for k := 0; k < 5; k++ {
			line := r.IntN(want.LineCount() + 1)
			if g, w := got.LineStart(line), want.LineStart(line); g != w {
				t.Fatalf("step %d: LineStart(%d) = %d, want %d", step, line, g, w)
			}
			if g, w := got.LineEnd(line), want.LineEnd(line); g != w {
				t.Fatalf("step %d: LineEnd(%d) = %d, want %d", step, line, g, w)
			}
			if g, w := string(got.LineText(line+1)), string(want.LineText(line+1)); g != w {
				t.Fatalf("step %d: LineText(%d) = %q, want %q", step, line+1, g, w)
			}
			off := r.IntN(len(next) + 1)
			if g, w := got.OffsetLSP(off), want.OffsetLSP(off); g != w {
				t.Fatalf("step %d: OffsetLSP(%d) = %v, want %v", step, off, g, w)
			}
			if g, w := got.OffsetPosition(off), want.OffsetPosition(off); g != w {
				t.Fatalf("step %d: OffsetPosition(%d) = %v, want %v", step, off, g, w)
			}
			p := LSPPosition{Line: line, Character: r.IntN(900)}
			if g, w := got.LSPOffset(p), want.LSPOffset(p); g != w {
				t.Fatalf("step %d: LSPOffset(%v) = %d, want %d", step, p, g, w)
			}
			a := r.IntN(len(next) + 1)
			b := min(len(next), a+r.IntN(9000))
			if g := string(got.ByteRange(a, b)); g != next[a:b] {
				t.Fatalf("step %d: ByteRange(%d, %d) = %q, want %q", step, a, b, g, next[a:b])
			}
		}
		if step%50 == 0 && string(got.Bytes()) != next {
			t.Fatalf("step %d: the text differs", step)
		}
		text, prev = next, got
		if len(text) > 50000 {
			text = text[:1000]
			prev = NewFile("t", []byte(text))
		}
	}
}

// checkChunks fails unless every chunk of f but the last ends with "\n",
// none is empty, and the table's offsets and line counts add up.
func checkChunks(t *testing.T, step int, f *File) {
	t.Helper()
	f.index()
	tab := f.tab
	cs := chunksOf(tab)
	for i, c := range cs {
		if c.text == "" || i < len(cs)-1 && c.text[len(c.text)-1] != '\n' {
			t.Fatalf("step %d: chunk %d of %d is %q", step, i, len(cs), c.text)
		}
	}
	off, lines := 0, 0
	for g, gr := range tab.groups {
		if len(gr.chunks) == 0 || tab.offs[g] != off || tab.lineN[g] != lines {
			t.Fatalf("step %d: the table is wrong at group %d", step, g)
		}
		for j, c := range gr.chunks {
			if gr.offs[j+1]-gr.offs[j] != len(c.text) || gr.lineN[j+1]-gr.lineN[j] != len(c.lines) {
				t.Fatalf("step %d: the table is wrong at chunk %d of group %d", step, j, g)
			}
			off, lines = off+len(c.text), lines+len(c.lines)
		}
	}
	if n := len(tab.groups); tab.offs[n] != off || tab.lineN[n] != lines {
		t.Fatalf("step %d: the table's end is wrong", step)
	}
}

// chunksOf returns the chunks of tab in order.
func chunksOf(tab *table) []*chunk {
	var cs []*chunk
	for _, g := range tab.groups {
		cs = append(cs, g.chunks...)
	}
	return cs
}

// TestEditedShares: an edit makes again the chunk it touches and shares
// the others.
func TestEditedShares(t *testing.T) {
	text := strings.Repeat("a line of some length\n", 2000)
	f := NewFile("t", []byte(text))
	g := f.Edited(Span{Start: len(text) / 2, End: len(text)/2 + 1}, "b")
	f.index()
	fresh := 0
	gs, fs := chunksOf(g.tab), chunksOf(f.tab)
	for i, c := range gs {
		if c != fs[i] {
			fresh++
		}
	}
	if fresh != 1 || len(gs) != len(fs) {
		t.Errorf("%d chunks of %d made again (of %d before)", fresh, len(gs), len(fs))
	}
	shared := 0
	for i, gr := range g.tab.groups {
		if gr == f.tab.groups[i] {
			shared++
		}
	}
	if shared != len(f.tab.groups)-1 || len(g.tab.groups) != len(f.tab.groups) {
		t.Errorf("%d groups of %d shared (of %d before)", shared, len(g.tab.groups), len(f.tab.groups))
	}
}

// TestEditedFileReleasesTheFirstText checks that a version made by an edit
// does not keep the text of the File it was made from alive: the chunks it
// shares with it must hold their own bytes, not parts of that text, or the
// whole text of the opened file stays reachable for as long as any chunk
// no edit touched does.
func TestEditedFileReleasesTheFirstText(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 20*chunkSize; i++ {
		fmt.Fprintf(&b, "line %d of the text\n", i)
	}
	want := b.String() + "x"
	text := []byte(b.String())
	first := weak.Make(&text[0])
	f := NewFile("a.gram", text)
	g := f.Edited(Span{Start: f.Len(), End: f.Len()}, "x")
	f, text = nil, nil
	for range 3 {
		runtime.GC()
	}
	if first.Value() != nil {
		t.Error("the text of the File an edit was made from is still reachable from the edited File")
	}
	if got := string(g.Bytes()); got != want {
		t.Errorf("edited text differs from the expected one (%d bytes, want %d)", len(got), len(want))
	}
}
