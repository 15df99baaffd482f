// Lowering a version of a document from the lowering of its units.
//
// How a unit lowers depends on its syntax and on the top-level scope
// (topscope.go): the definitions the units before it made (a path node that
// repeats an identity refers to the first definition), and, for the bare
// references in element lists, those of every unit (forward references are
// allowed). Every document has one top-level scope, and the linker asks and
// defines in it the same way whether the document is parsed once (Parse,
// which lowers the units in order as they are parsed) or meant to be edited
// (ParseForEdits, Reparse): what a unit sees is what the units that start
// before it define first, and its own definitions. A document meant to be
// edited records in addition, with each unit, its lowering, what it asked of
// the top-level scope and the answers (unitLowering), and, in the scope,
// which units asked about each name; its versions share the scope. A new
// version lowers the units an edit parsed again; the names those define, or
// defined before, are the ones whose meaning may have changed, and only the
// units that asked about them are looked at again: a unit whose answers are
// the same keeps its lowering, by pointer, the others are lowered again (and
// the names they define looked at in turn). Patterns are never changed once
// a version is made, so versions share them.

package parser

import (
	"maps"
	"slices"

	"github.com/gramlang/gram/diag"
)

// linker is the top-level scope as the unit being lowered or resolved sees
// it: the document's topScope, whose units are ordered by where they start.
type linker struct {
	sc *topScope
	f  *diag.File
	// start is the position where the unit being lowered or resolved
	// starts, and at its offset; the definitions of units after it are not
	// visible to it unless final (bare references, once every unit is
	// lowered).
	start int
	at    int
	final bool
	// rec, when set, records what the unit being lowered asks and defines.
	rec *unitLowering
}

// enter makes the unit that starts at the position start the current one.
func (k *linker) enter(start int) { k.start, k.at = start, k.f.Offset(start) }

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
	e, _ := k.sc.get(id)
	switch {
	case e.p == nil:
		return nil, false
	case e.start == k.start:
		return e.p, true
	case k.final || k.f.Offset(e.start) < k.at:
		return e.p, false
	}
	return nil, false
}

// define makes p the top-level definition of id, from the current unit.
func (k *linker) define(id string, p *Pattern) {
	k.sc.define(k.f, id, defEntry{p: p, start: k.start})
	if k.rec != nil {
		k.rec.events = append(k.rec.events, topEvent{id: id, p: p, def: true})
	}
}

// defined reports whether id is a top-level name.
func (k *linker) defined(id string) bool {
	_, ok := k.sc.get(id)
	return ok
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
		p, own := k.visible(e.id)
		if own {
			p = nil
		}
		if p != e.p {
			return false
		}
	}
	return true
}

// relink is the state of lowering a version of a document meant to be
// edited.
type relink struct {
	doc *Document
	s   *unitLowerer
	sc  *topScope
	// changed are the names whose meaning may have changed: those the units
	// lowered again define, and defined before; fresh are the units lowered
	// in this version.
	changed map[string]bool
	fresh   map[int]bool
	// touched are all the names that were changed.
	touched map[string]bool
}

// link lowers doc, whose units may keep their lowering from prev, and
// returns the gram-level diagnostics (see the top of this file). Without
// prev's scope, every unit is lowered afresh: a document without a scope
// (of Parse or ParseSyntax) keeps no lowering with its units.
func (doc *Document) link(prev *Document) diag.List {
	var sc *topScope
	full := prev == nil || prev.scope == nil
	if full {
		sc = newTopScope(true, doc.File.Len())
	} else {
		sc = prev.scope.edit()
	}
	s := newUnitLowerer(doc.File, sc, 0)
	s.record, s.l.perUnit = true, true
	if prev != nil {
		s.top.prevTop = prev.suggestions
	}
	r := &relink{doc: doc, s: s, sc: sc, changed: map[string]bool{}, fresh: map[int]bool{}, touched: map[string]bool{}}
	s.top.touched = r.touched
	for _, m := range doc.dropped {
		sc.remove(m, r.changed)
	}
	doc.dropped = nil
	for _, i := range r.assignRoles(full) {
		r.lower(i)
	}
	r.settle()
	return r.finish()
}

