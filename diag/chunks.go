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
	"slices"
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

// table is a text as chunks, with where each starts. The chunks are kept
// in groups of about groupSize, behind a table of the groups, so that an
// edit makes again the group of the chunks it touches and the table of
// groups, whose length grows with the text a group in groupSize chunks.
type table struct {
	groups []*group
	// offs[g] is the offset at which group g starts, and lineN[g] the
	// number of lines that start before it; both have one more entry,
	// for the end of the text.
	offs, lineN []int
	// tail is set when the text is empty or ends with a line
	// terminator: one more (empty) line starts at its end.
	tail bool
}

// group is a run of chunks, with where each starts relative to the group.
type group struct {
	chunks []*chunk
	// offs[j] is the offset at which chunk j starts in the group, and
	// lineN[j] the number of lines of the group before it; both have one
	// more entry, for the end of the group.
	offs, lineN []int
}

// groupSize is about how many chunks a group holds: a variable, so that
// tests can make groups of a few chunks.
var groupSize = 64

// newGroup returns the group of the chunks cs.
func newGroup(cs []*chunk) *group {
	g := &group{chunks: cs, offs: make([]int, len(cs)+1), lineN: make([]int, len(cs)+1)}
	for j, c := range cs {
		g.offs[j+1] = g.offs[j] + len(c.text)
		g.lineN[j+1] = g.lineN[j] + len(c.lines)
	}
	return g
}

// newTable returns the table of the chunks cs.
func newTable(cs []*chunk) *table {
	t := &table{}
	for len(cs) > 0 {
		k := min(len(cs), groupSize)
		t.groups = append(t.groups, newGroup(slices.Clip(cs[:k])))
		cs = cs[k:]
	}
	t.sum(0)
	t.setTail()
	return t
}

// sum sets offs and lineN from group g on, those before it being set.
func (t *table) sum(g int) {
	if len(t.offs) != len(t.groups)+1 {
		offs, lineN := make([]int, len(t.groups)+1), make([]int, len(t.groups)+1)
		copy(offs, t.offs[:min(g+1, len(t.offs))])
		copy(lineN, t.lineN[:min(g+1, len(t.lineN))])
		t.offs, t.lineN = offs, lineN
	}
	for ; g < len(t.groups); g++ {
		gr := t.groups[g]
		t.offs[g+1] = t.offs[g] + gr.offs[len(gr.chunks)]
		t.lineN[g+1] = t.lineN[g] + gr.lineN[len(gr.chunks)]
	}
}

