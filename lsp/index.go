// The index of a document's identities, made a unit at a time as requests
// ask about them.
//
// Every place an identity is written is an occurrence: where it is defined
// (a subject pattern, the first occurrence of a path node or relationship, an
// @@ annotation) and where it is referred to (a bare identifier in an element
// list, a path node or relationship repeated, a record used as a type in a
// label or in `items:`). Each occurrence knows the span of the defining
// identity, which is the identity's key: definition, references,
// highlights and rename are lookups in this index.
//
// The index also maps the agent language's declarations (agents, tools,
// parameters, records, fields, return types) by the span of their identity
// and of their whole pattern, so a feature can go from a token to what it
// means.
//
// Every span lies in one top-level pattern, and what the index knows of a
// pattern depends on that pattern and the declarations its references name,
// so the index is made one top-level pattern (a unit) at a time, the first
// time a request asks about a place in it: a hover or a definition right
// after an edit costs the unit under the cursor, not the document. Only the
// occurrences of an identity across the document (references, rename) are
// gathered from every unit, when asked.

package lsp

import (
	"slices"
	"sort"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/ide"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// occurrence is one place where an identity is written.
type occurrence struct {
	span diag.Span
	// def is the span of the defining identity; zero for a reference that
	// does not resolve.
	def   diag.Span
	name  string
	isDef bool
	role  ide.Kind // what the identity names
	// typeRef is set for a record named as a type (a label or items:).
	typeRef bool
}

// resolved reports whether the occurrence has a definition.
func (o *occurrence) resolved() bool { return o.isDef || o.def.Len() > 0 }

// decl is a declaration of the agent language.
type decl struct {
	role   ide.Kind // what it declares
	agent  *schema.Agent
	tool   *schema.Tool   // the tool, or the tool of a parameter or return node
	param  *schema.Param  // a parameter or field
	record *schema.Record // the record, or the record of a field
}

// index is the identity index of an analysis, made a unit at a time.
type index struct {
	a     *analysis
	mu    sync.Mutex
	units map[int]*unitIndex // by the unit's place in a.Doc.Lowered
	// split is where the tools written inside agents start in the
	// program's tools, found once.
	splitOnce sync.Once
	split     int
	refsOnce  sync.Once
	refs      map[diag.Span][]*occurrence
}

// unitIndex is what the index knows of one top-level pattern.
type unitIndex struct {
	occs []occurrence // sorted by span (positions in order within a unit)
	// byName maps an identity's defining span to its declaration, bySpan a
	// declaration's whole pattern span, defs a defining span to its lowered
	// pattern.
	byName map[diag.Span]*decl
	bySpan map[diag.Span]*decl
	defs   map[diag.Span]*parser.Pattern
}

// newIndex returns the (empty) index of an analysis.
func newIndex(a *analysis) *index { return &index{a: a, units: map[int]*unitIndex{}} }

// unitOf returns the place in a.Doc.Lowered of the top-level pattern whose
// span holds the position pos (its ends included), or -1: a binary search
// by offset, so that a request costs the unit it is about.
func (ix *index) unitOf(pos int) int {
	f, lowered := ix.a.File, ix.a.Doc.Lowered
	off := f.Offset(pos)
	i := sort.Search(len(lowered), func(i int) bool { return f.Offset(lowered[i].Span().End) >= off })
	if i < len(lowered) && f.Offset(lowered[i].Span().Start) <= off {
		return i
	}
	return -1
}

// inlineFrom returns where the tools written inside agents start in the
// program's tools.
func (ix *index) inlineFrom() int {
	ix.splitOnce.Do(func() {
		tools := ix.a.Prog.Tools
		ix.split = sort.Search(len(tools), func(i int) bool { return !tools[i].TopLevel })
	})
	return ix.split
}

// unit returns what the index knows of the unit i, making it on first use.
func (ix *index) unit(i int) *unitIndex {
	ix.mu.Lock()
	u := ix.units[i]
	ix.mu.Unlock()
	if u != nil {
		return u
	}
	u = ix.makeUnit(i)
	ix.mu.Lock()
	if w := ix.units[i]; w != nil {
		u = w
	} else {
		ix.units[i] = u
	}
	ix.mu.Unlock()
	return u
}

// unitAt returns what the index knows of the unit holding the position pos,
// or nil.
func (ix *index) unitAt(pos int) *unitIndex {
	if i := ix.unitOf(pos); i >= 0 {
		return ix.unit(i)
	}
	return nil
}

// makeUnit indexes the unit i: the declarations compiled from it, then the
// identities its lowered pattern writes and the records its types name.
func (ix *index) makeUnit(i int) *unitIndex {
	u := &unitIndex{byName: map[diag.Span]*decl{}, bySpan: map[diag.Span]*decl{}, defs: map[diag.Span]*parser.Pattern{}}
	span := ix.a.File.Resolve(ix.a.Doc.Lowered[i].Span())
	lo, hi, split := span.Start, span.End, ix.inlineFrom()
	p := ix.a.Prog
	in := func(sp diag.Span) bool {
		o := ix.a.File.Offset(sp.Start)
		return lo <= o && o < hi
	}
	agents := within(p.Agents, in, func(a *schema.Agent) diag.Span { return a.Span }, ix.a.File, lo)
	tools := within(p.Tools[:split], in, func(t *schema.Tool) diag.Span { return t.Span }, ix.a.File, lo)
	tools = append(tools, within(p.Tools[split:], in, func(t *schema.Tool) diag.Span { return t.Span }, ix.a.File, lo)...)
	records := within(p.Records, in, func(r *schema.Record) diag.Span { return r.Span }, ix.a.File, lo)
	u.addDecls(agents, tools, records)
	u.addIdentities(ix, ix.a.Doc.Lowered[i], in)
	// A record of another file of the package is not defined here (its
	// spans are positions of its file): it is left unresolved, with its
	// name (see package.go).
	own := func(r *schema.Record) bool { return ix.a.Others == nil || slices.Contains(p.Records, r) }
	for _, t := range tools {
		for _, prm := range t.Params {
			u.addTypeRef(prm.Type, own)
		}
		u.addTypeRef(t.Returns, own)
	}
	for _, r := range records {
		for _, f := range r.Fields {
			u.addTypeRef(f.Type, own)
		}
	}
	sortStableBy(u.occs, func(o *occurrence) int { return o.span.Start })
	// A span is indexed once (a type written twice would be the same span).
	u.occs = compactOccs(u.occs)
	return u
}

// within returns the elements of list, which are in source order, whose
// spans start in a unit (as in reports), the unit starting at the offset lo.
func within[T any](list []*T, in func(diag.Span) bool, span func(*T) diag.Span, f *diag.File, lo int) []*T {
	k := sort.Search(len(list), func(i int) bool { return f.Offset(span(list[i]).Start) >= lo })
	var out []*T
	for ; k < len(list) && in(span(list[k])); k++ {
		out = append(out, list[k])
	}
	return out
}

// addDecls maps the declarations of the agent language by the spans of
// their identities and of their patterns.
func (u *unitIndex) addDecls(agents []*schema.Agent, tools []*schema.Tool, records []*schema.Record) {
	add := func(name, whole diag.Span, d *decl) {
		if name.Len() > 0 && u.byName[name] == nil {
			u.byName[name] = d
		}
		if whole.Len() > 0 && u.bySpan[whole] == nil {
			u.bySpan[whole] = d
		}
	}
	for _, ag := range agents {
		add(ag.NameSpan, ag.Span, &decl{role: ide.KindAgent, agent: ag})
	}
	for _, t := range tools {
		add(t.NameSpan, t.Span, &decl{role: ide.KindTool, tool: t})
		for _, prm := range t.Params {
			add(prm.NameSpan, prm.Span, &decl{role: ide.KindParam, tool: t, param: prm})
		}
		if t.ReturnSpan.Len() > 0 {
			add(diag.Span{}, t.ReturnSpan, &decl{role: ide.KindReturn, tool: t})
		}
	}
	for _, r := range records {
		add(r.NameSpan, r.Span, &decl{role: ide.KindRecord, record: r})
		for _, f := range r.Fields {
			add(f.NameSpan, f.Span, &decl{role: ide.KindField, record: r, param: f})
		}
	}
}

// addIdentities adds an occurrence for every identity the lowered pattern
// top writes, each pattern once (a reference shares its definition's
// pattern); in tells whether a span lies in this unit.
func (u *unitIndex) addIdentities(ix *index, top *parser.Pattern, in func(diag.Span) bool) {
	seen := map[*parser.Pattern]bool{}
	var walk func(pt *parser.Pattern)
	walk = func(pt *parser.Pattern) {
		if seen[pt] {
			return
		}
		seen[pt] = true
		if id := pt.Subject.Identity; id != "" && pt.IdentSpan().Len() > 0 {
			o := occurrence{span: pt.IdentSpan(), name: id}
			if pt.IsReference() {
				if pt.Def != nil {
					o.def = pt.Def.IdentSpan()
					if in(o.def) {
						// Defined in this unit, which is being made: asking
						// the index would make it again, without end.
						o.role = u.roleOf(pt.Def)
					} else {
						o.role = ix.roleOf(pt.Def)
					}
				}
			} else {
				o.def, o.isDef = pt.IdentSpan(), true
				o.role = u.roleOf(pt)
				if u.defs[pt.IdentSpan()] == nil {
					u.defs[pt.IdentSpan()] = pt
				}
			}
			u.occs = append(u.occs, o)
		}
		for _, e := range pt.Elements {
			walk(e)
		}
	}
	walk(top)
}

// addTypeRef adds an occurrence for every record the type t names; a
// record that is not own (of another file) has no definition here.
func (u *unitIndex) addTypeRef(t *schema.Type, own func(*schema.Record) bool) {
	for ; t != nil; t = t.Items {
		if t.Kind == schema.RecordType && t.Record != nil && t.Record.NameSpan.Len() > 0 && t.Span.Len() > 0 {
			o := occurrence{span: t.Span, name: t.Record.Name, role: ide.KindRecord, typeRef: true}
			if own(t.Record) {
				o.def = t.Record.NameSpan
			}
			u.occs = append(u.occs, o)
		}
	}
}

// compactOccs drops occurrences with the same span as the one before.
func compactOccs(occs []occurrence) []occurrence {
	out := occs[:0]
	for i, o := range occs {
		if i > 0 && o.span == out[len(out)-1].span {
			continue
		}
		out = append(out, o)
	}
	return out
}

// roleOf returns the role of a defining pattern of the unit.
func (u *unitIndex) roleOf(pt *parser.Pattern) ide.Kind {
	if d := u.byName[pt.IdentSpan()]; d != nil {
		return d.role
	}
	return ide.PatternKind(pt)
}

// roleOf returns the role of a defining pattern, in whichever unit it is.
func (ix *index) roleOf(pt *parser.Pattern) ide.Kind {
	if u := ix.unitAt(pt.IdentSpan().Start); u != nil {
		return u.roleOf(pt)
	}
	return ide.KindOther
}

// nameDecl returns the declaration whose identity is written at the span
// name, or nil.
func (ix *index) nameDecl(name diag.Span) *decl {
	if u := ix.unitAt(name.Start); u != nil {
		return u.byName[name]
	}
	return nil
}

// spanDecl returns the declaration whose whole pattern is the span whole,
// or nil.
func (ix *index) spanDecl(whole diag.Span) *decl {
	if u := ix.unitAt(whole.Start); u != nil {
		return u.bySpan[whole]
	}
	return nil
}

// defPattern returns the lowered pattern that defines the identity written
// at the span def, or nil.
func (ix *index) defPattern(def diag.Span) *parser.Pattern {
	if u := ix.unitAt(def.Start); u != nil {
		return u.defs[def]
	}
	return nil
}

// at returns the occurrence under the cursor at the position off: the one
// containing off, or else one ending at off.
func (ix *index) at(off int) (*occurrence, bool) {
	u := ix.unitAt(off)
	if u == nil {
		return nil, false
	}
	i := sort.Search(len(u.occs), func(i int) bool { return u.occs[i].span.End >= off })
	var end *occurrence
	for ; i < len(u.occs) && u.occs[i].span.Start <= off; i++ {
		o := &u.occs[i]
		if off < o.span.End {
			return o, true
		}
		if o.span.End == off && end == nil {
			end = o
		}
	}
	return end, end != nil
}

// exact returns the occurrence whose span is s, or nil.
func (ix *index) exact(s diag.Span) *occurrence {
	u := ix.unitAt(s.Start)
	if u == nil {
		return nil
	}
	i := sort.Search(len(u.occs), func(i int) bool { return u.occs[i].span.Start >= s.Start })
	if i < len(u.occs) && u.occs[i].span == s {
		return &u.occs[i]
	}
	return nil
}

// occurrencesOf returns every occurrence of the identity defined at def, in
// source order; the first call indexes every unit.
func (ix *index) occurrencesOf(def diag.Span) []*occurrence {
	ix.refsOnce.Do(func() {
		ix.refs = map[diag.Span][]*occurrence{}
		for i := range ix.a.Doc.Lowered {
			u := ix.unit(i)
			for k := range u.occs {
				if o := &u.occs[k]; o.resolved() {
					ix.refs[o.def] = append(ix.refs[o.def], o)
				}
			}
		}
	})
	return ix.refs[def]
}
