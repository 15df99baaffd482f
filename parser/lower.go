// Lowering to Pattern<Subject> and the gram-level checks.
//
// Every construct denotes a pattern: a subject (identity, labels, properties) and
// an ordered list of element patterns. Nodes have no elements; a relationship has
// its two endpoints (left arrows reverse them); a multi-hop path becomes a walk (an
// anonymous pattern labelled Gram.Walk holding the relationships in order);
// annotations wrap the pattern they annotate; the header record becomes a first
// anonymous pattern.
//
// Identities are defined once per scope: the top level of the file is one scope and
// the element list of each subject pattern opens a nested one. Subject patterns
// always define; a path node defines its identity at its first occurrence and
// references it afterwards (repeating labels or a record is a duplicate); a
// relationship identity reused with the same endpoints is a reference; a bare
// identifier in an element list references, resolved from the innermost scope
// outwards, forward references included.

package parser

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

type lowerer struct {
	diags diag.List
	// slab is where patterns are allocated, many at a time, and the other
	// slabs where the short slices of properties, labels and pairs of
	// patterns are cut from (see carve and pair).
	slab      []Pattern
	propSlab  []Property
	labelSlab []string
	pairSlab  []*Pattern
	// scopeSlab is where the scopes of element lists are allocated, and
	// fewSlab where their lists of definitions are cut from (see newScope).
	scopeSlab []scope
	fewSlab   []*Pattern
	// labels are the lists of one label given out so far, by the label,
	// shared by the subjects that have that label alone (see oneLabel).
	labels map[string][]string
	// deferred bare references, resolved after all definitions are known.
	refs []pendingRef
	// unresolved are the bare references that name nothing in the file.
	unresolved []Unresolved
	// topScope is the top-level scope.
	topScope *scope
	// perUnit is set when each unit's patterns are allocated apart from
	// the other units' (and their slabs grow from a few patterns): the
	// lowering of a unit kept by later versions keeps no other unit's.
	perUnit bool
}

// pendingRef is a bare reference p in the element list of the scope sc;
// the owners of sc and of the scopes around it are the patterns p stands in.
type pendingRef struct {
	p  *Pattern
	sc *scope
}

// slabSize is how many properties or labels are allocated at once (see
// carve); patterns are allocated patternSlab at a time.
//
// Patterns in a slab point only to patterns allocated before them (a
// relationship to its nodes, a walk to its relationships, an annotated
// pattern to what it annotates), except references to their definitions;
// subject patterns, which point to elements lowered after them, are
// allocated one by one (see group), and the pairs of a relationship's
// elements are carved from a slab of pairs of the relationships of the same
// slab of patterns. So a pattern kept alive keeps its own slab alive and
// what that points back to, never the slabs of the units after it: a later
// version of the document that reuses the patterns of the units before an
// edit does not keep the rest of the earlier version.
const slabSize = 128

// patternSlab is how many patterns a slab of patterns holds: as many as
// fill the allocator's 16 KiB size class (146 patterns of 112 bytes; 128
// would leave an eighth of every slab unused).
const patternSlab = 146

// pattern returns p, allocated in the slab.
func (l *lowerer) pattern(p Pattern) *Pattern {
	if len(l.slab) == cap(l.slab) {
		n := patternSlab
		if l.perUnit {
			n = min(patternSlab, max(4, 2*cap(l.slab)))
		}
		l.slab = make([]Pattern, 0, n)
		l.pairSlab = nil // see slabSize
	}
	l.slab = append(l.slab, p)
	return &l.slab[len(l.slab)-1]
}

// pairSlabSize is the most pairs of patterns allocated at once.
const pairSlabSize = 16

