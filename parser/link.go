// Lowering a version of a document from the lowering of its units.
//
// How a unit lowers depends on its syntax and on the top-level scope: the
// definitions the units before it made (a path node that repeats an
// identity refers to the first definition), and, for the bare references in
// element lists, those of every unit (forward references are allowed). A
// document meant to be edited (ParseForEdits, Reparse) keeps each unit's
// lowering with the unit, with what it asked of the top-level scope and the
// answers (unitLowering), and a top-level scope that versions share: every
// unit's definitions by name and, by name, the units that asked about it
// (topscope.go). A new version lowers the units an edit parsed again; the
// names those define, or defined before, are the ones whose meaning may have
// changed, and only the units that asked about them are looked at again: a
// unit whose answers are the same keeps its lowering, by pointer, the others
// are lowered again (and the names they define looked at in turn). Patterns
// are never changed once a version is made, so versions share them.

package parser

import (
	"slices"

	"github.com/gramlang/gram/diag"
)

// topDef is a top-level definition and the index of the unit that made it.
type topDef struct {
	p    *Pattern
	unit int32
}

// linker is the top-level scope as the unit being lowered sees it: in a
// document parsed once, a table of the first definition of each name, made
// unit by unit in order; in a document meant to be edited, the document's
// topScope, whose units are ordered by where they start.
type linker struct {
	defs map[string]topDef
	sc   *topScope
	f    *diag.File
	// cur is the index of the unit being lowered or resolved (at, where it
	// starts, for a topScope); the definitions of later units are not
	// visible to it unless final (bare references, once every unit is
	// lowered).
	cur   int32
	at    int
	final bool
	// rec, when set, records what the unit being lowered asks and defines.
	rec *unitLowering
}

// lookup returns the top-level definition of id visible to the current
// unit, or nil.
func (k *linker) lookup(id string) *Pattern {
	p, own := k.visible(id)
	if k.rec != nil && !own {
		k.rec.events = append(k.rec.events, topEvent{id: id, p: p})
	}
	return p
}

// visible returns the top-level definition of id visible to the current
// unit, and whether the unit made it itself.
func (k *linker) visible(id string) (*Pattern, bool) {
	if k.sc == nil {
		e, ok := k.defs[id]
		if !ok || !k.final && e.unit > k.cur {
			return nil, false
		}
		return e.p, e.unit == k.cur
	}
	e := k.sc.first(id)
	switch {
	case e.p == nil:
		return nil, false
	case e.low == k.rec:
		return e.p, true
	case k.final || k.f.Offset(e.low.start) < k.at:
		return e.p, false
	}
	return nil, false
}

// define makes p the top-level definition of id, from the current unit.
func (k *linker) define(id string, p *Pattern) {
	if k.sc != nil {
		k.sc.define(k.f, id, defEntry{p: p, low: k.rec})
	} else {
		k.defs[id] = topDef{p: p, unit: k.cur}
	}
	if k.rec != nil {
		k.rec.events = append(k.rec.events, topEvent{id: id, p: p, def: true})
	}
}

// names calls yield with every top-level name.
func (k *linker) names(yield func(string)) {
	if k.sc != nil {
		k.sc.defs.keys(yield)
		return
	}
	for id := range k.defs {
		yield(id)
	}
}

// unitLowering is what lowering a unit made, kept with the unit: it is
// never changed once its version is made.
type unitLowering struct {
	// out is the unit's pattern; header is set when it is the header's.
	out    *Pattern
	header bool
	// open is set when a bare reference of the unit names nothing (or what
	// contains it), which each version reports again.
	open bool
	// start is the position where the unit starts.
	start int
	// events are what the lowering asked of the top-level scope (with the
	// answer, from other units) and what it defined there, in order.
	events []topEvent
	// refs are the unit's bare references.
	refs []pendingRef
	// diags are the diagnostics of lowering the unit (not of resolving its
	// references).
	diags diag.List
}

// topEvent is a question to the top-level scope and its answer (p, nil for
// none), or, with def, a definition.
type topEvent struct {
	id  string
	p   *Pattern
	def bool
}

// holds reports whether the questions of m, lowered for the current unit,
// get the same answers in the top-level scope now.
func (k *linker) holds(m *unitLowering) bool {
	for _, e := range m.events {
		if e.def {
			continue
		}
		// m asked only about what no definition of its own answered: what a
		// unit before it defines first, if any.
		var p *Pattern
		if d := k.sc.first(e.id); d.p != nil && d.low != m && k.f.Offset(d.low.start) < k.at {
			p = d.p
		}
		if p != e.p {
			return false
		}
	}
	return true
}

