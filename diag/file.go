// This file defines source files, spans and the conversions between byte
// offsets and line/column positions.
//
// A File's line index is built once, lazily, and records for every line the
// byte offset where it starts and the length of its leading run of ASCII
// bytes. Converting an offset that falls inside that run is plain arithmetic;
// only the part of a line after its first non-ASCII byte is decoded rune by
// rune. Both kinds of column (code points for people, UTF-16 units for the
// Language Server Protocol) share one pair of walking functions, units and
// advance.

package diag

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// File is a source text together with a line index that is built on first
// use. A File is safe for concurrent use by multiple goroutines as long as
// nobody modifies Text; Text must not change once any method has been called.
type File struct {
	// Path names the file in diagnostics. It is not interpreted.
	Path string
	// Text is the complete contents of the file.
	Text []byte

	once sync.Once
	// lines[i] is the byte offset at which 0-based line i starts.
	lines []int
	// ascii[i] is the offset of the first non-ASCII byte of line i, or the
	// offset of its terminator (or len(Text) on the last line) if it has
	// none. Lines end at "\n", "\r\n" or a lone "\r" (see lineBreak).
	ascii []int
	// marks holds, for each line whose text after its ASCII prefix is
	// longer than markEvery bytes, the column counts at rune starts about
	// markEvery bytes apart, so that a column on a long line is counted
	// from the nearest mark rather than from the line's start.
	marks map[int][]mark

	// base, when set, is an earlier text whose line index this one's is
	// derived from (see NewFileAfterEdit), until it is built; indexed is
	// set once it is.
	base    *fileBase
	indexed atomic.Bool

	// positions map the positions of the spans parsed from the text to
	// its offsets (see positions.go); nil when they are the offsets.
	positions atomic.Pointer[Positions]
}

// mark is a rune start on a long line: its offset, and the code points and
// UTF-16 units from the start of the line to it.
type mark struct {
	off, runes, units int
}

// markEvery is about how many bytes apart the marks of a long line are.
const markEvery = 512

// NewFile returns a File for text with the given path. The line index is
// built on first use. The caller must not modify text afterwards.
func NewFile(path string, text []byte) *File {
	return &File{Path: path, Text: text}
}

// Source returns Text as a string without copying it; like Text, it must not be
// modified (the string shares Text's memory, which is why Text must not change).
func (f *File) Source() string {
	if len(f.Text) == 0 {
		return ""
	}
	return unsafe.String(&f.Text[0], len(f.Text))
}

// index builds the line index once.
func (f *File) index() {
	f.once.Do(func() {
		defer f.indexed.Store(true)
		if b := f.base; b != nil {
			f.base = nil
			f.indexFrom(b)
			return
		}
		t := f.Text
		cr := bytes.IndexByte(t, '\r') >= 0
		n := bytes.Count(t, []byte{'\n'}) + 1
		lines := make([]int, 0, n)
		ascii := make([]int, 0, n)
		for start := 0; ; {
			lines = append(lines, start)
			end, next := lineBreak(t, start, cr)
			if end < 0 {
				end = len(t)
			}
			ascii = append(ascii, start+asciiPrefix(t[start:end]))
			if next < 0 {
				break
			}
			start = next
		}
		f.lines, f.ascii = lines, ascii
		for i := range lines {
			if end := f.lineEnd(i); end-ascii[i] > markEvery {
				f.markLine(i, end)
			}
		}
	})
}

// lineBreak returns the offset of the first line terminator in t at or
// after start and the offset of the line after it, or -1 and -1 when there
// is none. Terminators are "\n", "\r\n" and a lone "\r", as the Language
// Server Protocol and editors count lines; cr tells whether t has any "\r"
// (without one the search is for "\n" alone).
func lineBreak(t []byte, start int, cr bool) (end, next int) {
	lim := len(t)
	if i := bytes.IndexByte(t[start:], '\n'); i >= 0 {
		lim = start + i
	}
	if cr {
		if j := bytes.IndexByte(t[start:lim], '\r'); j >= 0 {
			e := start + j
			if e+1 < len(t) && t[e+1] == '\n' {
				return e, e + 2
			}
			return e, e + 1
		}
	}
	if lim == len(t) {
		return -1, -1
	}
	return lim, lim + 1
}

// markLine sets the marks of line i, whose text ends at end.
func (f *File) markLine(i, end int) {
	if f.marks == nil {
		f.marks = map[int][]mark{}
	}
	p := f.ascii[i]
	runes, units := p-f.lines[i], p-f.lines[i]
	var ms []mark
	next := p + markEvery
	for p < end {
		if p >= next {
			ms = append(ms, mark{off: p, runes: runes, units: units})
			next = p + markEvery
		}
		r, size := utf8.DecodeRune(f.Text[p:end])
		p += size
		runes++
		units += runeUnits(r, true)
	}
	f.marks[i] = ms
}

