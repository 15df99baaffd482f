// Positions: what the toolchain's spans mean in a version of a text.
//
// A span made by parsing a text is a pair of positions. A file parsed whole
// has positions equal to byte offsets. A version of a document parsed again
// after an edit keeps the syntax of the top-level units the edit did not
// reach, positions and all, so its positions are not its offsets: each run
// of the text that a parse read at once (a segment) has positions of its
// own, and the file's [Positions] say where each segment now is. This is
// go/token's Pos and FileSet in small: positions stay put while the text
// around them moves, and become offsets (and then lines and columns) only
// where they are shown.

package diag

import (
	"slices"
	"sort"
)

// Positions maps the positions of a version of a text to its byte offsets.
// A segment covers the positions [Pos, Pos+Len] and the offsets [Off,
// Off+Len]; the segments cover the text in order of offset, and no two share
// a position. The nil *Positions maps every position to the same offset.
type Positions struct {
	segs []Segment // by offset
	// byPos holds the indexes of segs in order of position.
	byPos []int32
}

// Segment is a run of a text whose positions are its offsets moved by the
// same amount.
type Segment struct {
	Pos, Off, Len int
}

// NewPositions returns the positions of segments, which must be in order
// of offset, each starting where the one before it ends, with disjoint
// positions.
func NewPositions(segs []Segment) *Positions {
	m := &Positions{segs: segs, byPos: make([]int32, len(segs))}
	for i := range m.byPos {
		m.byPos[i] = int32(i)
	}
	slices.SortFunc(m.byPos, func(a, b int32) int { return segs[a].Pos - segs[b].Pos })
	return m
}

// Segments returns the segments, in order of offset; nil for the identity.
func (m *Positions) Segments() []Segment {
	if m == nil {
		return nil
	}
	return m.segs
}

// Offset returns the byte offset of a position. A position in no segment
// (which no span of the text holds) is returned as it is.
func (m *Positions) Offset(pos int) int {
	if m == nil {
		return pos
	}
	i := sort.Search(len(m.byPos), func(i int) bool { return m.segs[m.byPos[i]].Pos > pos }) - 1
	if i < 0 {
		return pos
	}
	s := m.segs[m.byPos[i]]
	if pos > s.Pos+s.Len {
		return pos
	}
	return s.Off + pos - s.Pos
}

// Pos returns the position of a byte offset: in the segment that starts at
// it, when one ends and the next starts there.
func (m *Positions) Pos(off int) int {
	if m == nil || len(m.segs) == 0 {
		return off
	}
	i := max(sort.Search(len(m.segs), func(i int) bool { return m.segs[i].Off > off })-1, 0)
	s := m.segs[i]
	return s.Pos + off - s.Off
}

// SetPositions gives f the positions of the document parsed from it (nil:
// positions are offsets). The parser sets them before the document is used.
func (f *File) SetPositions(m *Positions) { f.positions.Store(m) }

// Positions returns f's positions (nil: positions are offsets).
func (f *File) Positions() *Positions { return f.positions.Load() }

// Offset returns the byte offset in f's text of a position of f.
func (f *File) Offset(pos int) int { return f.positions.Load().Offset(pos) }

// Pos returns the position of a byte offset in f's text.
func (f *File) Pos(off int) int { return f.positions.Load().Pos(off) }

// Resolve returns a span of positions of f as byte offsets.
func (f *File) Resolve(s Span) Span {
	m := f.positions.Load()
	if m == nil {
		return s
	}
	start := m.Offset(s.Start)
	if s.End == s.Start {
		return Span{Start: start, End: start}
	}
	return Span{Start: start, End: m.Offset(s.End)}
}

// Slice returns the text of a span of positions of f, or nil when it does
// not lie in the text.
func (f *File) Slice(s Span) []byte {
	s = f.Resolve(s)
	if s.Start < 0 || s.End > f.Len() || s.End < s.Start {
		return nil
	}
	return f.ByteRange(s.Start, s.End)
}

// ResolveDiagnostic returns d with its spans (its own, its related
// information's and its fixes' edits) as byte offsets of their files' texts:
// f's, and a related location's own file's (see [Related.In]).
func (f *File) ResolveDiagnostic(d Diagnostic) Diagnostic {
	if len(d.Related) > 0 && slices.ContainsFunc(d.Related, func(r Related) bool { return r.In(f).positions.Load() != nil }) {
		rel := slices.Clone(d.Related)
		for i := range rel {
			rel[i].Span = rel[i].In(f).Resolve(rel[i].Span)
		}
		d.Related = rel
	}
	if f.positions.Load() == nil {
		return d
	}
	d.Span = f.Resolve(d.Span)
	if len(d.Fixes) > 0 {
		fixes := slices.Clone(d.Fixes)
		for i := range fixes {
			edits := slices.Clone(fixes[i].Edits)
			for j := range edits {
				edits[j].Span = f.Resolve(edits[j].Span)
			}
			fixes[i].Edits = edits
		}
		d.Fixes = fixes
	}
	return d
}

// Resolved returns l with every diagnostic's spans as byte offsets of f's
// text (see [File.ResolveDiagnostic]), sorted.
func (l List) Resolved(f *File) List {
	if f == nil {
		return l
	}
	out := make(List, len(l))
	for i, d := range l {
		out[i] = f.ResolveDiagnostic(d)
	}
	return out.Sorted()
}

// InOrder returns l sorted as [List.Sorted] sorts it, by the places of its
// spans in f's text rather than by their positions; l is not modified.
func (l List) InOrder(f *File) List {
	if f == nil || f.positions.Load() == nil {
		return l.Sorted()
	}
	type keyed struct {
		d   Diagnostic
		key Diagnostic // d with its span resolved
	}
	ks := make([]keyed, len(l))
	for i, d := range l {
		k := d
		k.Span = f.Resolve(d.Span)
		ks[i] = keyed{d, k}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return compare(a.key, b.key) })
	out := make(List, len(l))
	for i, k := range ks {
		out[i] = k.d
	}
	return out
}
