// The text of a File in chunks, with the line index kept chunk by chunk.
//
// A chunk is a run of whole lines of about chunkSize bytes: every chunk but
// the last ends just after a "\n", so no line terminator ("\n", "\r\n" or a
// lone "\r") is ever split between two chunks, and a chunk's lines are found
// in its own text. Each chunk holds the starts of its lines and their ASCII
// prefixes relative to itself, and the table of chunks holds where each
// chunk starts and how many lines come before it.
//
// An edit (see [File.Edited]) makes the chunks it touches again and shares
// every other chunk, as it is, with the text before: its cost is the size of
// a chunk and the length of the table, not the size of the text.

package diag

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// chunkSize is about how long a chunk is; a chunk shorter than chunkMin
// that an edit makes is joined to the chunk after it.
const (
	chunkSize = 4096
	chunkMin  = 1024
)

// chunk is a run of whole lines of a text and its line index.
type chunk struct {
	text string
	// lines are the offsets in text at which its lines start (the first
	// at 0), and ascii for each line the offset of its first non-ASCII
	// byte, or of its terminator (or len(text)) if it has none.
	lines []int32
	ascii []int32
	// marks holds, for each line (by its index in lines) whose text after
	// its ASCII prefix is longer than markEvery bytes, the column counts
	// at rune starts about markEvery bytes apart (offsets in text).
	marks map[int][]mark
}

// newChunk indexes the lines of s.
func newChunk(s string) *chunk {
	c := &chunk{text: s}
	cr := strings.IndexByte(s, '\r') >= 0
	n := strings.Count(s, "\n") + 1
	c.lines = make([]int32, 0, n)
	c.ascii = make([]int32, 0, n)
	for start := 0; start < len(s); {
		c.lines = append(c.lines, int32(start))
		end, next := lineBreak(s, start, cr)
		if end < 0 {
			end = len(s)
		}
		c.ascii = append(c.ascii, int32(start+asciiPrefix(s[start:end])))
		if next < 0 {
			break
		}
		start = next
	}
	for j := range c.lines {
		if end := c.lineEnd(j); end-int(c.ascii[j]) > markEvery {
			c.markLine(j, end)
		}
	}
	return c
}