// pair returns the elements of a relationship, a and b, carved from a slab
// of pairs of the relationships of the current slab of patterns (see
// slabSize), which has room for at most half its patterns left, as each
// relationship comes with a node.
func (l *lowerer) pair(a, b *Pattern) []*Pattern {
	if cap(l.pairSlab)-len(l.pairSlab) < 2 {
		n := min(pairSlabSize, (cap(l.slab)-len(l.slab))/2+1)
		l.pairSlab = make([]*Pattern, 0, 2*n)
	}
	k := len(l.pairSlab)
	l.pairSlab = append(l.pairSlab, a, b)
	return l.pairSlab[k : k+2 : k+2]
}

// carve returns an empty slice with room for n elements, cut from *slab
// (refilled slabSize elements at a time); its capacity ends at n, so an
// append past it copies rather than writing into the next slice.
func carve[T any](slab *[]T, n int, perUnit bool) []T {
	if n > slabSize/4 || perUnit {
		return make([]T, 0, n)
	}
	if cap(*slab)-len(*slab) < n {
		*slab = make([]T, 0, slabSize)
	}
	k := len(*slab)
	*slab = (*slab)[:k+n]
	return (*slab)[k : k : k+n]
}

func (l *lowerer) top(tp *grammar.TopPattern, sc *scope) *Pattern {
	var inner *Pattern
	if tp.Subject != nil {
		inner = l.group(tp.Subject, sc)
	} else {
		inner = l.path(tp.Path, sc)
	}
	a := tp.Annotations
	if a == nil {
		return inner
	}
	w := l.pattern(newPattern(AnnotatedKind, tp))
	w.Elements = []*Pattern{inner}
	if id := a.Identified; id != nil {
		l.subject(&w.Subject, id.Subject)
		if w.Subject.Identity != "" {
			l.define(sc, w)
		}
	}
	for _, pa := range a.Properties {
		k := pa.Key.Value
		ks := pa.Key.Span()
		if first := w.Subject.Prop(k); first != nil {
			// The properties are the first of each key (annotations are few).
			l.dupKey(k, ks, first.KeySpan())
			continue
		}
		if pa.Value != nil {
			l.nested(pa.Value)
		}
		w.Subject.Properties = append(w.Subject.Properties, NewProperty(k, ks, pa.Value))
	}
	return w
}

func (l *lowerer) dupKey(k string, at, first diag.Span) {
	d := diag.Errorf(CodeDuplicateKey, at, "duplicate key %q", k)
	d.Detail = "each key may appear once; remove or rename this one"
	d.Related = []diag.Related{{Span: first, Message: "first use of " + k}}
	l.diags.Add(d)
}

// record lowers a record's entries, reporting duplicate keys (quoted and bare keys
// with the same text collide) in it and in its maps.
func (l *lowerer) record(r *grammar.Record) []Property {
	if r == nil || len(r.Entries) == 0 {
		return nil
	}
	props := carve(&l.propSlab, len(r.Entries), l.perUnit)
	l.entries(r.Entries, &props)
	return props
}

// smallRecord is the most entries a record or map may have for its duplicate
// keys to be found by comparing every pair.
const smallRecord = 16

// entries reports the keys of a record's or a map's entries written again
// (quoted and bare keys with the same text collide), and those of the maps
// of their values, and appends to props, if set, the first entry of each
// key.
func (l *lowerer) entries(entries []grammar.Entry, props *[]Property) {
	// Short lists are searched; long ones (data) get an index of their keys.
	var keys [smallRecord]string
	var index map[string]int
	if len(entries) > smallRecord {
		index = make(map[string]int, len(entries))
	}
	for i := range entries {
		e := &entries[i]
		k := e.KeyName()
		first, dup := index[k]
		if index == nil {
			first = slices.Index(keys[:i], k)
			dup, keys[i] = first >= 0, k
		} else if !dup {
			index[k] = i
		}
		if dup {
			l.dupKey(k, e.Key.Span(), entries[first].Key.Span())
		} else if props != nil {
			*props = append(*props, NewProperty(k, e.Key.Span(), &e.Value))
		}
		l.nested(&e.Value)
	}
}

