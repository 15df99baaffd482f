// This file defines source files, spans and the conversions between byte
// offsets and line/column positions.
//
// A File's text is kept in chunks of whole lines (see chunks.go), and its
// line index, built once, lazily, records for every line of a chunk the
// offset in the chunk where it starts and the length of its leading run of
// ASCII bytes. Converting an offset that falls inside that run is plain arithmetic;
// only the part of a line after its first non-ASCII byte is decoded rune by
// rune. Both kinds of column (code points for people, UTF-16 units for the
// Language Server Protocol) share one pair of walking functions, units and
// advance.

package diag

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// File is a source text together with a line index that is built on first
// use. A File is safe for concurrent use by multiple goroutines. Its text
// never changes: an edit makes a new File (see [File.Edited]), which shares
// with the one before the chunks of text the edit does not touch.
type File struct {
	// Path names the file in diagnostics. It is not interpreted.
	Path string

	// text is the complete contents, given to NewFile or, for a File made
	// by an edit, put together from the chunks when first asked for
	// (whole guards that); n is its length.
	text  []byte
	whole sync.Once
	full  atomic.Bool // text is complete
	n     int

	// tab is the text in chunks with the line index (see chunks.go),
	// built once (once) from text, or given by an edit.
	once sync.Once
	tab  *table

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
	f := &File{Path: path, text: text, n: len(text)}
	f.whole.Do(func() {})
	f.full.Store(true)
	return f
}

// Edited returns a File for f's text with the bytes [edit.Start, edit.End)
// (offsets, clamped into the text) replaced by s, with f's path. It shares
// f's text and line index except around the edit: it costs about the size
// of s and of the lines the edit touches, not the size of the text, which
// it puts together only when asked for all of it ([File.Bytes],
// [File.Source]).
func (f *File) Edited(edit Span, s string) *File {
	f.index()
	start := f.clamp(edit.Start)
	end := max(start, f.clamp(edit.End))
	tab := f.tab.edited(start, end, s)
	g := &File{Path: f.Path, n: tab.size()}
	g.once.Do(func() { g.tab = tab })
	return g
}

// Len returns the length of the text in bytes.
func (f *File) Len() int { return f.n }

// Bytes returns the complete text. It must not be modified. For a File made
// by [File.Edited] it is put together on the first call.
func (f *File) Bytes() []byte {
	f.whole.Do(func() {
		if f.n > 0 {
			var b strings.Builder // its buffer is not cleared first
			b.Grow(f.n)
			for _, g := range f.tab.groups {
				for _, c := range g.chunks {
					b.WriteString(c.text)
				}
			}
			f.text = stringBytes(b.String())
		}
		f.full.Store(true)
	})
	return f.text
}

// Source returns the text as a string without copying it (see [File.Bytes]);
// it must not be modified (the string shares the text's memory).
func (f *File) Source() string {
	t := f.Bytes()
	if len(t) == 0 {
		return ""
	}
	return unsafe.String(&t[0], len(t))
}

// ByteRange returns the bytes [start, end) of the text (offsets, clamped
// into it) without putting the whole text together: a slice of it, or of
// the chunk that holds them, or else a copy. It must not be modified.
func (f *File) ByteRange(start, end int) []byte {
	start = f.clamp(start)
	end = max(start, f.clamp(end))
	if f.full.Load() {
		return f.text[start:end:end]
	}
	f.index()
	t := f.tab
	if g, j := t.chunkAt(start); g < len(t.groups) {
		if c, base, _ := t.at(g, j); end <= base+len(c.text) {
			return stringBytes(c.text[start-base : end-base])
		}
	}
	return t.appendText(make([]byte, 0, end-start), start, end)
}

// stringBytes returns the bytes of s without copying them; they must not be
// modified.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))[:len(s):len(s)]
}

// index builds the line index once. Its chunks hold copies of the text,
// not parts of it: the versions made by [File.Edited] share the chunks an
// edit did not touch, and a part of the text would keep all of it alive
// for as long as any of them is.
func (f *File) index() {
	f.once.Do(func() {
		var s string
		if len(f.text) > 0 {
			s = unsafe.String(&f.text[0], len(f.text))
		}
		f.tab = newTable(appendChunks(nil, s, true))
	})
}