// lineBreak returns the offset of the first line terminator in t at or
// after start and the offset of the line after it, or -1 and -1 when there
// is none. Terminators are "\n", "\r\n" and a lone "\r", as the Language
// Server Protocol and editors count lines; cr tells whether t has any "\r"
// (without one the search is for "\n" alone).
func lineBreak(t string, start int, cr bool) (end, next int) {
	lim := len(t)
	if i := strings.IndexByte(t[start:], '\n'); i >= 0 {
		lim = start + i
	}
	if cr {
		if j := strings.IndexByte(t[start:lim], '\r'); j >= 0 {
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

// asciiPrefix returns the length of the leading run of ASCII bytes in s.
func asciiPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// lineEnd returns the offset in c.text at which the text of its line j
// ends: the offset of its terminator, or len(c.text) when it has none.
func (c *chunk) lineEnd(j int) int {
	next := len(c.text)
	if j+1 < len(c.lines) {
		next = int(c.lines[j+1])
	} else if next == 0 || c.text[next-1] != '\n' && c.text[next-1] != '\r' {
		return next
	}
	end := next - 1 // the terminator's last byte
	if end > int(c.lines[j]) && c.text[end] == '\n' && c.text[end-1] == '\r' {
		end--
	}
	return end
}

// markLine sets the marks of line j, whose text ends at end.
func (c *chunk) markLine(j, end int) {
	if c.marks == nil {
		c.marks = map[int][]mark{}
	}
	p := int(c.ascii[j])
	runes, units := p-int(c.lines[j]), p-int(c.lines[j])
	var ms []mark
	next := p + markEvery
	for p < end {
		if p >= next {
			ms = append(ms, mark{off: p, runes: runes, units: units})
			next = p + markEvery
		}
		r, size := utf8.DecodeRuneInString(c.text[p:end])
		p += size
		runes++
		units += runeUnits(r, true)
	}
	c.marks[j] = ms
}

// table is a text as chunks, with where each starts.
type table struct {
	chunks []*chunk
	// offs[i] is the offset at which chunk i starts, and lineN[i] the
	// number of lines that start before it; both have one more entry,
	// for the end of the text.
	offs, lineN []int
	// tail is set when the text is empty or ends with a line
	// terminator: one more (empty) line starts at its end.
	tail bool
}

// newTable returns the table of the chunks cs.
func newTable(cs []*chunk) *table {
	t := &table{chunks: cs, offs: make([]int, len(cs)+1), lineN: make([]int, len(cs)+1)}
	for i, c := range cs {
		t.offs[i+1] = t.offs[i] + len(c.text)
		t.lineN[i+1] = t.lineN[i] + len(c.lines)
	}
	t.setTail()
	return t
}

// setTail sets t.tail from the end of the text.
func (t *table) setTail() {
	t.tail = true
	if n := len(t.chunks); n > 0 {
		s := t.chunks[n-1].text
		last := s[len(s)-1]
		t.tail = last == '\n' || last == '\r'
	}
}

// appendChunks appends the chunks of s, which is whole lines (or the end of
// the text), to cs. With own, each chunk's text is a copy of its part of s,
// so that a chunk a later version shares keeps only its own bytes alive, not
// all of s (see [File.index]).
func appendChunks(cs []*chunk, s string, own bool) []*chunk {
	for len(s) > 0 {
		n := len(s)
		if n > chunkSize+chunkSize/2 {
			if i := strings.IndexByte(s[chunkSize-1:], '\n'); i >= 0 {
				n = chunkSize + i
			}
		}
		t := s[:n]
		if own {
			t = strings.Clone(t)
		}
		cs = append(cs, newChunk(t))
		s = s[n:]
	}
	return cs
}

// size returns the length of the text.
func (t *table) size() int { return t.offs[len(t.chunks)] }

// lineCount returns the number of lines of the text.
func (t *table) lineCount() int {
	n := t.lineN[len(t.chunks)]
	if t.tail {
		n++
	}
	return n
}

// chunkAt returns the index of the chunk that holds the offset off, or
// len(t.chunks) when off is at or past the end of the text.
func (t *table) chunkAt(off int) int {
	return sort.Search(len(t.chunks), func(i int) bool { return t.offs[i+1] > off })
}

// line returns the chunk of the line line0, which must exist, its offset
// and the line's index in it; c is nil for the empty line at the end of the
// text (see tail), which starts at base.
func (t *table) line(line0 int) (c *chunk, base, j int) {
	i := sort.Search(len(t.chunks), func(i int) bool { return t.lineN[i+1] > line0 })
	if i == len(t.chunks) {
		return nil, t.size(), 0
	}
	return t.chunks[i], t.offs[i], line0 - t.lineN[i]
}

// lineOf returns the 0-based line that holds the offset off, which must be
// in [0, size].
func (t *table) lineOf(off int) int {
	i := t.chunkAt(off)
	if i == len(t.chunks) {
		if t.tail || i == 0 {
			return t.lineN[i]
		}
		i-- // the end of a last line with no terminator
	}
	c, rel := t.chunks[i], int32(off-t.offs[i])
	j := sort.Search(len(c.lines), func(k int) bool { return c.lines[k] > rel }) - 1
	return t.lineN[i] + j
}

// edited returns the table of the text after the bytes [start, end) are
// replaced by s: the chunks from the one that holds start to the one that
// holds end are made again, joined with the next when they would not end a
// line or would be short, and the others are shared.
func (t *table) edited(start, end int, s string) *table {
	n := len(t.chunks)
	a := t.chunkAt(start)
	if a == n && n > 0 {
		a--
	}
	b := a
	if end > start {
		b = t.chunkAt(end - 1)
	}
	var region strings.Builder
	if a < n {
		region.WriteString(t.chunks[a].text[:start-t.offs[a]])
	}
	region.WriteString(s)
	if b < n {
		region.WriteString(t.chunks[b].text[end-t.offs[b]:])
	}
	text := region.String()
	if b < n {
		b++ // the chunks [a, b) are replaced
	}
	for b < n && (len(text) < chunkMin || text == "" || text[len(text)-1] != '\n') {
		text += t.chunks[b].text
		b++
	}
	cs := make([]*chunk, 0, n-(b-a)+len(text)/chunkSize+1)
	cs = append(cs, t.chunks[:a]...)
	cs = appendChunks(cs, text, false)
	mid := len(cs)
	cs = append(cs, t.chunks[b:]...)
	out := &table{chunks: cs, offs: make([]int, len(cs)+1), lineN: make([]int, len(cs)+1)}
	copy(out.offs, t.offs[:a+1])
	copy(out.lineN, t.lineN[:a+1])
	for i := a; i < mid; i++ {
		out.offs[i+1] = out.offs[i] + len(cs[i].text)
		out.lineN[i+1] = out.lineN[i] + len(cs[i].lines)
	}
	dOff, dLines := out.offs[mid]-t.offs[b], out.lineN[mid]-t.lineN[b]
	for i := mid; i < len(cs); i++ {
		k := i - mid + b + 1
		out.offs[i+1], out.lineN[i+1] = t.offs[k]+dOff, t.lineN[k]+dLines
	}
	out.setTail()
	return out
}

// appendText appends the bytes [start, end) of the text to dst.
func (t *table) appendText(dst []byte, start, end int) []byte {
	for i := t.chunkAt(start); i < len(t.chunks) && t.offs[i] < end; i++ {
		c, base := t.chunks[i].text, t.offs[i]
		dst = append(dst, c[max(0, start-base):min(len(c), end-base)]...)
	}
	return dst
}
