// Lowering again after an edit: the units before the edit keep their
// lowering.
//
// How a unit lowers depends only on the units before it (the top-level
// definitions they made), except for the bare references in element lists,
// which are resolved once every unit is lowered (forward references are
// allowed). So a document records, unit by unit, what lowering did at the
// top level (lowerLog), and the next version, whose first units are the
// same syntax, takes their patterns, definitions, references and
// diagnostics as they were and lowers only the units from the first one
// that differs. Its references are then resolved in the new top-level
// scope, the reused ones too unless no later unit of either version defines
// their names; a reused one that resolves differently (a later unit now
// defines what it names) makes the document be lowered afresh, since the
// patterns it would change belong to the earlier version too.

package parser

import (
	"slices"
	"sort"

	"github.com/gramlang/gram/diag"
)

// lowerLog records the lowering of a document's units, for the next
// version's (see relower): the top-level scope's definitions in the order
// they were made, the deferred references, and the diagnostics of lowering
// (not of resolving the references). Each unit's entries lie within its
// span, after the entries of the units before it, so where a unit's
// entries start is found by its start (see lowerLog.upTo).
type lowerLog struct {
	defs  []*Pattern
	refs  []pendingRef
	diags diag.List
}

// upTo returns how many of the records of the log, and of lowered (the
// document's lowered patterns), belong to the units before off.
func (g *lowerLog) upTo(off int, lowered []*Pattern) (defs, refs, diags, out int) {
	defs = sort.Search(len(g.defs), func(i int) bool { return g.defs[i].Span().Start >= off })
	refs = sort.Search(len(g.refs), func(i int) bool { return g.refs[i].p.Span().Start >= off })
	diags = sort.Search(len(g.diags), func(i int) bool { return g.diags[i].Span.Start >= off })
	out = sort.Search(len(lowered), func(i int) bool { return lowered[i].Span().Start >= off })
	return defs, refs, diags, out
}

// fresh returns a copy of s that shares nothing with it: nil when s is
// empty (slices.Clone then keeps pointing into s's array).
func fresh[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// sharedUnits returns how many of doc's first units are prev's, syntax and
// all, with their lowering recorded.
func sharedUnits(doc, prev *Document) int {
	if prev == nil || prev.lowered == nil {
		return 0
	}
	n := 0
	for n < len(doc.units) && n < len(prev.units) {
		doc.unitInPlace(n)
		a, b := &doc.units[n], &prev.units[n]
		if a.unit != b.unit || a.err != b.err || a.span != b.span {
			break
		}
		n++
	}
	return n
}

// relower lowers doc as lower does, taking the lowering of its first k
// units from prev, whose first k units they are; it reports false, having
// changed nothing of prev's, when a reused reference would resolve
// differently now.
func (doc *Document) relower(prev *Document, k int) (diag.List, bool) {
	log := prev.lowered
	end := len(prev.File.Text) + 1
	if k < len(prev.units) {
		end = prev.units[k].span.Start
	}
	defs, refs, diags, out := log.upTo(end, prev.Lowered)
	s := newUnitLowerer(min(len(doc.File.Text), bytesPerTopDef*4*len(doc.units)))
	s.top.prevTop = prev.suggestions
	// The top-level scope as the first k units left it, and copies of the
	// records of those units: prev's hold its later units too, which the
	// document must not keep alive.
	for _, p := range log.defs[:defs] {
		s.top.defs[p.Subject.Identity] = p
	}
	s.log.defs = fresh(log.defs[:defs])
	s.l.refs, s.l.reused = fresh(log.refs[:refs]), refs
	s.l.diags = fresh(log.diags[:diags])
	s.out = fresh(prev.Lowered[:out])
	s.header = out > 0 && s.out[0].Kind == HeaderKind
	for _, u := range doc.units[:k] {
		if u.err != nil || u.unit != nil && u.unit.Pattern != nil {
			s.sawPattern = true
			break
		}
	}
	for i := k; i < len(doc.units); i++ {
		doc.unitInPlace(i)
		s.unit(&doc.units[i])
	}
	// A reused reference resolves as before unless the top-level definition
	// of its name changed, which only the units lowered again can change:
	// one that resolved then, to a name neither version's later units
	// define, is settled, needs no diagnostic, and is not looked up again.
	changed := make(map[string]bool, len(log.defs)+len(s.log.defs)-2*defs)
	for _, later := range [][]*Pattern{log.defs[defs:], s.log.defs[defs:]} {
		for _, p := range later {
			changed[p.Subject.Identity] = true
		}
	}
	settled := make([]bool, s.l.reused)
	for i, r := range s.l.refs[:s.l.reused] {
		if r.p.Def != nil && !changed[r.p.Subject.Identity] {
			settled[i] = true
			continue
		}
		var def *Pattern
		if r.self(s.top) == nil {
			def = r.sc.lookupIn(r.p.Subject.Identity, s.top)
		}
		if def != r.p.Def {
			return nil, false
		}
	}
	s.l.settled = settled
	return s.finish(doc), true
}
