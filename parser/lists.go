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
	for k := range doc.units.chunks {
		ps = append(ps, doc.units.summary(k).patterns...)
	}
	doc.lists.patterns.Store(&ps)
	return ps
}

// NumPatterns returns len(doc.Patterns()) without making the list.
func (doc *Document) NumPatterns() int { return doc.lists.nPatterns }

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
		for k := range doc.units.chunks {
			ps = append(ps, doc.units.summary(k).outs...)
		}
	}
	doc.lists.lowered.Store(&ps)
	return ps
}

// NumLowered returns len(doc.Lowered()) without making the list.
func (doc *Document) NumLowered() int { return doc.lists.nLowered }

// runs yields the lowered patterns in runs, each with the index of its
// first pattern: a chunk's, or the whole list.
func (doc *Document) runs() iter.Seq2[int, []*Pattern] {
	return func(yield func(int, []*Pattern) bool) {
		if !doc.lists.byUnits {
			yield(0, doc.Lowered())
			return
		}
		at := 0
		for k := range doc.units.chunks {
			outs := doc.units.summary(k).outs
			if len(outs) > 0 && !yield(at, outs) {
				return
			}
			at += len(outs)
		}
	}
}

// LoweredRuns yields doc.Lowered() in runs, each with its first pattern's index, without making the list.
func (doc *Document) LoweredRuns() iter.Seq2[int, []*Pattern] { return doc.runs() }

// LoweredAt returns doc.Lowered()[i] without making the list.
func (doc *Document) LoweredAt(i int) *Pattern {
	if p := doc.lists.lowered.Load(); p != nil || !doc.lists.byUnits {
		return doc.Lowered()[i]
	}
	for at, run := range doc.runs() {
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
		for at, run := range doc.runs() {
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
// chunks of units two versions share are passed over whole, so that after
// an edit it costs about the chunks the edit touched.
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
		kb, bAt := 0, 0 // prev's chunk kb holds the lowered patterns from bAt on
		at := 0
		for ka, c := range a.chunks {
			na := int(a.info(ka).outs)
			// prev's chunks that end by at are passed, but for this one.
			for kb < len(b.chunks) && b.chunks[kb] != c && bAt+int(b.info(kb).outs) <= at {
				bAt += int(b.info(kb).outs)
				kb++
			}
			if kb < len(b.chunks) && bAt == at && b.chunks[kb] == c {
				at += na
				continue // the same chunk
			}
			run := a.summary(ka).outs
			for j, p := range run {
				i := at + j
				for kb < len(b.chunks) && bAt+int(b.info(kb).outs) <= i {
					bAt += int(b.info(kb).outs)
					kb++
				}
				if kb == len(b.chunks) || b.summary(kb).outs[i-bAt] != p {
					if !yield(i, p) {
						return
					}
				}
			}
			at += len(run)
		}
	}
}