// link lowers doc, whose units may keep their lowering from prev, and
// returns the gram-level diagnostics (see the top of this file). Without
// prev's scope, every unit is lowered afresh.
func (doc *Document) link(prev *Document) diag.List {
	s := newUnitLowerer(0)
	s.record, s.l.perUnit = true, true
	s.link.f = doc.File
	if prev != nil {
		s.top.prevTop = prev.suggestions
	}
	if prev == nil || prev.scope == nil {
		for i := range doc.units {
			doc.units[i].low = nil
		}
		s.link.sc = newTopScope()
	} else {
		s.link.sc = prev.scope.edit()
	}
	sc := s.link.sc
	// The names whose meaning may have changed: those the units lowered
	// again define, and defined before.
	changed := map[string]bool{}
	for _, m := range doc.dropped {
		sc.remove(m, changed)
	}
	doc.dropped = nil
	// Roles, in order; the units without a lowering (parsed again), or
	// whose role changed, are lowered again, in order.
	roles := make([]unitRole, len(doc.units))
	var again []int
	for i := range doc.units {
		r := &doc.units[i]
		roles[i] = s.role(r)
		if roles[i] != notLowered && r.low != nil && r.low.header != (roles[i] == asHeader) {
			sc.remove(r.low, changed)
			r.low = nil
		}
		if roles[i] == notLowered {
			r.low = nil
		} else if r.low == nil {
			again = append(again, i)
		}
	}
	fresh := map[int]bool{}
	lower := func(i int) {
		r := &doc.units[i]
		s.link.cur, s.link.at = int32(i), doc.File.Offset(r.span.Start)
		s.lowerUnit(r, roles[i])
		r.low.start = r.span.Start
		sc.uses(r.low)
		for _, e := range r.low.events {
			if e.def {
				changed[e.id] = true
			}
		}
		fresh[i] = true
	}
	for _, i := range again {
		lower(i)
	}
	// The units that asked about a changed name: each keeps its lowering if
	// its answers are the same (the bare references' too), else is lowered
	// again, which may change the meaning of the names it defines.
	for len(changed) > 0 {
		var look []int
		for id := range changed {
			for _, m := range sc.users.get(id) {
				if i := doc.unitAt(m.start); i >= 0 && !fresh[i] && doc.units[i].low == m && !slices.Contains(look, i) {
					look = append(look, i)
				}
			}
		}
		clear(changed)
		slices.Sort(look)
		for _, i := range look {
			m := doc.units[i].low
			s.link.cur, s.link.at = int32(i), doc.File.Offset(m.start)
			s.link.final = false
			ok := s.link.holds(m)
			s.link.final = true
			if ok && !s.l.stale(m.refs) {
				continue
			}
			sc.remove(m, changed)
			s.link.final = false
			lower(i)
		}
		s.link.final = true
	}
	// Every pattern, the diagnostics of lowering, and the bare references'
	// of the units lowered again and of those with references to nothing.
	s.link.final = true
	s.out = make([]*Pattern, 0, len(doc.units))
	for i := range doc.units {
		m := doc.units[i].low
		if m == nil {
			continue
		}
		s.out = append(s.out, m.out)
		s.l.diags = append(s.l.diags, m.diags...)
		if fresh[i] || m.open {
			s.link.cur, s.link.at = int32(i), doc.File.Offset(m.start)
			s.l.resolve(m.refs, fresh[i])
			if fresh[i] {
				m.open = slices.ContainsFunc(m.refs, func(r pendingRef) bool { return r.p.Def == nil })
			}
		}
	}
	doc.scope = sc.frozen()
	doc.Lowered, doc.unresolved = s.out, s.l.unresolved
	doc.suggestions = s.top.top
	if doc.suggestions == nil {
		doc.suggestions = s.top.prevTop
	}
	return s.l.diags
}

// unitAt returns the index of the unit that starts at the position pos, or
// -1.
func (doc *Document) unitAt(pos int) int {
	at := doc.File.Offset(pos)
	i, ok := slices.BinarySearchFunc(doc.units, at, func(u unitResult, at int) int { return doc.File.Offset(u.span.Start) - at })
	if !ok {
		return -1
	}
	return i
}