// markBefore returns the last mark of line line0 at or before off (by
// offset) or, with byCount, whose count of columns (UTF-16 units, or code
// points) is at most n; ok is false when there is none.
func (f *File) markBefore(line0, off, n int, byCount, utf16 bool) (m mark, ok bool) {
	ms := f.marks[line0]
	k := sort.Search(len(ms), func(i int) bool {
		if !byCount {
			return ms[i].off > off
		}
		if utf16 {
			return ms[i].units > n
		}
		return ms[i].runes > n
	}) - 1
	if k < 0 {
		return mark{}, false
	}
	return ms[k], true
}

// count returns m's column count: UTF-16 units or code points.
func (m mark) count(utf16 bool) int {
	if utf16 {
		return m.units
	}
	return m.runes
}

// asciiPrefix returns the length of the leading run of ASCII bytes in b.
func asciiPrefix(b []byte) int {
	for i, c := range b {
		if c >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// LineCount returns the number of lines in the file. It is one more than the
// number of line terminators ("\n", "\r\n" or a lone "\r"): an empty file
// has one (empty) line, and a file that ends with a line terminator has an
// empty last line after it.
func (f *File) LineCount() int {
	f.index()
	return len(f.lines)
}

// LineStart returns the byte offset at which the 0-based line line0 starts.
// A negative line0 yields 0 and a line0 past the last line yields len(Text).
func (f *File) LineStart(line0 int) int {
	f.index()
	switch {
	case line0 < 0:
		return 0
	case line0 >= len(f.lines):
		return len(f.Text)
	}
	return f.lines[line0]
}

// LineEnd returns the byte offset at which the text of the 0-based line line0
// ends, that is the offset of its "\n", "\r\n" or "\r" terminator, or len(Text) for
// the last line. A negative line0 yields 0 and a line0 past the last line
// yields len(Text).
func (f *File) LineEnd(line0 int) int {
	f.index()
	switch {
	case line0 < 0:
		return 0
	case line0 >= len(f.lines):
		return len(f.Text)
	}
	return f.lineEnd(line0)
}

// lineEnd is LineEnd for a valid line0, with the index built.
func (f *File) lineEnd(line0 int) int {
	if line0+1 >= len(f.lines) {
		return len(f.Text)
	}
	end := f.lines[line0+1] - 1 // the terminator's last byte
	if end > f.lines[line0] && f.Text[end] == '\n' && f.Text[end-1] == '\r' {
		end--
	}
	return end
}

// LineText returns the text of the 1-based line line1 without its line
// terminator, or nil if there is no such line. The result aliases Text and
// must not be modified.
func (f *File) LineText(line1 int) []byte {
	f.index()
	if line1 < 1 || line1 > len(f.lines) {
		return nil
	}
	start, end := f.lines[line1-1], f.lineEnd(line1-1)
	return f.Text[start:end:end]
}

// clamp limits off to [0, len(Text)].
func (f *File) clamp(off int) int {
	return max(0, min(off, len(f.Text)))
}

// lineOf returns the 0-based line containing the offset off, which must be
// in [0, len(Text)]. The index must be built.
func (f *File) lineOf(off int) int {
	i, found := slices.BinarySearch(f.lines, off)
	if !found {
		i--
	}
	return i
}

// units counts the columns between the start of line line0 and the offset
// off: code points, or UTF-16 code units if utf16 is set. An offset past the
// end of the line's text counts to the end of the text; an offset inside a
// multi-byte sequence counts to the start of that sequence's rune.
func (f *File) units(line0, off int, utf16 bool) int {
	start, end := f.lines[line0], f.lineEnd(line0)
	off = min(off, end)
	fast := min(f.ascii[line0], end)
	if off <= fast {
		return off - start
	}
	p, n := fast, fast-start
	if m, ok := f.markBefore(line0, off, 0, false, utf16); ok {
		p, n = m.off, m.count(utf16)
	}
	for p < off {
		r, size := utf8.DecodeRune(f.Text[p:end])
		if p+size > off {
			break
		}
		p += size
		n += runeUnits(r, utf16)
	}
	return n
}

// advance is the inverse of units: it returns the offset that lies n columns
// after the start of line line0, stopping at the end of the line's text. If
// the n-th column falls inside a rune (the second half of a surrogate pair)
// the result is the start of that rune.
func (f *File) advance(line0, n int, utf16 bool) int {
	start, end := f.lines[line0], f.lineEnd(line0)
	n = max(n, 0)
	fast := min(f.ascii[line0], end)
	if n <= fast-start {
		return start + n
	}
	p := fast
	if m, ok := f.markBefore(line0, 0, n, true, utf16); ok {
		p, n = m.off, n-m.count(utf16)
	} else {
		n -= fast - start
	}
	for p < end && n > 0 {
		r, size := utf8.DecodeRune(f.Text[p:end])
		w := runeUnits(r, utf16)
		if w > n {
			break
		}
		p += size
		n -= w
	}
	return p
}

// runeUnits returns the number of columns taken by r: always 1 when counting
// code points, and 2 for runes outside the Basic Multilingual Plane when
// counting UTF-16 units. Invalid bytes decode as utf8.RuneError and count 1.
func runeUnits(r rune, utf16 bool) int {
	if utf16 && r >= 0x10000 {
		return 2
	}
	return 1
}

// Span is a half-open byte range [Start, End) into a File's Text.
type Span struct {
	Start, End int
}

// Len returns the number of bytes in s, or 0 if End < Start.
func (s Span) Len() int {
	return max(0, s.End-s.Start)
}

// Contains reports whether the offset off lies in s: Start <= off < End. An
// empty span contains only its own start.
func (s Span) Contains(off int) bool {
	if s.End <= s.Start {
		return off == s.Start
	}
	return s.Start <= off && off < s.End
}

// Covers reports whether o lies entirely within s.
func (s Span) Covers(o Span) bool {
	return s.Start <= o.Start && o.End <= s.End
}

// String formats s as "[Start,End)".
func (s Span) String() string {
	return fmt.Sprintf("[%d,%d)", s.Start, s.End)
}

// Position is a location for people: a 1-based Line and a 1-based Column
// counted in Unicode code points. A tab counts as one column.
type Position struct {
	Line, Column int
}

// String formats p as "line:column".
func (p Position) String() string {
	return fmt.Sprintf("%d:%d", p.Line, p.Column)
}

// LSPPosition is a location for the Language Server Protocol: a 0-based Line
// and a 0-based Character counted in UTF-16 code units.
type LSPPosition struct {
	Line, Character int
}

// OffsetPosition returns the Position of the byte offset off, which is first
// clamped into [0, len(Text)]. An offset inside a line terminator maps to the
// end of its line; an offset inside a multi-byte UTF-8 sequence maps to the
// start of its rune.
func (f *File) OffsetPosition(off int) Position {
	f.index()
	off = f.clamp(off)
	line0 := f.lineOf(off)
	return Position{Line: line0 + 1, Column: f.units(line0, off, false) + 1}
}

// PositionOffset returns the byte offset of p, the inverse of
// OffsetPosition. A Column past the end of the line maps to the end of the
// line's text and a Column below 1 to its start. A Line below 1 maps to
// offset 0 and a Line past the last line to len(Text).
func (f *File) PositionOffset(p Position) int {
	f.index()
	switch {
	case p.Line < 1:
		return 0
	case p.Line > len(f.lines):
		return len(f.Text)
	}
	return f.advance(p.Line-1, p.Column-1, false)
}

// OffsetLSP returns the LSPPosition of the byte offset off, which is first
// clamped into [0, len(Text)]. An offset inside a line terminator maps to the
// end of its line; an offset inside a multi-byte UTF-8 sequence maps to the
// start of its rune.
func (f *File) OffsetLSP(off int) LSPPosition {
	f.index()
	off = f.clamp(off)
	line0 := f.lineOf(off)
	return LSPPosition{Line: line0, Character: f.units(line0, off, true)}
}

// LSPOffset returns the byte offset of p, the inverse of OffsetLSP. A
// Character past the end of the line maps to the end of the line's text, a
// negative Character to its start, and a Character pointing between the two
// halves of a surrogate pair to the start of that rune. A negative Line maps
// to offset 0 and a Line past the last line to len(Text).
func (f *File) LSPOffset(p LSPPosition) int {
	f.index()
	switch {
	case p.Line < 0:
		return 0
	case p.Line >= len(f.lines):
		return len(f.Text)
	}
	return f.advance(p.Line, p.Character, true)
}

// LSPRange returns the LSP positions of the start and end of s. Both offsets
// are clamped into the text, and an End before Start is treated as Start.
func (f *File) LSPRange(s Span) (start, end LSPPosition) {
	lo := f.clamp(s.Start)
	hi := max(lo, f.clamp(s.End))
	return f.OffsetLSP(lo), f.OffsetLSP(hi)
}
