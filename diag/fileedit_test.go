package diag

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestNewFileAfterEdit applies random edits to texts with short, long,
// non-ASCII and empty lines and checks after each that the index derived
// from the text before the edit is the one built from scratch, and that
// positions convert alike.
func TestNewFileAfterEdit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	long := strings.Repeat("é-x ", 400) // a long line with marks
	pieces := []string{"\n", "\n\n", "a", "abc", "é", "😀", "\r\n", long, "(a)-->(b)\n", "", "\r", "x\r", "\ry"}
	text := "first\n" + long + "\nlast é\n"
	prev := NewFile("t", []byte(text))
	prev.index()
	for step := 0; step < 6000; step++ {
		start := r.IntN(len(text) + 1)
		end := min(len(text), start+r.IntN(12))
		if r.IntN(10) == 0 {
			end = min(len(text), start+r.IntN(2000))
		}
		ins := pieces[r.IntN(len(pieces))]
		next := text[:start] + ins + text[end:]
		got := NewFileAfterEdit("t", []byte(next), prev, Span{Start: start, End: end}, len(ins))
		if got.base == nil {
			t.Fatalf("step %d: the index is not derived", step)
		}
		want := NewFile("t", []byte(next))
		got.index()
		want.index()
		if !reflect.DeepEqual(got.lines, want.lines) || !reflect.DeepEqual(got.ascii, want.ascii) {
			t.Fatalf("step %d: replacing [%d,%d) with %q: lines %v ascii %v, want %v %v", step, start, end, ins, got.lines, got.ascii, want.lines, want.ascii)
		}
		if len(got.marks) != len(want.marks) || len(want.marks) > 0 && !reflect.DeepEqual(got.marks, want.marks) {
			t.Fatalf("step %d: replacing [%d,%d) with %q: marks differ:\n%v\nwant\n%v", step, start, end, ins, got.marks, want.marks)
		}
		for k := 0; k < 5; k++ {
			off := r.IntN(len(next) + 1)
			if g, w := got.OffsetLSP(off), want.OffsetLSP(off); g != w {
				t.Fatalf("step %d: OffsetLSP(%d) = %v, want %v", step, off, g, w)
			}
		}
		text, prev = next, got
		if len(text) > 50000 {
			text = text[:1000]
			prev = NewFile("t", []byte(text))
			prev.index()
		}
	}
}

// TestNewFileAfterEditUnindexed: a File whose earlier text has no index yet
// does not keep that text: it builds its own.
func TestNewFileAfterEditUnindexed(t *testing.T) {
	prev := NewFile("t", []byte("a\nb\n"))
	f := NewFileAfterEdit("t", []byte("a\nxb\n"), prev, Span{Start: 2, End: 2}, 1)
	if f.base != nil {
		t.Fatal("the earlier text is kept though its index is not built")
	}
	prev.index()
	f = NewFileAfterEdit("t", []byte("a\nxb\n"), prev, Span{Start: 2, End: 3}, 1)
	if f.base != nil {
		t.Fatal("an edit that does not match the texts is taken")
	}
}