// setTail sets t.tail from the end of the text.
func (t *table) setTail() {
	t.tail = true
	if n := len(t.groups); n > 0 {
		cs := t.groups[n-1].chunks
		s := cs[len(cs)-1].text
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
func (t *table) size() int { return t.offs[len(t.groups)] }

// lineCount returns the number of lines of the text.
func (t *table) lineCount() int {
	n := t.lineN[len(t.groups)]
	if t.tail {
		n++
	}
	return n
}

// chunkAt returns the group g and the index j in it of the chunk that
// holds the offset off, or len(t.groups) and 0 when off is at or past the
// end of the text.
func (t *table) chunkAt(off int) (g, j int) {
	g = sort.Search(len(t.groups), func(g int) bool { return t.offs[g+1] > off })
	if g == len(t.groups) {
		return g, 0
	}
	gr, rel := t.groups[g], off-t.offs[g]
	return g, sort.Search(len(gr.chunks), func(j int) bool { return gr.offs[j+1] > rel })
}

// at returns the chunk j of group g, its offset and the number of lines
// before it.
func (t *table) at(g, j int) (c *chunk, base, lines int) {
	gr := t.groups[g]
	return gr.chunks[j], t.offs[g] + gr.offs[j], t.lineN[g] + gr.lineN[j]
}

// next returns the place of the chunk after the chunk j of group g:
// len(t.groups) and 0 after the last.
func (t *table) next(g, j int) (int, int) {
	if j+1 < len(t.groups[g].chunks) {
		return g, j + 1
	}
	return g + 1, 0
}

// line returns the chunk of the line line0, which must exist, its offset
// and the line's index in it; c is nil for the empty line at the end of the
// text (see tail), which starts at base.
func (t *table) line(line0 int) (c *chunk, base, j int) {
	g := sort.Search(len(t.groups), func(g int) bool { return t.lineN[g+1] > line0 })
	if g == len(t.groups) {
		return nil, t.size(), 0
	}
	gr, rel := t.groups[g], line0-t.lineN[g]
	i := sort.Search(len(gr.chunks), func(i int) bool { return gr.lineN[i+1] > rel })
	return gr.chunks[i], t.offs[g] + gr.offs[i], rel - gr.lineN[i]
}

// lineOf returns the 0-based line that holds the offset off, which must be
// in [0, size].
func (t *table) lineOf(off int) int {
	g, j := t.chunkAt(off)
	if g == len(t.groups) {
		if t.tail || g == 0 {
			return t.lineN[g]
		}
		g, j = g-1, len(t.groups[g-1].chunks)-1 // the end of a last line with no terminator
	}
	c, base, lines := t.at(g, j)
	rel := int32(off - base)
	k := sort.Search(len(c.lines), func(k int) bool { return c.lines[k] > rel }) - 1
	return lines + k
}

// edited returns the table of the text after the bytes [start, end) are
// replaced by s: the chunks from the one that holds start to the one that
// holds end are made again, joined with the next when they would not end a
// line or would be short, and their groups with them; the other groups
// and chunks are shared.
func (t *table) edited(start, end int, s string) *table {
	n := len(t.groups)
	ga, ja := t.chunkAt(start)
	if ga == n && n > 0 {
		ga, ja = n-1, len(t.groups[n-1].chunks)-1
	}
	gb, jb := ga, ja
	if end > start {
		gb, jb = t.chunkAt(end - 1)
	}
	var region strings.Builder
	if ga < n {
		c, base, _ := t.at(ga, ja)
		region.WriteString(c.text[:start-base])
	}
	region.WriteString(s)
	if gb < n {
		c, base, _ := t.at(gb, jb)
		region.WriteString(c.text[end-base:])
		gb, jb = t.next(gb, jb) // the chunks before (gb, jb) are replaced
	}
	text := region.String()
	for gb < n && (len(text) < chunkMin || text == "" || text[len(text)-1] != '\n') {
		text += t.groups[gb].chunks[jb].text
		gb, jb = t.next(gb, jb)
	}
	var cs []*chunk
	if ga < n {
		cs = append(cs, t.groups[ga].chunks[:ja]...)
	}
	cs = appendChunks(cs, text, false)
	gEnd := gb // the groups [ga, gEnd) are replaced
	if gb < n && jb > 0 {
		cs = append(cs, t.groups[gb].chunks[jb:]...)
		gEnd++
	}
	out := &table{groups: make([]*group, 0, n+len(cs)/groupSize+1)}
	out.groups = append(out.groups, t.groups[:ga]...)
	for len(cs) > 0 {
		k := len(cs)
		if k > 2*groupSize {
			k = groupSize
		}
		out.groups = append(out.groups, newGroup(slices.Clip(cs[:k])))
		cs = cs[k:]
	}
	out.groups = append(out.groups, t.groups[gEnd:]...)
	out.offs, out.lineN = make([]int, len(out.groups)+1), make([]int, len(out.groups)+1)
	copy(out.offs, t.offs[:ga+1])
	copy(out.lineN, t.lineN[:ga+1])
	out.sum(ga)
	out.setTail()
	return out
}

// appendText appends the bytes [start, end) of the text to dst.
func (t *table) appendText(dst []byte, start, end int) []byte {
	for g, j := t.chunkAt(start); g < len(t.groups); g, j = t.next(g, j) {
		c, base, _ := t.at(g, j)
		if base >= end {
			break
		}
		dst = append(dst, c.text[max(0, start-base):min(len(c.text), end-base)]...)
	}
	return dst
}
