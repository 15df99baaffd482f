// The reference grammar's S-expression form of the syntax tree.

package parser

import (
	"io"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// WriteSexp writes the syntax tree as the reference grammar (tree-sitter-gram)
// prints it: node kinds from its node-types table, with field names and comments.
// It streams: each node is printed as the tree is walked, and the output is
// written in pieces of about 64 KB.
//
// Each node goes on a line of its own, indented by its depth, down to
// maxSexpIndent levels; deeper nodes go on their parent's line, as the
// reference parser prints every node, so that the output of a deeply nested
// tree (a walk of many hops nests a relationship in the next) grows with the
// tree, not with its size times its depth.
func (doc *Document) WriteSexp(w io.Writer) error {
	p := sxPrinter{stream: stream{w: w}}
	p.b.WriteString("(gram_pattern")
	doc.walkSexp(&p)
	p.b.WriteString(")\n")
	return p.end()
}

// maxSexpIndent is the deepest level of the S-expression that gets a line
// of its own.
const maxSexpIndent = 64

// sxPrinter prints the S-expression of a syntax tree as it is walked, to
// its stream. A comment is printed in the
// innermost node whose span holds it, after the children that start at or
// before it.
type sxPrinter struct {
	stream
	// ends are the ends of the spans of the nodes open, innermost last.
	ends []int
	// comments are those of the top-level item being printed not printed
	// yet, in source order.
	comments []grammar.Comment
	// opened, when set, is called with each node as it is opened (tests
	// see the tree through it).
	opened func(depth int, kind string, span diag.Span)
}

// walkSexp prints the children of the printed tree's root in order: the
// header record, the top-level patterns and the comments between them.
func (doc *Document) walkSexp(p *sxPrinter) {
	cs := doc.Comments
	ci := 0
	// Positions are compared as offsets between top-level items, which a
	// re-parsed document's positions may not be in order of (see
	// diag.Positions); inside one, they are.
	off := doc.File.Offset
	// Comments that start before the offset at and lie in no pattern are the
	// root's.
	before := func(at int) {
		for ; ci < len(cs) && off(cs[ci].Span.Start) < at; ci++ {
			p.leaf("", "comment", cs[ci].Span)
		}
	}
	item := func(sp diag.Span) {
		before(off(sp.Start))
		end, cj := off(sp.End), ci
		for cj < len(cs) && off(cs[cj].Span.End) <= end {
			cj++
		}
		p.comments, ci = cs[ci:cj], cj
	}
	if doc.Header != nil {
		item(doc.Header.Span())
		sxRecord(p, "root", doc.Header)
	}
	for _, tp := range doc.Patterns() {
		item(tp.Span())
		sxTop(p, tp)
	}
	before(doc.File.Len() + 1)
}

// open prints the start of a node and makes it the current one, after the
// comments of the current one that start before it.
func (p *sxPrinter) open(field, kind string, span diag.Span) {
	for len(p.comments) > 0 && p.comments[0].Span.Start < span.Start {
		p.comment()
	}
	depth := len(p.ends) + 1
	if p.opened != nil {
		p.opened(depth, kind, span)
	}
	b := &p.b
	if depth > maxSexpIndent {
		b.WriteByte(' ')
	} else {
		indent(b, depth)
	}
	if field != "" {
		b.WriteString(field)
		b.WriteString(": ")
	}
	b.WriteByte('(')
	b.WriteString(kind)
	p.ends = append(p.ends, span.End)
}

// close prints the end of the current node, after the comments it holds
// that are left (a top-level item's node holds all of its own).
func (p *sxPrinter) close() {
	n := len(p.ends) - 1
	for len(p.comments) > 0 && (n == 0 || p.comments[0].Span.End <= p.ends[n]) {
		p.comment()
	}
	p.ends = p.ends[:n]
	p.b.WriteByte(')')
	p.flush()
}

// leaf prints a node without children.
func (p *sxPrinter) leaf(field, kind string, span diag.Span) {
	p.open(field, kind, span)
	p.close()
}

// comment prints the next comment of the item.
func (p *sxPrinter) comment() {
	sp := p.comments[0].Span
	p.comments = p.comments[1:]
	p.leaf("", "comment", sp)
}

func sxTop(p *sxPrinter, tp *grammar.TopPattern) {
	field := ""
	if a := tp.Annotations; a != nil {
		p.open("", "annotated_pattern", tp.Span())
		p.open("annotations", "annotations", a.Span())
		if id := a.Identified; id != nil {
			p.open("", "identified_annotation", id.Span())
			sxSubject(p, id.Subject)
			p.close()
		}
		for _, pa := range a.Properties {
			p.open("", "property_annotation", pa.Span())
			p.leaf("key", "symbol", pa.Key.Span())
			sxValue(p, "value", pa.Value)
			p.close()
		}
		p.close()
		field = "elements"
	}
	if tp.Subject != nil {
		sxSubjectPattern(p, field, tp.Subject)
	} else {
		sxPath(p, field, tp.Path)
	}
	if tp.Annotations != nil {
		p.close()
	}
}

func sxSubjectPattern(p *sxPrinter, field string, sp *grammar.SubjectPattern) {
	p.open(field, "subject_pattern", sp.Span())
	sxSubject(p, sp.Subject)
	if len(sp.Elements) > 0 {
		first, last := sp.Elements[0], sp.Elements[len(sp.Elements)-1]
		p.open("elements", "subject_pattern_elements", diag.Span{Start: first.Span().Start, End: last.Span().End})
		for _, e := range sp.Elements {
			switch {
			case e.Subject != nil:
				sxSubjectPattern(p, "", e.Subject)
			case e.Path != nil:
				sxPath(p, "", e.Path)
			default:
				p.open("", "pattern_reference", e.Ref.Span())
				sxIdent(p, e.Ref.Tok)
				p.close()
			}
		}
		p.close()
	}
	p.close()
}

func sxPath(p *sxPrinter, field string, path *grammar.Path) {
	if path.Arrow == nil {
		sxNode(p, field, path.Left)
		return
	}
	p.open(field, "relationship_pattern", path.Span())
	sxNode(p, "left", path.Left)
	p.open("kind", path.Arrow.Kind().String(), path.Arrow.Span())
	sxSubject(p, path.Arrow.Subject)
	p.close()
	sxPath(p, "right", path.Right)
	p.close()
}

func sxNode(p *sxPrinter, field string, np *grammar.NodePattern) {
	p.open(field, "node_pattern", np.Span())
	sxSubject(p, np.Subject)
	p.close()
}

func sxSubject(p *sxPrinter, s *grammar.Subject) {
	if s == nil {
		return
	}
	if s.Ident.Valid() {
		sxIdent(p, s.Ident)
	}
	if len(s.Labels) > 0 {
		p.open("labels", "labels", s.LabelsSpan())
		for _, l := range s.Labels {
			sxName(p, "", l.Name)
		}
		p.close()
	}
	if s.Record != nil {
		sxRecord(p, "record", s.Record)
	}
}

func sxIdent(p *sxPrinter, t grammar.Tok) {
	if t.Type == grammar.Integer {
		p.leaf("identifier", "integer", t.Span())
	} else {
		sxName(p, "identifier", t)
	}
}

// sxName prints a symbol or a quoted name.
func sxName(p *sxPrinter, field string, t grammar.Tok) {
	switch t.Type {
	case grammar.Backtick:
		sxQuoted(p, field, "quoted_name", t)
	case grammar.String:
		sxQuoted(p, field, "double_quoted_name", t)
	default:
		p.leaf(field, "symbol", t.Span())
	}
}

// sxQuoted prints a one-line quoted string or name. Its content is always
// printed, empty or not, as the reference grammar does (only a fenced string's
// content is optional).
func sxQuoted(p *sxPrinter, field, kind string, t grammar.Tok) {
	p.open(field, kind, t.Span())
	p.leaf("content", "string_content", diag.Span{Start: t.Start() + 1, End: t.End() - 1})
	p.close()
}

func sxRecord(p *sxPrinter, field string, r *grammar.Record) {
	p.open(field, "record", r.Span())
	sxEntries(p, "record_property", r.Entries)
	p.close()
}

func sxEntries(p *sxPrinter, kind string, entries []grammar.Entry) {
	for i := range entries {
		e := &entries[i]
		p.open("", kind, e.Span())
		sxName(p, "key", e.Key)
		sxValue(p, "value", &e.Value)
		p.close()
	}
}

func sxValue(p *sxPrinter, field string, v *grammar.Value) {
	switch v.Kind() {
	case grammar.RangeValue:
		p.open(field, "range", v.Span())
		if v.Tok.Valid() {
			sxScalar(p, "lower", v.Tok)
		}
		if v.Upper().Valid() {
			sxScalar(p, "upper", v.Upper())
		}
		p.close()
	case grammar.ArrayValue:
		p.open(field, "array", v.Span())
		for i, items := 0, v.Items(); i < len(items); i++ {
			sxValue(p, "", &items[i])
		}
		p.close()
	case grammar.MapValue:
		p.open(field, "map", v.Span())
		sxEntries(p, "map_entry", v.Entries())
		p.close()
	default:
		sxScalar(p, field, v.Tok)
	}
}

// scalarKinds are the node kinds of the scalars printed without children.
var scalarKinds = map[grammar.TokType]string{
	grammar.Integer: "integer", grammar.Decimal: "decimal", grammar.Hex: "hexadecimal", grammar.Octal: "octal",
	grammar.Measurement: "measurement", grammar.Bool: "boolean_literal", grammar.Symbol: "symbol",
}

func sxScalar(p *sxPrinter, field string, t grammar.Tok) {
	sp := t.Span()
	if kind, ok := scalarKinds[t.Type]; ok {
		p.leaf(field, kind, sp)
		return
	}
	switch t.Type {
	case grammar.String, grammar.Backtick:
		sxQuoted(p, field, "string_literal", t)
	case grammar.Fenced:
		p.open(field, "string_literal", sp)
		sxFencedContent(p, t)
		p.close()
	case grammar.Tagged, grammar.TaggedFenced:
		p.open(field, "tagged_string", sp)
		ts, te := grammar.TagSpan(t)
		p.leaf("tag", "symbol", diag.Span{Start: t.Start() + ts, End: t.Start() + te})
		if t.Type == grammar.Tagged {
			p.leaf("content", "string_content", diag.Span{Start: t.Start() + grammar.ContentStart(t), End: t.End() - 1})
		} else {
			sxFencedContent(p, t)
		}
		p.close()
	}
}

// sxFencedContent prints the content of a fenced string, when it has any.
func sxFencedContent(p *sxPrinter, t grammar.Tok) {
	if c := grammar.FencedContent(t.Value); c != "" {
		off := t.End() - 3 - len(c)
		p.leaf("content", "string_content", diag.Span{Start: off, End: off + len(c)})
	}
}