// assignRoles sets the role of the units whose role may have changed, in
// order, and returns the units to lower again, in order: those without a
// lowering (parsed again), or whose role changed. A unit's role depends on
// whether it is the first: with full, every unit is looked at, else those
// parsed again, the first and the one after those parsed again.
func (r *relink) assignRoles(full bool) []int {
	units := &r.doc.units
	n := units.len()
	from, to := 0, n-1
	if !full {
		from, to = r.doc.fresh[0], min(r.doc.fresh[1], n-1)
	}
	var again []int
	// The first unit, then those from from on.
	for i := 0; i <= to; i = max(i+1, from) {
		u := units.at(i)
		role := roleOf(u, i == 0)
		if u.low != nil && (role == notLowered || u.low.header != (role == asHeader)) {
			r.sc.remove(u.low, r.changed)
			u = units.mut(i)
			u.low = nil
		}
		if role != notLowered && u.low == nil {
			again = append(again, i)
		}
	}
	return again
}

// lower lowers the unit i (again), records what it asked and adds the
// names it defines to changed.
func (r *relink) lower(i int) {
	u := r.doc.units.mut(i)
	r.s.link.enter(u.span.Start)
	r.s.lowerUnit(u, roleOf(u, i == 0))
	u.low.start = u.span.Start
	r.sc.uses(u.low)
	for _, e := range u.low.events {
		if e.def {
			r.changed[e.id] = true
		}
	}
	r.fresh[i] = true
}

// settle looks at the units that asked about a changed name: each keeps its
// lowering if its answers are the same (the bare references' too), else is
// lowered again, which may change the meaning of the names it defines.
func (r *relink) settle() {
	k := &r.s.link
	units := &r.doc.units
	for len(r.changed) > 0 {
		var look []int
		for id := range r.changed {
			r.touched[id] = true
			users, _ := r.sc.users.get(id)
			for _, m := range users {
				if i := r.doc.unitAt(r.doc.File.Offset(m.start)); i >= 0 && !r.fresh[i] && units.at(i).low == m && !slices.Contains(look, i) {
					look = append(look, i)
				}
			}
		}
		clear(r.changed)
		slices.Sort(look)
		for _, i := range look {
			m := units.at(i).low
			k.enter(m.start)
			k.final = false
			ok := k.holds(m)
			k.final = true
			if ok && !r.s.l.stale(m.refs) {
				continue
			}
			r.sc.remove(m, r.changed)
			k.final = false
			r.lower(i)
		}
		k.final = true
	}
}

// finish resolves the bare references of the units lowered again and of
// those with references to nothing, in order, collects the diagnostics of
// lowering (by chunk, see units.go), sets doc's lowering (its units', see
// lists.go) and scope, and returns the gram-level diagnostics.
func (r *relink) finish() diag.List {
	s, units := r.s, &r.doc.units
	s.link.final = true
	todo := slices.Collect(maps.Keys(r.fresh))
	noOpen := func(s *groupSum) bool { return s.open == 0 }
	for p := range units.chunksBut(noOpen) {
		// The version's own chunks are summarised once their units are
		// resolved; the others say whether they have open units.
		if !units.metaOf(p).own && units.info(p).open == 0 {
			continue
		}
		c := units.chunk(p)
		for j := range c.units {
			if m := c.units[j].low; m != nil && m.open && !r.fresh[p.start+j] {
				todo = append(todo, p.start+j)
			}
		}
	}
	slices.Sort(todo)
	for _, i := range todo {
		m := units.at(i).low
		s.link.enter(m.start)
		s.l.resolve(m.refs, r.fresh[i])
		if r.fresh[i] {
			m.open = slices.ContainsFunc(m.refs, func(p pendingRef) bool { return p.p.Def == nil })
		}
	}
	n := 0
	// A group of an earlier version adds its lowered patterns, and its
	// diagnostics of lowering when it has any.
	counted := func(s *groupSum) bool {
		if !s.hasLowDiags {
			n += s.outs
		}
		return !s.hasLowDiags
	}
	for p := range units.chunksBut(counted) {
		if units.metaOf(p).own {
			units.unsummarise(p)
		}
		m := units.info(p)
		n += int(m.outs)
		if m.hasLowDiags {
			s.l.diags = append(s.l.diags, units.summary(p).lowDiags...)
		}
	}
	r.doc.lists.byUnits, r.doc.lists.nLowered = true, n
	r.doc.scope = r.sc.edit()
	return s.done(r.doc)
}

// unitAt returns the index of the unit that starts at the offset at, or -1.
func (doc *Document) unitAt(at int) int {
	i := doc.units.search(func(u *unitResult) bool { return doc.File.Offset(u.span.Start) >= at })
	if i == doc.units.len() || doc.File.Offset(doc.units.at(i).span.Start) != at {
		return -1
	}
	return i
}