// nested checks the maps of a property value for duplicate keys, also the
// maps inside arrays (which ParseSyntax reports as nested-map errors).
func (l *lowerer) nested(v *grammar.Value) {
	switch v.Kind() {
	case grammar.MapValue:
		l.entries(v.Entries(), nil)
	case grammar.ArrayValue:
		items := v.Items()
		for i := range items {
			l.nested(&items[i])
		}
	}
}

// subject lowers a subject into out: its identity, its labels (each once)
// and its properties.
func (l *lowerer) subject(out *Subject, s *grammar.Subject) {
	if s == nil {
		return
	}
	if s.Ident.Valid() {
		out.Identity = s.Ident.Text()
	}
	if len(s.Labels) == 1 {
		out.Labels = l.oneLabel(s.Labels[0].Name.Text())
	} else if len(s.Labels) > 0 {
		out.Labels = carve(&l.labelSlab, len(s.Labels), l.perUnit)
		var seen map[string]bool // for many labels, where comparing each with each is slow
		if len(s.Labels) > smallRecord {
			seen = make(map[string]bool, len(s.Labels))
		}
		for _, lb := range s.Labels {
			name := lb.Name.Text()
			if seen != nil {
				if seen[name] {
					continue
				}
				seen[name] = true
			} else if slices.Contains(out.Labels, name) {
				continue
			}
			out.Labels = append(out.Labels, name)
		}
	}
	out.Properties = l.record(s.Record)
}

// maxSharedLabels is how many distinct labels a lowerer keeps lists of one
// label for (see oneLabel); beyond them, a list is cut from the slab.
const maxSharedLabels = 1024

// oneLabel returns the labels of a subject that has the one label name: a
// list shared by the subjects of the document that have it alone, its
// capacity 1 (an append to it copies it), and its string a copy of its
// own, so that it keeps no unit's text alive.
func (l *lowerer) oneLabel(name string) []string {
	if ls, ok := l.labels[name]; ok {
		return ls
	}
	if len(l.labels) >= maxSharedLabels {
		return append(carve(&l.labelSlab, 1, l.perUnit), name)
	}
	if l.labels == nil {
		l.labels = make(map[string][]string)
	}
	ls := []string{strings.Clone(name)}
	l.labels[ls[0]] = ls
	return ls
}

func hasDefinition(s *grammar.Subject) bool {
	return s != nil && (len(s.Labels) > 0 || s.Record != nil)
}

func (l *lowerer) define(sc *scope, p *Pattern) {
	id := p.Subject.Identity
	if first, ok := sc.def(id); ok {
		l.dupDef(p, first, "", "an identity is defined once per scope: rename one of them, or refer to the first with a bare "+id)
		return
	}
	sc.set(id, p)
}

// dupDef reports that p defines again the identity that first defines:
// msg is the message, "" for the usual one.
func (l *lowerer) dupDef(p, first *Pattern, msg, detail string) {
	id := p.Subject.Identity
	if msg == "" {
		msg = strconv.Quote(id) + " is already defined"
	}
	d := diag.Errorf(CodeDuplicateDefinition, p.IdentSpan(), "%s", msg)
	d.Detail = detail
	d.Related = []diag.Related{{Span: first.IdentSpan(), Message: "first definition of " + id}}
	l.diags.Add(d)
}

// group lowers a subject pattern [s | elements].
func (l *lowerer) group(sp *grammar.SubjectPattern, sc *scope) *Pattern {
	p := new(Pattern) // not from the slab: see slabSize
	*p = newPattern(GroupKind, sp)
	l.subject(&p.Subject, sp.Subject)
	if p.Subject.Identity != "" {
		l.define(sc, p)
	}
	if len(sp.Elements) == 0 {
		return p
	}
	parent := sc
	if sc.parent == nil {
		parent = outermost
	}
	refs, scopes, few := len(l.refs), l.scopeSlab, l.fewSlab
	inner := l.newScope(parent, p, sp.Elements)
	p.Elements = make([]*Pattern, 0, len(sp.Elements))
	for _, e := range sp.Elements {
		var ep *Pattern
		switch {
		case e.Subject != nil:
			ep = l.group(e.Subject, inner)
		case e.Path != nil:
			ep = l.path(e.Path, inner)
		default:
			ep = l.pattern(newPattern(ReferenceKind, e.Ref))
			ep.Subject.Identity = e.Ref.Text()
			l.refs = append(l.refs, pendingRef{p: ep, sc: inner})
		}
		p.Elements = append(p.Elements, ep)
	}
	if len(l.refs) == refs {
		l.releaseScopes(scopes, few) // no bare reference waits in them
	}
	return p
}

