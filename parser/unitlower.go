// Lowering the units of a document in order, as they are parsed (see
// Parse), and one unit at a time (see link.go).

package parser

import "github.com/gramlang/gram/diag"

// unitLowerer lowers the units of a document one at a time, in source order,
// as they are parsed. With record set, each unit's lowering is
// kept with it, for the next version's (see link.go).
type unitLowerer struct {
	l    lowerer
	link linker
	top  *scope
	out  []*Pattern
	// started is set once the first unit is lowered (or not).
	started bool
	record  bool
}

// bytesPerTopDef is the fewest bytes of source per top-level definition
// (or pattern) expected: the top-level scope and the list of lowered
// top-level patterns are sized for a file that dense, so that they do not
// grow (and leave their smaller tables as garbage) while a large file is
// lowered.
const bytesPerTopDef = 64

// bytesPerTopName is the bytes of source per top-level name the scope of a
// document parsed once is sized for: about what a file of agents and data
// has (a denser file grows the scope's table). Sized for the densest file instead, the scope of a 10 MB file
// of agents held twice the room its names took, all the time it was
// lowered.
const bytesPerTopName = 160

// newUnitLowerer returns a lowerer for the file f, whose top-level scope is
// sc, with room for the patterns of size bytes.
func newUnitLowerer(f *diag.File, sc *topScope, size int) *unitLowerer {
	s := &unitLowerer{out: make([]*Pattern, 0, size/bytesPerTopDef)}
	s.link.f, s.link.sc = f, sc
	s.top = &scope{link: &s.link}
	s.l.topScope = s.top
	return s
}

// unitRole is how a unit lowers.
type unitRole uint8

const (
	notLowered unitRole = iota // a unit that did not parse, a misplaced record
	asHeader
	asPattern
)

// roleOf returns how the unit r lowers, first when it is the document's
// first unit: the header only stands first (as Document.assemble decides).
func roleOf(r *unitResult, first bool) unitRole {
	switch {
	case r.err != nil:
		return notLowered
	case r.unit.Header != nil && first:
		return asHeader
	case r.unit.Header != nil:
		return notLowered
	}
	return asPattern
}

// unit lowers the next unit.
func (s *unitLowerer) unit(r *unitResult) {
	s.link.enter(r.span.Start)
	role := roleOf(r, !s.started)
	s.started = true
	if role != notLowered {
		s.lowerUnit(r, role)
	} else {
		r.low = nil
	}
}

// lowerUnit lowers the unit r in the given role, which is not notLowered,
// with the linker at its start.
func (s *unitLowerer) lowerUnit(r *unitResult, role unitRole) {
	var m *unitLowering
	if s.record {
		m = &unitLowering{header: role == asHeader}
		s.link.rec = m
		s.l.diags, s.l.refs = nil, nil
		s.l.slab, s.l.propSlab, s.l.labelSlab, s.l.pairSlab = nil, nil, nil, nil
	}
	var p *Pattern
	if role == asHeader {
		p = s.l.pattern(newPattern(HeaderKind, r.unit.Header))
		p.Subject.Properties = s.l.record(r.unit.Header)
	} else {
		p = s.l.top(r.unit.Pattern, s.top)
	}
	s.out = append(s.out, p)
	if m != nil {
		m.out, m.diags, m.refs = p, s.l.diags, s.l.refs
		s.l.diags, s.l.refs = nil, nil
		s.link.rec = nil
		r.low = m
	}
}

// finish resolves the references once every unit is lowered, sets
// doc's lowered patterns and returns the gram-level diagnostics.
func (s *unitLowerer) finish(doc *Document) diag.List {
	s.link.final = true
	s.l.resolve(s.l.refs, true)
	return s.done(doc)
}

// done sets doc's lowered patterns (s.out, unless they are its units',
// see lists.go), its unresolved references and the top-level suggestions,
// once every reference is resolved, and returns the gram-level
// diagnostics.
func (s *unitLowerer) done(doc *Document) diag.List {
	if !doc.lists.byUnits {
		doc.lists.setLowered(s.out)
	}
	doc.unresolved = s.l.unresolved
	doc.suggestions = s.top.top
	if doc.suggestions == nil {
		// The previous version's, with the names that changed.
		doc.suggestions = s.top.prevTop.derive(s.link.sc.names, s.top.touched, s.link.defined)
	}
	return s.l.diags
}
