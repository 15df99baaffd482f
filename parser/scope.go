// The scopes of lowering: the top level of a file is one scope, and the
// element list of each subject pattern opens a nested one (see lower.go).

package parser

import (
	"maps"
	"slices"
	"sync"
	"unsafe"

	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
)

type scope struct {
	parent *scope
	// defs are the definitions of a nested scope by identity, once it has
	// more than fewDefs; few holds them until then. The top-level scope
	// keeps its definitions in link, shared by the units of a document.
	defs  map[string]*Pattern
	few   []*Pattern
	owner *Pattern // the subject pattern whose elements this scope holds
	link  *linker  // for the top-level scope
	// index holds defs' names for suggestions, built when first needed (after
	// every definition is known); for the top-level scope, top does, and
	// prevTop is the previous version's (see suggestionsFor).
	index        *suggest.NameIndex
	indexOnce    sync.Once
	top, prevTop *topSuggestions
	// touched are the top-level names whose definitions changed since the
	// previous version (see suggestionsFor).
	touched map[string]bool
}

// fewDefs is how many definitions a nested scope lists before it makes a
// table of them: most element lists define a handful of names, for which a
// list is a fraction of the size of a map and as quick to search.
const fewDefs = 8

// set defines id, p's identity, in the scope (an element list of references
// alone defines nothing and allocates nothing).
func (s *scope) set(id string, p *Pattern) {
	switch {
	case s.link != nil:
		s.link.define(id, p)
	case s.defs != nil:
		s.defs[id] = p
	case len(s.few) < fewDefs:
		s.few = append(s.few, p)
	default:
		s.defs = make(map[string]*Pattern, 2*fewDefs)
		for _, q := range s.few {
			s.defs[q.Subject.Identity] = q
		}
		s.defs[id] = p
		s.few = nil
	}
}

// outermost is what the scopes of a top-level pattern's elements lead up
// to in place of the top-level scope, which is the lowerer's (see
// lookupIn): versions of a document that share a unit's lowering share its
// scopes, and each has a top-level scope of its own.
var outermost = &scope{}

// lookupIn returns the definition of id visible in s, from the innermost
// scope outwards, with top as the top-level scope.
func (s *scope) lookupIn(id string, top *scope) *Pattern {
	for ; s.parent != nil; s = s.parent {
		if p, ok := s.def(id); ok {
			return p
		}
	}
	return top.link.lookup(id)
}

// def returns the definition of id in the scope itself.
func (s *scope) def(id string) (*Pattern, bool) {
	switch {
	case s.link != nil:
		p := s.link.lookup(id)
		return p, p != nil
	case s.defs != nil:
		p, ok := s.defs[id]
		return p, ok
	}
	for _, p := range s.few {
		if p.Subject.Identity == id {
			return p, true
		}
	}
	return nil, false
}

// names returns the identities the scope defines, in no order.
func (s *scope) names() []string {
	if s.link != nil {
		var names []string
		s.link.sc.keys(func(k string) { names = append(names, k) })
		return names
	}
	names := slices.AppendSeq(make([]string, 0, len(s.defs)+len(s.few)), maps.Keys(s.defs))
	for _, p := range s.few {
		names = append(names, p.Subject.Identity)
	}
	return names
}

// scopeSlabSize is how many scopes of element lists are allocated at once.
const scopeSlabSize = 64

// newScope returns the scope of the elements els of owner, inside parent.
// Scopes are needed until the bare references are resolved, when a whole
// document is lowered, and are then garbage: allocated many at a time,
// with room for the definitions of the elements that may define (see
// scope.set), they leave whole blocks to the allocator rather than holes
// among the subject patterns, which are of their size, and the syntax. A
// unit lowered on its own (see perUnit) keeps its scopes with its
// lowering, and allocates them one by one.
func (l *lowerer) newScope(parent *scope, owner *Pattern, els []*grammar.Element) *scope {
	if l.perUnit {
		return &scope{parent: parent, owner: owner}
	}
	if len(l.scopeSlab) == cap(l.scopeSlab) {
		l.scopeSlab = make([]scope, 0, scopeSlabSize)
	}
	n := len(l.scopeSlab)
	l.scopeSlab = l.scopeSlab[:n+1]
	s := &l.scopeSlab[n]
	s.parent, s.owner = parent, owner
	for _, e := range els {
		if e.Ref == nil {
			s.few = carve(&l.fewSlab, fewDefs, false)
			break
		}
	}
	return s
}

// releaseScopes hands out again, for the scopes made next, those made
// since the slabs of scopes and of their lists of definitions were scopes
// and few, and their lists: the scopes of a subject pattern's elements are
// looked at while they are lowered, and after that only by the bare
// references among them that wait for their definitions (see resolve.go).
// A subject pattern without such a reference, as a tool's signature, lets
// go of its scopes as soon as it is lowered, and the document's scopes take
// the room of those that wait. Scopes made one by one (see perUnit) are
// left to the collector.
func (l *lowerer) releaseScopes(scopes []scope, few []*Pattern) {
	if l.perUnit {
		return
	}
	l.scopeSlab = rewind(l.scopeSlab, scopes)
	l.fewSlab = rewind(l.fewSlab, few)
}

// rewind returns the slab cur cut back to was, an earlier state of it,
// with what it handed out since zeroed; to its start when it was
// allocated since.
func rewind[T any](cur, was []T) []T {
	if cap(cur) == 0 {
		return cur
	}
	from := 0
	if cap(was) > 0 && unsafe.SliceData(was) == unsafe.SliceData(cur) {
		from = len(was)
	}
	clear(cur[from:])
	return cur[:from]
}