// path lowers a path: a node, a relationship, or a walk.
func (l *lowerer) path(pt *grammar.Path, sc *scope) *Pattern {
	left := l.node(pt.Left, sc)
	if pt.Arrow == nil {
		return left
	}
	n := 0
	for p := pt; p.Arrow != nil; p = p.Right {
		n++
	}
	var rels []*Pattern // a walk's elements, sized once
	if n > 1 {
		rels = make([]*Pattern, 0, n)
	}
	var r *Pattern
	for p := pt; p.Arrow != nil; p = p.Right {
		right := l.node(p.Right.Left, sc)
		r = l.pattern(newPattern(RelationshipKind, p))
		l.subject(&r.Subject, p.Arrow.Subject)
		if p.Arrow.Kind() == grammar.Left {
			r.Elements = l.pair(right, left)
		} else {
			r.Elements = l.pair(left, right)
		}
		if r.Subject.Identity != "" {
			l.relationship(sc, r, p.Arrow.Subject)
		}
		if rels != nil {
			rels = append(rels, r)
		}
		left = right
	}
	if rels == nil {
		return r // a relationship
	}
	w := l.pattern(newPattern(WalkKind, pt))
	w.Elements = rels
	w.Subject.Labels = walkLabels[:1:1]
	return w
}

// walkLabels are the labels of every walk, one list that all share: a
// pattern is never changed once made.
var walkLabels = []string{WalkLabel}

// relationship defines or references a relationship identity.
func (l *lowerer) relationship(sc *scope, r *Pattern, s *grammar.Subject) {
	id := r.Subject.Identity
	first := sc.lookupIn(id, l.topScope)
	if first == nil {
		sc.set(id, r)
		return
	}
	if !hasDefinition(s) && sameEndpoints(first, r) {
		r.Def = first
		return
	}
	msg := ""
	if !hasDefinition(s) {
		msg = "relationship " + quote(id) + " is already defined with other endpoints"
	}
	l.dupDef(r, first, msg, "a relationship identity is reused only between the same two nodes; rename this one")
}

func quote(s string) string { return "\"" + s + "\"" }

func sameEndpoints(a, b *Pattern) bool {
	if len(a.Elements) != 2 || len(b.Elements) != 2 {
		return false
	}
	for i := 0; i < 2; i++ {
		x, y := a.Elements[i].Subject.Identity, b.Elements[i].Subject.Identity
		if x == "" || x != y {
			return false
		}
	}
	return true
}

// node lowers a node pattern; identities are resolved later (see resolve).
func (l *lowerer) node(n *grammar.NodePattern, sc *scope) *Pattern {
	p := l.pattern(newPattern(NodeKind, n))
	l.subject(&p.Subject, n.Subject)
	if n.Subject != nil && n.Subject.Ident.Valid() {
		id := p.Subject.Identity
		if hasDefinition(n.Subject) {
			// Labels or a record define the identity in this scope; it clashes
			// only with a definition in the same scope.
			if first, ok := sc.def(id); ok {
				l.dupDef(p, first, "", "labels and a record go on the first occurrence only; later ones are written bare: ("+id+")")
			} else {
				sc.set(id, p)
			}
		} else if first := sc.lookupIn(id, l.topScope); first != nil {
			// A bare node refers to the nearest definition, inner scopes first.
			p.Def = first
		} else {
			sc.set(id, p)
		}
	}
	return p
}
