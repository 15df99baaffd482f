// The index of a document's identities, built once per analysis on first use.
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

package lsp

import (
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// role is what an identity names.
type role uint8

const (
	roleOther        role = iota // a named pattern of plain gram
	roleAgent                    // an Agent
	roleTool                     // a Tool
	roleParam                    // a tool parameter
	roleField                    // a record field
	roleRecord                   // a Record (a type)
	roleNode                     // a node of plain gram
	roleRelationship             // a relationship of plain gram
	roleReturn                   // a tool's return node (no identity)
)

// String names the role for people.
func (r role) String() string {
	switch r {
	case roleAgent:
		return "agent"
	case roleTool:
		return "tool"
	case roleParam:
		return "parameter"
	case roleField:
		return "field"
	case roleRecord:
		return "record"
	case roleNode:
		return "node"
	case roleRelationship:
		return "relationship"
	case roleReturn:
		return "return type"
	}
	return "pattern"
}

// occurrence is one place where an identity is written.
type occurrence struct {
	span diag.Span
	// def is the span of the defining identity; zero for a reference that
	// does not resolve.
	def   diag.Span
	name  string
	isDef bool
	role  role
	// typeRef is set for a record named as a type (a label or items:).
	typeRef bool
}

// resolved reports whether the occurrence has a definition.
func (o *occurrence) resolved() bool { return o.isDef || o.def.Len() > 0 }

// decl is a declaration of the agent language.
type decl struct {
	role   role
	agent  *schema.Agent
	tool   *schema.Tool   // the tool, or the tool of a parameter or return node
	param  *schema.Param  // a parameter or field
	record *schema.Record // the record, or the record of a field
}

// index is the identity index of an analysis.
type index struct {
	occs []occurrence // sorted by span
	// refs maps a definition's span to its occurrences (positions in occs).
	refs map[diag.Span][]int
	// byName maps an identity's defining span to its declaration.
	byName map[diag.Span]*decl
	// bySpan maps a declaration's whole pattern span to it.
	bySpan map[diag.Span]*decl
	// defs maps a defining span to its lowered pattern.
	defs map[diag.Span]*parser.Pattern
}

// stopEvery is how many top-level patterns the making of an index or of
// name tables goes through between two questions whether to give up.
const stopEvery = 1024

// buildIndex indexes an analysis, or returns nil when stop (nil for never)
// reports true first.
func buildIndex(a *analysis, stop func() bool) *index {
	ix := &index{
		refs:   map[diag.Span][]int{},
		byName: map[diag.Span]*decl{},
		bySpan: map[diag.Span]*decl{},
		defs:   map[diag.Span]*parser.Pattern{},
	}
	ix.addDecls(a.Prog)
	if !ix.addIdentities(a.Doc.Lowered, stop) {
		return nil
	}
	ix.addTypeRefs(a.Prog)
	if stop != nil && stop() {
		return nil
	}
	sortStableBy(ix.occs, func(o *occurrence) int { return o.span.Start })
	// A span is indexed once (a type written twice would be the same span).
	ix.occs = compactOccs(ix.occs)
	for i := range ix.occs {
		if o := &ix.occs[i]; o.resolved() {
			ix.refs[o.def] = append(ix.refs[o.def], i)
		}
	}
	return ix
}

// addDecls maps the declarations of the agent language by the spans of
// their identities and of their patterns.
func (ix *index) addDecls(p *schema.Program) {
	add := func(name, whole diag.Span, d *decl) {
		if name.Len() > 0 && ix.byName[name] == nil {
			ix.byName[name] = d
		}
		if whole.Len() > 0 && ix.bySpan[whole] == nil {
			ix.bySpan[whole] = d
		}
	}
	for _, ag := range p.Agents {
		add(ag.NameSpan, ag.Span, &decl{role: roleAgent, agent: ag})
	}
	for _, t := range p.Tools {
		add(t.NameSpan, t.Span, &decl{role: roleTool, tool: t})
		for _, prm := range t.Params {
			add(prm.NameSpan, prm.Span, &decl{role: roleParam, tool: t, param: prm})
		}
		if t.ReturnSpan.Len() > 0 {
			add(diag.Span{}, t.ReturnSpan, &decl{role: roleReturn, tool: t})
		}
	}
	for _, r := range p.Records {
		add(r.NameSpan, r.Span, &decl{role: roleRecord, record: r})
		for _, f := range r.Fields {
			add(f.NameSpan, f.Span, &decl{role: roleField, record: r, param: f})
		}
	}
}

// addIdentities adds an occurrence for every identity the lowered patterns
// write, each pattern once (a reference shares its definition's pattern).
// It reports false when stop (nil for never) reported true first.
func (ix *index) addIdentities(lowered []*parser.Pattern, stop func() bool) bool {
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
					o.role = ix.roleOf(pt.Def)
				}
			} else {
				o.def, o.isDef = pt.IdentSpan(), true
				o.role = ix.roleOf(pt)
				if ix.defs[pt.IdentSpan()] == nil {
					ix.defs[pt.IdentSpan()] = pt
				}
			}
			ix.occs = append(ix.occs, o)
		}
		for _, e := range pt.Elements {
			walk(e)
		}
	}
	for i, pt := range lowered {
		if i%stopEvery == 0 && stop != nil && stop() {
			return false
		}
		walk(pt)
	}
	return true
}

// addTypeRefs adds an occurrence for every record named as a type.
func (ix *index) addTypeRefs(p *schema.Program) {
	var typ func(t *schema.Type)
	typ = func(t *schema.Type) {
		if t == nil {
			return
		}
		if t.Kind == schema.RecordType && t.Record != nil && t.Record.NameSpan.Len() > 0 && t.Span.Len() > 0 {
			ix.occs = append(ix.occs, occurrence{span: t.Span, def: t.Record.NameSpan, name: t.Record.Name, role: roleRecord, typeRef: true})
		}
		typ(t.Items)
	}
	for _, t := range p.Tools {
		for _, prm := range t.Params {
			typ(prm.Type)
		}
		typ(t.Returns)
	}
	for _, r := range p.Records {
		for _, f := range r.Fields {
			typ(f.Type)
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

// roleOf returns the role of a defining pattern.
func (ix *index) roleOf(pt *parser.Pattern) role {
	if d := ix.byName[pt.IdentSpan()]; d != nil {
		return d.role
	}
	switch pt.Kind {
	case parser.NodeKind:
		return roleNode
	case parser.RelationshipKind:
		return roleRelationship
	}
	return roleOther
}

// at returns the occurrence under the cursor at off: the one containing off,
// or else one ending at off.
func (ix *index) at(off int) (*occurrence, bool) {
	i := sort.Search(len(ix.occs), func(i int) bool { return ix.occs[i].span.End >= off })
	var end *occurrence
	for ; i < len(ix.occs) && ix.occs[i].span.Start <= off; i++ {
		o := &ix.occs[i]
		if off < o.span.End {
			return o, true
		}
		if o.span.End == off && end == nil {
			end = o
		}
	}
	return end, end != nil
}

// occurrencesOf returns every occurrence of the identity defined at def, in
// source order.
func (ix *index) occurrencesOf(def diag.Span) []*occurrence {
	out := make([]*occurrence, 0, len(ix.refs[def]))
	for _, i := range ix.refs[def] {
		out = append(out, &ix.occs[i])
	}
	return out
}
