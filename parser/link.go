// Lowering a version of a document from the lowering of its units.
//
// How a unit lowers depends on its syntax and on the top-level scope: the
// definitions the units before it made (a path node that repeats an
// identity refers to the first definition), and, for the bare references in
// element lists, those of every unit (forward references are allowed). A
// document meant to be edited (ParseForEdits, Reparse) keeps each unit's
// lowering with the unit, with what it asked of the top-level scope and what
// it defined there (unitLowering). The next version takes a unit's lowering
// as it is, by pointer, when the unit is the same syntax and every answer is
// the same (link); the others are lowered again. Patterns are never changed
// once a version is made, so versions share them.

package parser

import (
	"github.com/gramlang/gram/diag"
)

// topDef is a top-level definition and the index of the unit that made it.
type topDef struct {
	p    *Pattern
	unit int32
}

// linker is the top-level scope of a document: its definitions by identity,
// the first of each name, made unit by unit in order.
type linker struct {
	defs map[string]topDef
	// cur is the index of the unit being lowered or resolved; the
	// definitions of later units are not visible to it unless final (bare
	// references, once every unit is lowered).
	cur   int32
	final bool
	// rec, when set, records what the unit being lowered asks and defines.
	rec *unitLowering
}

// lookup returns the top-level definition of id visible to the current
// unit, or nil.
func (k *linker) lookup(id string) *Pattern {
	e, ok := k.defs[id]
	if ok && !k.final && e.unit > k.cur {
		ok = false
	}
	if !ok {
		if k.rec != nil {
			k.rec.events = append(k.rec.events, topEvent{id: id})
		}
		return nil
	}
	if k.rec != nil && e.unit != k.cur {
		k.rec.events = append(k.rec.events, topEvent{id: id, p: e.p})
	}
	return e.p
}

// define makes p the top-level definition of id, from the current unit.
func (k *linker) define(id string, p *Pattern) {
	k.defs[id] = topDef{p: p, unit: k.cur}
	if k.rec != nil {
		k.rec.events = append(k.rec.events, topEvent{id: id, p: p, def: true})
	}
}

// unitLowering is what lowering a unit made, kept with the unit: it is
// never changed once its version is made.
type unitLowering struct {
	// out is the unit's pattern; header is set when it is the header's.
	out    *Pattern
	header bool
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

// holds reports whether the answers of m are the same in the top-level
// scope of k, with the definitions of the units before the current one;
// if they are, it makes m's definitions there. (A unit's questions are
// never about what it defined itself: those it answers itself.)
func (k *linker) holds(m *unitLowering) bool {
	for _, e := range m.events {
		if e.def {
			continue
		}
		d, ok := k.defs[e.id]
		if ok && d.unit > k.cur {
			ok = false
		}
		if ok != (e.p != nil) || ok && d.p != e.p {
			return false
		}
	}
	for _, e := range m.events {
		if e.def {
			k.defs[e.id] = topDef{p: e.p, unit: k.cur}
		}
	}
	return true
}

// forget removes the definitions the current unit made as m from the
// top-level scope.
func (k *linker) forget(m *unitLowering) {
	for _, e := range m.events {
		if d, ok := k.defs[e.id]; e.def && ok && d.unit == k.cur {
			delete(k.defs, e.id)
		}
	}
}

// points reports whether any answer of m is a definition made by a unit
// in set.
func (k *linker) points(m *unitLowering, set map[int32]bool) bool {
	for _, e := range m.events {
		if e.p != nil && !e.def && set[k.defs[e.id].unit] {
			return true
		}
	}
	for _, r := range m.refs {
		if d := r.p.Def; d != nil && set[k.unitOf(d)] {
			return true
		}
	}
	return false
}

// unitOf returns the index of the unit that defines p at the top level, or
// -1 when p is not a top-level definition.
func (k *linker) unitOf(p *Pattern) int32 {
	if d, ok := k.defs[p.Subject.Identity]; ok && d.p == p {
		return d.unit
	}
	return -1
}

// link lowers doc, whose units may keep their lowering from an earlier
// version: a unit keeps it when its answers hold (see holds), the others
// are lowered again, and so are those whose answers are definitions of
// units lowered again. It returns the gram-level diagnostics.
func (doc *Document) link(prev *Document) diag.List {
	// About a definition a unit (the units are known, and their text is
	// not as dense as the lowerer's sizing for a file fears).
	s := newUnitLowerer(bytesPerTopDef * (len(doc.units) + 16))
	s.record, s.l.perUnit = true, true
	if prev != nil {
		s.top.prevTop = prev.suggestions
	}
	// In order: each unit sees the definitions of the units before it.
	fresh := make([]bool, len(doc.units))
	for i := range doc.units {
		r := &doc.units[i]
		s.link.cur, s.next = int32(i), int32(i)+1
		role := s.role(r)
		switch {
		case role == notLowered:
			r.low = nil
		case r.low != nil && r.low.header == (role == asHeader) && s.link.holds(r.low):
			s.out = append(s.out, r.low.out)
		default:
			s.lowerUnit(r, role)
			fresh[i] = true
		}
	}
	// Bare references, in the scope every unit made: a kept unit whose
	// references resolve differently now, or that refers to a unit lowered
	// again, is lowered again too (with what it refers to, in one round).
	s.link.final = true
	again := map[int32]bool{}
	for i := range doc.units {
		if m := doc.units[i].low; m != nil && !fresh[i] {
			s.link.cur = int32(i)
			if s.l.stale(m.refs) {
				again[int32(i)] = true
			}
		}
	}
	for grew := len(again) > 0; grew; {
		grew = false
		for i := range doc.units {
			if m := doc.units[i].low; m != nil && !again[int32(i)] && !fresh[i] && s.link.points(m, again) {
				again[int32(i)], grew = true, true
			}
		}
	}
	if len(again) > 0 {
		s.link.final = false
		for i := range doc.units {
			if r := &doc.units[i]; again[int32(i)] {
				s.link.cur = int32(i)
				s.link.forget(r.low)
				s.out = s.out[:0]
				s.lowerUnit(r, roleOf(r.low))
				fresh[i] = true
			}
		}
		s.link.final = true
		s.out = s.out[:0]
		for i := range doc.units {
			if m := doc.units[i].low; m != nil {
				s.out = append(s.out, m.out)
			}
		}
	}
	for i := range doc.units {
		if m := doc.units[i].low; m != nil {
			s.link.cur = int32(i)
			s.l.diags = append(s.l.diags, m.diags...)
			s.l.resolve(m.refs, fresh[i])
		}
	}
	doc.memo = true
	doc.Lowered = s.out
	doc.suggestions = s.top.top
	if doc.suggestions == nil {
		doc.suggestions = s.top.prevTop
	}
	return s.l.diags
}

// roleOf returns the role of a unit lowered as m.
func roleOf(m *unitLowering) unitRole {
	if m.header {
		return asHeader
	}
	return asPattern
}