// markBefore returns the last mark of line j of c at or before off (by
// offset, in c.text) or, with byCount, whose count of columns (UTF-16
// units, or code points) is at most n; ok is false when there is none.
func (c *chunk) markBefore(j, off, n int, byCount, utf16 bool) (m mark, ok bool) {
	ms := c.marks[j]
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

// LineCount returns the number of lines in the file. It is one more than the
// number of line terminators ("\n", "\r\n" or a lone "\r"): an empty file
// has one (empty) line, and a file that ends with a line terminator has an
// empty last line after it.
func (f *File) LineCount() int {
	f.index()
	return f.tab.lineCount()
}

// LineStart returns the byte offset at which the 0-based line line0 starts.
// A negative line0 yields 0 and a line0 past the last line yields the
// length of the text.
func (f *File) LineStart(line0 int) int {
	f.index()
	switch {
	case line0 < 0:
		return 0
	case line0 >= f.tab.lineCount():
		return f.n
	}
	c, base, j := f.tab.line(line0)
	if c == nil {
		return base
	}
	return base + int(c.lines[j])
}

// LineEnd returns the byte offset at which the text of the 0-based line line0
// ends, that is the offset of its "\n", "\r\n" or "\r" terminator, or the
// length of the text for the last line. A negative line0 yields 0 and a
// line0 past the last line yields the length of the text.
func (f *File) LineEnd(line0 int) int {
	f.index()
	switch {
	case line0 < 0:
		return 0
	case line0 >= f.tab.lineCount():
		return f.n
	}
	c, base, j := f.tab.line(line0)
	if c == nil {
		return base
	}
	return base + c.lineEnd(j)
}

// LineText returns the text of the 1-based line line1 without its line
// terminator, or nil if there is no such line. The result aliases the text
// and must not be modified.
func (f *File) LineText(line1 int) []byte {
	f.index()
	if line1 < 1 || line1 > f.tab.lineCount() {
		return nil
	}
	c, _, j := f.tab.line(line1 - 1)
	if c == nil {
		return nil
	}
	return stringBytes(c.text[c.lines[j]:c.lineEnd(j)])
}

// clamp limits off to [0, Len()].
func (f *File) clamp(off int) int {
	return max(0, min(off, f.n))
}

// units counts the columns between the start of line j of c and the offset
// off in c.text: code points, or UTF-16 code units if utf16 is set. An
// offset past the end of the line's text counts to the end of the text; an
// offset inside a multi-byte sequence counts to the start of that sequence's
// rune.
func (c *chunk) units(j, off int, utf16 bool) int {
	start, end := int(c.lines[j]), c.lineEnd(j)
	off = min(off, end)
	fast := min(int(c.ascii[j]), end)
	if off <= fast {
		return off - start
	}
	p, n := fast, fast-start
	if m, ok := c.markBefore(j, off, 0, false, utf16); ok {
		p, n = m.off, m.count(utf16)
	}
	for p < off {
		r, size := utf8.DecodeRuneInString(c.text[p:end])
		if p+size > off {
			break
		}
		p += size
		n += runeUnits(r, utf16)
	}
	return n
}

// advance is the inverse of units: it returns the offset in c.text that
// lies n columns after the start of line j, stopping at the end of the
// line's text. If the n-th column falls inside a rune (the second half of a
// surrogate pair) the result is the start of that rune.
func (c *chunk) advance(j, n int, utf16 bool) int {
	start, end := int(c.lines[j]), c.lineEnd(j)
	n = max(n, 0)
	fast := min(int(c.ascii[j]), end)
	if n <= fast-start {
		return start + n
	}
	p := fast
	if m, ok := c.markBefore(j, 0, n, true, utf16); ok {
		p, n = m.off, n-m.count(utf16)
	} else {
		n -= fast - start
	}
	for p < end && n > 0 {
		r, size := utf8.DecodeRuneInString(c.text[p:end])
		w := runeUnits(r, utf16)
		if w > n {
			break
		}
		p += size
		n -= w
	}
	return p
}

// column returns the 0-based line of the offset off (clamped into the text)
// and its column on it (see chunk.units).
func (f *File) column(off int, utf16 bool) (line0, col int) {
	f.index()
	off = f.clamp(off)
	line0 = f.tab.lineOf(off)
	c, base, j := f.tab.line(line0)
	if c == nil {
		return line0, 0
	}
	return line0, c.units(j, off-base, utf16)
}

// offsetAt returns the offset n columns after the start of the 0-based line
// line0, which must exist (see chunk.advance).
func (f *File) offsetAt(line0, n int, utf16 bool) int {
	c, base, j := f.tab.line(line0)
	if c == nil {
		return base
	}
	return base + c.advance(j, n, utf16)
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
// clamped into [0, Len()]. An offset inside a line terminator maps to the
// end of its line; an offset inside a multi-byte UTF-8 sequence maps to the
// start of its rune.
func (f *File) OffsetPosition(off int) Position {
	line0, col := f.column(off, false)
	return Position{Line: line0 + 1, Column: col + 1}
}

// PositionOffset returns the byte offset of p, the inverse of
// OffsetPosition. A Column past the end of the line maps to the end of the
// line's text and a Column below 1 to its start. A Line below 1 maps to
// offset 0 and a Line past the last line to Len().
func (f *File) PositionOffset(p Position) int {
	f.index()
	switch {
	case p.Line < 1:
		return 0
	case p.Line > f.tab.lineCount():
		return f.n
	}
	return f.offsetAt(p.Line-1, p.Column-1, false)
}

// OffsetLSP returns the LSPPosition of the byte offset off, which is first
// clamped into [0, Len()]. An offset inside a line terminator maps to the
// end of its line; an offset inside a multi-byte UTF-8 sequence maps to the
// start of its rune.
func (f *File) OffsetLSP(off int) LSPPosition {
	line0, col := f.column(off, true)
	return LSPPosition{Line: line0, Character: col}
}

// LSPOffset returns the byte offset of p, the inverse of OffsetLSP. A
// Character past the end of the line maps to the end of the line's text, a
// negative Character to its start, and a Character pointing between the two
// halves of a surrogate pair to the start of that rune. A negative Line maps
// to offset 0 and a Line past the last line to Len().
func (f *File) LSPOffset(p LSPPosition) int {
	f.index()
	switch {
	case p.Line < 0:
		return 0
	case p.Line >= f.tab.lineCount():
		return f.n
	}
	return f.offsetAt(p.Line, p.Character, true)
}

// LSPRange returns the LSP positions of the start and end of s. Both offsets
// are clamped into the text, and an End before Start is treated as Start.
func (f *File) LSPRange(s Span) (start, end LSPPosition) {
	lo := f.clamp(s.Start)
	hi := max(lo, f.clamp(s.End))
	return f.OffsetLSP(lo), f.OffsetLSP(hi)
}
