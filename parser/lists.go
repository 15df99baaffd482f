// The lists of a document's top-level and lowered patterns.
//
// A document made for edits (ParseForEdits, Reparse) keeps its patterns
// with its units, in chunks its versions share (see units.go); a version
// does not put them in one list of its own unless asked to (Patterns,
// Lowered), so that an edit costs the chunks it touches. LoweredAt,
// AllLowered and ChangedLowered answer from the chunks, the last skipping
// the chunks two versions share.

package parser

import (
	"iter"
	"sync/atomic"

	"github.com/gramlang/gram/grammar"
)

// docLists are a document's lists of patterns: made in one piece (lowered,
// by Parse) or from the units' chunks (byUnits) when first asked for.
type docLists struct {
	patterns  atomic.Pointer[[]*grammar.TopPattern]
	lowered   atomic.Pointer[[]*Pattern]
	nPatterns int
	nLowered  int
	byUnits   bool
}

// setLowered sets the lowered patterns in one list.
func (l *docLists) setLowered(ps []*Pattern) {
	l.lowered.Store(&ps)
	l.nLowered, l.byUnits = len(ps), false
}

// Patterns returns the well-formed top-level patterns in source order. The
// list is made on the first call; the caller must not change it.
func (doc *Document) Patterns() []*grammar.TopPattern {
	if p := doc.lists.patterns.Load(); p != nil {
		return *p
	}
	ps := make([]*grammar.TopPattern, 0, doc.lists.nPatterns)
	for p := range doc.units.all() {
		ps = append(ps, doc.units.summary(p).patterns...)
	}
	doc.lists.patterns.Store(&ps)
	return ps
}

// Lowered returns the Pattern<Subject> values: the header (as an anonymous
// pattern with its properties) first if there is one, then one per
// top-level pattern; none for a document of [ParseSyntax]. The list is made
// on the first call; the caller must not change it.
func (doc *Document) Lowered() []*Pattern {
	if p := doc.lists.lowered.Load(); p != nil {
		return *p
	}
	ps := make([]*Pattern, 0, doc.lists.nLowered)
	if doc.lists.byUnits {
		for p := range doc.units.all() {
			ps = append(ps, doc.units.summary(p).outs...)
		}
	}
	doc.lists.lowered.Store(&ps)
	return ps
}

// NumLowered returns len(doc.Lowered()) without making the list.
func (doc *Document) NumLowered() int { return doc.lists.nLowered }

// LoweredRuns yields doc.Lowered() in runs, each with the index of its
// first pattern (a chunk's, or the whole list), without making the list.
func (doc *Document) LoweredRuns() iter.Seq2[int, []*Pattern] {
	return func(yield func(int, []*Pattern) bool) {
		if !doc.lists.byUnits {
			yield(0, doc.Lowered())
			return
		}
		at := 0
		for p := range doc.units.all() {
			outs := doc.units.summary(p).outs
			if len(outs) > 0 && !yield(at, outs) {
				return
			}
			at += len(outs)
		}
	}
}

// LoweredAt returns doc.Lowered()[i] without making the list.
func (doc *Document) LoweredAt(i int) *Pattern {
	if p := doc.lists.lowered.Load(); p != nil || !doc.lists.byUnits {
		return doc.Lowered()[i]
	}
	for at, run := range doc.LoweredRuns() {
		if i < at+len(run) {
			return run[i-at]
		}
	}
	panic("parser: lowered pattern index out of range")
}

// AllLowered yields the lowered patterns with their indexes, as
// doc.Lowered() holds them, without making the list.
func (doc *Document) AllLowered() iter.Seq2[int, *Pattern] {
	return func(yield func(int, *Pattern) bool) {
		for at, run := range doc.LoweredRuns() {
			for j, p := range run {
				if !yield(at+j, p) {
					return
				}
			}
		}
	}
}

// ChangedLowered yields the lowered patterns of doc that are not prev's at
// the same index, with their indexes; doc and prev must have as many. The
// chunks and groups of units two versions share are passed over whole, so
// that after an edit it costs about the chunks the edit touched and the
// table of groups.
func (doc *Document) ChangedLowered(prev *Document) iter.Seq2[int, *Pattern] {
	return func(yield func(int, *Pattern) bool) {
		if !doc.lists.byUnits || !prev.lists.byUnits {
			old := prev.Lowered()
			for i, p := range doc.AllLowered() {
				if old[i] != p && !yield(i, p) {
					return
				}
			}
			return
		}
		a, b := &doc.units, &prev.units
		pb, okb := chunkPos{}, len(b.groups) > 0
		bAt := 0 // prev's chunk at pb holds the lowered patterns from bAt on
		// advance moves pb past prev's groups and chunks whose lowered
		// patterns end by upTo, but for the group gr and the chunk c: a
		// group of a done version whole when pb is at its first chunk.
		advance := func(upTo int, gr *unitGroup, c *chunk) {
			for okb {
				if s := b.doneSum(pb.g); s != nil && pb.j == 0 && b.groups[pb.g] != gr && bAt+s.outs <= upTo {
					bAt += s.outs
					pb, okb = b.nextGroup(pb)
				} else if n := int(b.info(pb).outs); b.chunk(pb) != c && bAt+n <= upTo {
					bAt += n
					pb, okb = b.next(pb)
				} else {
					return
				}
			}
		}
		at := 0
		for g, gr := range a.groups {
			if s := a.doneSum(g); s != nil {
				advance(at, gr, gr.chunks[0])
				if okb && pb.j == 0 && bAt == at && b.groups[pb.g] == gr {
					at, bAt = at+s.outs, bAt+s.outs
					pb, okb = b.nextGroup(pb)
					continue // the same group
				}
			}
			for j, c := range gr.chunks {
				pa := chunkPos{g: g, j: j}
				advance(at, nil, c)
				if okb && bAt == at && b.chunk(pb) == c {
					at += int(a.info(pa).outs)
					continue // the same chunk
				}
				run := a.summary(pa).outs
				for j, p := range run {
					i := at + j
					advance(i, nil, nil)
					if !okb || b.summary(pb).outs[i-bAt] != p {
						if !yield(i, p) {
							return
						}
					}
				}
				at += len(run)
			}
		}
	}
}
