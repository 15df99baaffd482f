// The index of a text's identities, made a unit at a time as features
// ask about them.
//
// Every place an identity is written is an occurrence: where it is defined
// (a subject pattern, the first occurrence of a path node or relationship, an
// @@ annotation) and where it is referred to (a bare identifier in an element
// list, a path node or relationship repeated, a record used as a type in a
// label or in `items:`). Each occurrence knows the span of the defining
// identity, which is the identity's key: hover, definition, references,
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
// time a feature asks about a place in it: a hover or a definition right
// after an edit costs the unit under the cursor, not the document. Only the
// occurrences of an identity across the document (references, rename) are
// gathered from every unit, when asked. Its spans, and the positions it
// takes, are positions of the analysis's file (see [diag.Positions]).

package ide

import (
	"slices"
	"sort"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Occurrence is one place where an identity is written.
type Occurrence struct {
	// Span is where the identity is written.
	Span diag.Span
	// Def is the span of the defining identity; zero for a reference that
	// does not resolve.
	Def diag.Span
	// Name is the identity.
	Name string
	// IsDef is set where the identity is defined.
	IsDef bool
	// Kind is what the identity names.
	Kind Kind
	// Element is set for a reference written among an agent's elements:
	// a tool it lists, or an agent it calls as one.
	Element bool
}

// Resolved reports whether the occurrence has a definition in the text.
func (o *Occurrence) Resolved() bool { return o.IsDef || o.Def.Len() > 0 }

// Decl is a declaration of the agent language.
type Decl struct {
	Kind Kind // what it declares
	// Agent is the agent, or the agent of a parameter or return node of
	// its signature element.
	Agent  *schema.Agent
	Tool   *schema.Tool   // the tool, or the tool of a parameter or return node
	Param  *schema.Param  // a parameter or field
	Record *schema.Record // the record, or the record of a field
}

// Index is the index of an analysis's identities, made a unit at a time.
type Index struct {
	a     *Analysis
	mu    sync.Mutex
	units map[*parser.Pattern]*unitIndex // by the unit's lowered pattern
	// decls are the declarations of the units, by the same key: what
	// another unit asks of a unit being made (the kind of an identity),
	// which never needs the unit's identities.
	decls map[*parser.Pattern]*unitDecls
	// handoffs are the nodes written at the ends of Handoff relationships
	// (see handoff.go), found when first needed.
	handoffs func() map[*parser.Pattern]bool
	// split is where the tools written inside agents start in the
	// program's tools.
	split    int
	refsOnce sync.Once
	refs     map[diag.Span][]*Occurrence
}

// unitIndex is what the index knows of one top-level pattern.
type unitIndex struct {
	*unitDecls
	occs []Occurrence // sorted by span (positions in order within a unit)
	// defs maps a defining span to its lowered pattern.
	defs map[diag.Span]*parser.Pattern
}

// unitDecls are the declarations compiled from one top-level pattern.
type unitDecls struct {
	// byName maps an identity's defining span to its declaration, bySpan
	// a declaration's whole pattern span.
	byName map[diag.Span]*Decl
	bySpan map[diag.Span]*Decl
	// tools and records are those compiled from the unit, sigs the agents'
	// signature elements.
	tools   []*schema.Tool
	records []*schema.Record
	sigs    []*schema.Tool
}

// newIndex returns the (empty) index of an analysis.
func newIndex(a *Analysis) *Index {
	split := sort.Search(a.Prog.NumTools(), func(i int) bool { return !a.Prog.ToolAt(i).TopLevel })
	ix := &Index{a: a, units: map[*parser.Pattern]*unitIndex{}, decls: map[*parser.Pattern]*unitDecls{}, split: split}
	ix.handoffs = sync.OnceValue(func() map[*parser.Pattern]bool { return handoffNodes(a.Doc.Lowered()) })
	return ix
}

// unit returns what the index knows of the unit whose lowered pattern is
// top, making it on first use.
func (ix *Index) unit(top *parser.Pattern) *unitIndex {
	return memo(&ix.mu, ix.units, top, ix.makeUnit)
}

// memo returns m[i], made by build(i) on first use; mu guards m, and is
// not held while build works (two callers may both make it: the first
// stored is kept).
func memo[K comparable, V any](mu *sync.Mutex, m map[K]*V, i K, build func(K) *V) *V {
	mu.Lock()
	v := m[i]
	mu.Unlock()
	if v != nil {
		return v
	}
	v = build(i)
	mu.Lock()
	defer mu.Unlock()
	if w := m[i]; w != nil {
		return w
	}
	m[i] = v
	return v
}

// noUnit is what the index knows of a position in no unit: nothing.
var noUnit = &unitIndex{unitDecls: &unitDecls{}}

// unitAt returns what the index knows of the unit holding the position pos,
// or noUnit: the unit is found by a binary search, so that a request costs
// the unit it is about.
func (ix *Index) unitAt(pos int) *unitIndex {
	if top := ix.a.loweredAt(pos); top != nil {
		return ix.unit(top)
	}
	return noUnit
}

// makeUnit indexes the unit whose lowered pattern is top: the declarations
// compiled from it, then the identities top writes and the records its
// types name.
func (ix *Index) makeUnit(top *parser.Pattern) *unitIndex {
	u := &unitIndex{unitDecls: ix.unitDecls(top), defs: map[diag.Span]*parser.Pattern{}}
	u.addIdentities(ix, top)
	// A record of another file of the package is not defined here (its
	// spans are positions of its file): it is left unresolved, with its
	// name (see [Analysis.Others]).
	p := ix.a.Prog
	own := func(r *schema.Record) bool { return ix.a.Others == nil || slices.Contains(p.Records, r) }
	for _, t := range slices.Concat(u.tools, u.sigs) {
		for _, prm := range t.Params {
			u.addTypeRef(prm.Type, own)
		}
		u.addTypeRef(t.Returns, own)
	}
	for _, r := range u.records {
		for _, f := range r.Fields {
			u.addTypeRef(f.Type, own)
		}
	}
	byStart := func(x, y Occurrence) int { return x.Span.Start - y.Span.Start }
	if !slices.IsSortedFunc(u.occs, byStart) {
		slices.SortStableFunc(u.occs, byStart)
	}
	// A span is indexed once (a type written twice would be the same span).
	u.occs = slices.CompactFunc(u.occs, func(x, y Occurrence) bool { return x.Span == y.Span })
	return u
}

// unitDecls returns the declarations compiled from the unit whose lowered
// pattern is top, finding them on first use.
func (ix *Index) unitDecls(top *parser.Pattern) *unitDecls {
	return memo(&ix.mu, ix.decls, top, ix.findDecls)
}

// findDecls finds the declarations compiled from the unit whose lowered
// pattern is top in the program's lists.
func (ix *Index) findDecls(top *parser.Pattern) *unitDecls {
	d := &unitDecls{byName: map[diag.Span]*Decl{}, bySpan: map[diag.Span]*Decl{}}
	f, p := ix.a.File, ix.a.Prog
	unit := f.Resolve(top.Span())
	agents := within(f, unit, 0, p.NumAgents(), p.AgentAt, func(a *schema.Agent) diag.Span { return a.Span })
	toolSpan := func(t *schema.Tool) diag.Span { return t.Span }
	d.tools = within(f, unit, 0, ix.split, p.ToolAt, toolSpan)
	d.tools = append(d.tools, within(f, unit, ix.split, p.NumTools(), p.ToolAt, toolSpan)...)
	record := func(i int) *schema.Record { return p.Records[i] }
	d.records = within(f, unit, 0, len(p.Records), record, func(r *schema.Record) diag.Span { return r.Span })
	d.addDecls(agents, d.tools, d.records)
	return d
}

// within returns the elements at(from) to at(to-1) of a list, which are in
// source order, whose spans start in the unit of f at the byte offsets
// unit: found by a binary search, so that the list is not gone through
// (nor put in one piece, see [schema.Program.ToolAt]).
func within[T any](f *diag.File, unit diag.Span, from, to int, at func(int) *T, span func(*T) diag.Span) []*T {
	k := from + sort.Search(to-from, func(i int) bool { return f.Offset(span(at(from+i)).Start) >= unit.Start })
	var out []*T
	for ; k < to && f.Offset(span(at(k)).Start) < unit.End; k++ {
		out = append(out, at(k))
	}
	return out
}

// addDecls maps the declarations of the agent language by the spans of
// their identities and of their patterns, and lists the agents' signature
// elements as tools (sigs).
func (u *unitDecls) addDecls(agents []*schema.Agent, tools []*schema.Tool, records []*schema.Record) {
	add := func(name, whole diag.Span, d *Decl) {
		if name.Len() > 0 && u.byName[name] == nil {
			u.byName[name] = d
		}
		if whole.Len() > 0 && u.bySpan[whole] == nil {
			u.bySpan[whole] = d
		}
	}
	// A signature's parameters and return type: a tool's, or the agent's
	// as a tool (its signature element).
	signature := func(ag *schema.Agent, t *schema.Tool) {
		for _, prm := range t.Params {
			add(prm.NameSpan, prm.Span, &Decl{Kind: KindParam, Agent: ag, Tool: t, Param: prm})
		}
		if t.ReturnSpan.Len() > 0 {
			add(diag.Span{}, t.ReturnSpan, &Decl{Kind: KindReturn, Agent: ag, Tool: t})
		}
	}
	for _, ag := range agents {
		add(ag.NameSpan, ag.Span, &Decl{Kind: KindAgent, Agent: ag})
	}
	for _, ag := range agents {
		if ag.Signature && ag.AsTool != nil {
			u.sigs = append(u.sigs, ag.AsTool)
			signature(ag, ag.AsTool)
		}
	}
	for _, t := range tools {
		add(t.NameSpan, t.Span, &Decl{Kind: KindTool, Tool: t})
		signature(nil, t)
	}
	for _, r := range records {
		add(r.NameSpan, r.Span, &Decl{Kind: KindRecord, Record: r})
		for _, f := range r.Fields {
			add(f.NameSpan, f.Span, &Decl{Kind: KindField, Record: r, Param: f})
		}
	}
}

// addIdentities adds an occurrence for every identity the lowered pattern
// top writes, each pattern once (a reference shares its definition's
// pattern).
func (u *unitIndex) addIdentities(ix *Index, top *parser.Pattern) {
	seen := map[*parser.Pattern]bool{}
	var walk func(pt *parser.Pattern, element bool)
	walk = func(pt *parser.Pattern, element bool) {
		if seen[pt] {
			return
		}
		seen[pt] = true
		if id := pt.Subject.Identity; id != "" && pt.IdentSpan().Len() > 0 {
			o := Occurrence{Span: pt.IdentSpan(), Name: id, Element: element && pt.IsReference()}
			switch {
			case ix.namesHandoffAgent(pt):
				// An agent a Handoff names before the file declares it, or
				// that another file declares (resolved there).
				o.Kind = KindAgent
				if ag := ix.a.Prog.Agent(id); ag != nil && ag.NameSpan.Len() > 0 {
					o.Def = ag.NameSpan
				}
			case pt.IsReference():
				if pt.Def != nil {
					o.Def = pt.Def.IdentSpan()
					o.Kind = ix.kindOf(pt.Def)
				}
			default:
				o.Def, o.IsDef = pt.IdentSpan(), true
				o.Kind = u.kindOf(pt)
				if u.defs[pt.IdentSpan()] == nil {
					u.defs[pt.IdentSpan()] = pt
				}
			}
			u.occs = append(u.occs, o)
		}
		agent := pt.Kind == parser.GroupKind && pt.Subject.HasLabel(schema.AgentLabel)
		for _, e := range pt.Elements {
			walk(e, agent)
		}
	}
	walk(top, false)
}

// addTypeRef adds an occurrence for every record the type t names; a
// record that is not own (of another file) has no definition here.
func (u *unitIndex) addTypeRef(t *schema.Type, own func(*schema.Record) bool) {
	for ; t != nil; t = t.Items {
		if t.Kind == schema.RecordType && t.Record != nil && t.Record.NameSpan.Len() > 0 && t.Span.Len() > 0 {
			o := Occurrence{Span: t.Span, Name: t.Record.Name, Kind: KindRecord}
			if own(t.Record) {
				o.Def = t.Record.NameSpan
			}
			u.occs = append(u.occs, o)
		}
	}
}

// kindOf returns the kind of a defining pattern of the unit: its
// declaration's, else a node's or a relationship's of plain gram.
func (u *unitDecls) kindOf(pt *parser.Pattern) Kind {
	switch d := u.byName[pt.IdentSpan()]; {
	case d != nil:
		return d.Kind
	case pt.Kind == parser.NodeKind:
		return KindNode
	case pt.Kind == parser.RelationshipKind:
		return KindRelationship
	}
	return KindOther
}

// kindOf returns the kind of a defining pattern, in whichever unit it is
// (the one being made too): from the unit's declarations only, so that
// two units whose identities refer to each other are made one at a time.
func (ix *Index) kindOf(pt *parser.Pattern) Kind {
	if top := ix.a.loweredAt(pt.IdentSpan().Start); top != nil {
		return ix.unitDecls(top).kindOf(pt)
	}
	return KindOther
}

// NameDecl returns the declaration whose identity is written at the span
// name, or nil.
func (ix *Index) NameDecl(name diag.Span) *Decl {
	return ix.unitAt(name.Start).byName[name]
}

// SpanDecl returns the declaration whose whole pattern is the span whole,
// or nil.
func (ix *Index) SpanDecl(whole diag.Span) *Decl {
	return ix.unitAt(whole.Start).bySpan[whole]
}

// DefPattern returns the lowered pattern that defines the identity written
// at the span def, or nil.
func (ix *Index) DefPattern(def diag.Span) *parser.Pattern {
	return ix.unitAt(def.Start).defs[def]
}

// At returns the occurrence under the cursor at the position off: the one
// containing off, or else one ending at off.
func (ix *Index) At(off int) (*Occurrence, bool) {
	u := ix.unitAt(off)
	i := sort.Search(len(u.occs), func(i int) bool { return u.occs[i].Span.End >= off })
	var end *Occurrence
	for ; i < len(u.occs) && u.occs[i].Span.Start <= off; i++ {
		o := &u.occs[i]
		if off < o.Span.End {
			return o, true
		}
		if o.Span.End == off && end == nil {
			end = o
		}
	}
	return end, end != nil
}

// Exact returns the occurrence whose span is s, or nil.
func (ix *Index) Exact(s diag.Span) *Occurrence {
	u := ix.unitAt(s.Start)
	i := sort.Search(len(u.occs), func(i int) bool { return u.occs[i].Span.Start >= s.Start })
	if i < len(u.occs) && u.occs[i].Span == s {
		return &u.occs[i]
	}
	return nil
}

// OccurrencesOf returns every occurrence of the identity defined at def, in
// source order; the first call indexes every unit.
func (ix *Index) OccurrencesOf(def diag.Span) []*Occurrence {
	ix.refsOnce.Do(func() {
		ix.refs = map[diag.Span][]*Occurrence{}
		for _, top := range ix.a.Doc.AllLowered() {
			u := ix.unit(top)
			for k := range u.occs {
				if o := &u.occs[k]; o.Resolved() {
					ix.refs[o.Def] = append(ix.refs[o.Def], o)
				}
			}
		}
	})
	return ix.refs[def]
}

// Unresolved returns the references named name that resolve in no
// definition of the text, in source order; it indexes every unit.
func (ix *Index) Unresolved(name string) []*Occurrence {
	var out []*Occurrence
	for _, top := range ix.a.Doc.AllLowered() {
		u := ix.unit(top)
		for k := range u.occs {
			if o := &u.occs[k]; !o.Resolved() && o.Name == name {
				out = append(out, o)
			}
		}
	}
	return out
}

// Made returns how many units are indexed so far.
func (ix *Index) Made() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.units)
}
