// The line index of a text after an edit, derived from the index of the
// text before it: the lines before the edit keep their starts, those after
// it move by the change in length, and only the lines the edit touches are
// scanned again. An editor that sends every keystroke makes a new text of a
// large file each time; this keeps the cost of its index proportional to the
// lines rather than to the bytes.

package diag

import (
	"bytes"
	"sort"
)

// fileBase is the earlier text of a File made by NewFileAfterEdit, and the
// edit that made it: the bytes [edit.Start, edit.End) of prev replaced by
// newLen bytes.
type fileBase struct {
	prev   *File
	edit   Span
	newLen int
}

// NewFileAfterEdit returns a File for text, which is prev's text with the
// bytes in edit (offsets in prev's text) replaced by newLen bytes. Its line
// index, when first used, is derived from prev's if prev's is built by then;
// it is what NewFile's would be. The caller must not modify text afterwards.
func NewFileAfterEdit(path string, text []byte, prev *File, edit Span, newLen int) *File {
	f := NewFile(path, text)
	if prev != nil && prev.indexed.Load() && edit.Start >= 0 && edit.Start <= edit.End && edit.End <= len(prev.Text) &&
		len(text) == len(prev.Text)-edit.Len()+newLen {
		f.base = &fileBase{prev: prev, edit: edit, newLen: newLen}
	}
	return f
}

// indexFrom builds the line index from b's.
func (f *File) indexFrom(b *fileBase) {
	p, delta := b.prev, b.newLen-b.edit.Len()
	t := f.Text
	// Lines [0, first] start before the edit and keep their starts; line
	// first is scanned again from its start (the one before it too when the
	// edit starts a line: a "\n" typed after a lone "\r" joins them), and
	// so is every line until one starts past the new text where an old line
	// started, moved (whether an offset starts a line depends only on the
	// byte before it and its own). Old lines from there on move.
	first := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > b.edit.Start }) - 1
	if first > 0 && p.lines[first] == b.edit.Start {
		first--
	}
	lines := append(make([]int, 0, len(p.lines)+1), p.lines[:first]...)
	ascii := append(make([]int, 0, len(p.lines)+1), p.ascii[:first]...)
	cr := bytes.IndexByte(t, '\r') >= 0
	after := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > b.edit.End })
	for start := p.lines[first]; ; {
		lines = append(lines, start)
		e, next := lineBreak(t, start, cr)
		if e < 0 {
			e = len(t)
		}
		ascii = append(ascii, start+asciiPrefix(t[start:e]))
		if next < 0 {
			after = len(p.lines)
			break
		}
		start = next
		if start > b.edit.Start+b.newLen {
			for after < len(p.lines) && p.lines[after]+delta < start {
				after++
			}
			if after < len(p.lines) && p.lines[after]+delta == start {
				break
			}
		}
	}
	scanned := len(lines)
	for i := after; i < len(p.lines); i++ {
		lines = append(lines, p.lines[i]+delta)
		ascii = append(ascii, p.ascii[i]+delta)
	}
	f.lines, f.ascii = lines, ascii
	f.moveMarks(p, first, after, scanned, delta)
}

// moveMarks sets the marks of the long lines: those of p's lines before
// first as they were, those from after on moved by delta bytes, those of
// the lines scanned again (up to scanned) afresh.
func (f *File) moveMarks(p *File, first, after, scanned, delta int) {
	shift := scanned - after // how far old line numbers from after on move
	for line, ms := range p.marks {
		switch {
		case line < first:
			if f.marks == nil {
				f.marks = map[int][]mark{}
			}
			f.marks[line] = ms
		case line >= after:
			moved := make([]mark, len(ms))
			for i, m := range ms {
				moved[i] = mark{off: m.off + delta, runes: m.runes, units: m.units}
			}
			if f.marks == nil {
				f.marks = map[int][]mark{}
			}
			f.marks[line+shift] = moved
		}
	}
	for i := first; i < scanned; i++ {
		if end := f.lineEnd(i); end-f.ascii[i] > markEvery {
			f.markLine(i, end)
		}
	}
}
