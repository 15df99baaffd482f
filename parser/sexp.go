// The reference grammar's S-expression form of the syntax tree.

package parser

import (
	"bytes"
	"io"
	"sort"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
)

// sx is a node of the printed tree.
type sx struct {
	kind, field string
	span        diag.Span
	kids        []*sx
	// notes are the comments placed in this node (see placeComment), in
	// source order; printing merges them with kids by position.
	notes []*sx
	// arena, when set, provides the node's children (see sxArena).
	arena *sxArena
}

func (n *sx) add(field, kind string, span diag.Span, kids ...*sx) *sx {
	var c *sx
	if n.arena != nil {
		c = n.arena.node()
		c.kind, c.field, c.span = kind, field, span
		c.kids = append(c.kids, kids...)
	} else {
		c = &sx{kind: kind, field: field, span: span, kids: kids}
	}
	n.kids = append(n.kids, c)
	return c
}

// sxArena hands out nodes for one top-level pattern's subtree at a time and
// takes them all back at once, keeping their slices' storage, so that
// printing a large document allocates little.
type sxArena struct {
	chunks [][]sx
	used   int
}

const arenaChunk = 1024

// node returns a cleared node of the arena.
func (a *sxArena) node() *sx {
	c, i := a.used/arenaChunk, a.used%arenaChunk
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]sx, arenaChunk))
	}
	a.used++
	n := &a.chunks[c][i]
	*n = sx{kids: n.kids[:0], notes: n.notes[:0], arena: a}
	return n
}

// reset takes back every node handed out.
func (a *sxArena) reset() { a.used = 0 }

// flushSize is how much printed output is gathered before it is written.
const flushSize = 64 << 10

// WriteSexp writes the syntax tree as the reference grammar (tree-sitter-gram)
// prints it: node kinds from its node-types table, with field names and comments.
// It streams: each top-level pattern's subtree is built, printed and dropped in
// turn, and the output is written in pieces of about 64 KB.
//
// Each node goes on a line of its own, indented by its depth, down to
// maxSexpIndent levels; deeper nodes go on their parent's line, as the
// reference parser prints every node, so that the output of a deeply nested
// tree (a walk of many hops nests a relationship in the next) grows with the
// tree, not with its size times its depth.
func (doc *Document) WriteSexp(w io.Writer) error {
	p := sxPrinter{w: w}
	p.b.WriteString("(gram_pattern")
	doc.eachSexp(true, func(n *sx) {
		p.print(n, 1)
	})
	p.b.WriteString(")\n")
	if p.err == nil {
		_, p.err = w.Write(p.b.Bytes())
	}
	return p.err
}

// maxSexpIndent is the deepest level of the S-expression that gets a line
// of its own.
const maxSexpIndent = 64

// sxPrinter prints S-expressions to w in pieces of about flushSize bytes.
type sxPrinter struct {
	w   io.Writer
	b   bytes.Buffer
	err error
}

// eachSexp calls yield with each child of the printed tree's root in order:
// the header record, the top-level patterns and the comments between them,
// each with the comments inside it placed. With reuse, a node is valid only
// until yield returns: the next one reuses its storage.
func (doc *Document) eachSexp(reuse bool, yield func(*sx)) {
	var tmp sx
	if reuse {
		tmp.arena = &sxArena{}
	}
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
			yield(&sx{kind: "comment", span: cs[ci].Span})
		}
	}
	item := func(n *sx) {
		before(off(n.span.Start))
		for end := off(n.span.End); ci < len(cs) && off(cs[ci].Span.End) <= end; ci++ {
			placeComment(n, cs[ci].Span)
		}
		yield(n)
		if reuse {
			tmp.arena.reset()
		}
		tmp.kids = tmp.kids[:0]
	}
	if doc.Header != nil {
		sxRecord(&tmp, "root", doc.Header)
		item(tmp.kids[0])
	}
	for _, p := range doc.Patterns() {
		sxTop(&tmp, p)
		item(tmp.kids[0])
	}
	before(doc.File.Len() + 1)
}

// placeComment adds a comment to the notes of the innermost node under n (n
// included) whose span holds it.
func placeComment(n *sx, sp diag.Span) {
	for {
		// Siblings are in source order and do not overlap: the only one that
		// can hold the comment is the last that starts at or before it.
		i := sort.Search(len(n.kids), func(i int) bool { return n.kids[i].span.Start > sp.Start }) - 1
		if i < 0 || n.kids[i].span.End < sp.End {
			break
		}
		n = n.kids[i]
	}
	c := &sx{kind: "comment", span: sp}
	if n.arena != nil {
		c = n.arena.node()
		c.kind, c.span = "comment", sp
	}
	n.notes = append(n.notes, c)
}

// print prints n at depth (0 for the root).
func (p *sxPrinter) print(n *sx, depth int) {
	b := &p.b
	switch {
	case depth > maxSexpIndent:
		b.WriteByte(' ')
	case depth > 0:
		b.WriteByte('\n')
		for i := 0; i < depth; i++ {
			b.WriteString("  ")
		}
	}
	if n.field != "" {
		b.WriteString(n.field)
		b.WriteString(": ")
	}
	b.WriteByte('(')
	b.WriteString(n.kind)
	// A comment comes after the children that start at or before it.
	k, c := 0, 0
	for k < len(n.kids) || c < len(n.notes) {
		if c == len(n.notes) || k < len(n.kids) && n.kids[k].span.Start <= n.notes[c].span.Start {
			p.print(n.kids[k], depth+1)
			k++
		} else {
			p.print(n.notes[c], depth+1)
			c++
		}
	}
	b.WriteByte(')')
	flush(p.w, b, &p.err)
}

func sxTop(root *sx, p *grammar.TopPattern) {
	parent := root
	field := ""
	if a := p.Annotations; a != nil {
		parent = root.add("", "annotated_pattern", p.Span())
		as := parent.add("annotations", "annotations", a.Span())
		if id := a.Identified; id != nil {
			ia := as.add("", "identified_annotation", id.Span())
			sxSubject(ia, id.Subject)
		}
		for _, pa := range a.Properties {
			n := as.add("", "property_annotation", pa.Span())
			n.add("key", "symbol", pa.Key.Span())
			sxValue(n, "value", pa.Value)
		}
		field = "elements"
	}
	if p.Subject != nil {
		sxSubjectPattern(parent, field, p.Subject)
	} else {
		sxPath(parent, field, p.Path)
	}
}

func sxSubjectPattern(parent *sx, field string, sp *grammar.SubjectPattern) {
	n := parent.add(field, "subject_pattern", sp.Span())
	sxSubject(n, sp.Subject)
	if len(sp.Elements) > 0 {
		first, last := sp.Elements[0], sp.Elements[len(sp.Elements)-1]
		es := n.add("elements", "subject_pattern_elements", diag.Span{Start: first.Span().Start, End: last.Span().End})
		for _, e := range sp.Elements {
			switch {
			case e.Subject != nil:
				sxSubjectPattern(es, "", e.Subject)
			case e.Path != nil:
				sxPath(es, "", e.Path)
			default:
				r := es.add("", "pattern_reference", e.Ref.Span())
				sxIdent(r, e.Ref.Tok)
			}
		}
	}
}

func sxPath(parent *sx, field string, p *grammar.Path) {
	if p.Arrow == nil {
		sxNode(parent, field, p.Left)
		return
	}
	n := parent.add(field, "relationship_pattern", p.Span())
	sxNode(n, "left", p.Left)
	a := n.add("kind", p.Arrow.Kind().String(), p.Arrow.Span())
	sxSubject(a, p.Arrow.Subject)
	sxPath(n, "right", p.Right)
}

func sxNode(parent *sx, field string, np *grammar.NodePattern) {
	n := parent.add(field, "node_pattern", np.Span())
	sxSubject(n, np.Subject)
}

func sxSubject(n *sx, s *grammar.Subject) {
	if s == nil {
		return
	}
	if s.Ident.Valid() {
		sxIdent(n, s.Ident)
	}
	if len(s.Labels) > 0 {
		ls := n.add("labels", "labels", s.LabelsSpan())
		for _, l := range s.Labels {
			sxName(ls, "", l.Name)
		}
	}
	if s.Record != nil {
		sxRecord(n, "record", s.Record)
	}
}

func sxIdent(n *sx, t grammar.Tok) {
	switch t.Type {
	case grammar.Integer:
		n.add("identifier", "integer", t.Span())
	default:
		sxName(n, "identifier", t)
	}
}

// sxName prints a symbol or a quoted name.
func sxName(n *sx, field string, t grammar.Tok) {
	switch t.Type {
	case grammar.Backtick:
		sxQuoted(n, field, "quoted_name", t)
	case grammar.String:
		sxQuoted(n, field, "double_quoted_name", t)
	default:
		n.add(field, "symbol", t.Span())
	}
}

// sxQuoted prints a one-line quoted string or name. Its content is always
// printed, empty or not, as the reference grammar does (only a fenced string's
// content is optional).
func sxQuoted(n *sx, field, kind string, t grammar.Tok) {
	q := n.add(field, kind, t.Span())
	q.add("content", "string_content", diag.Span{Start: t.Start() + 1, End: t.End() - 1})
}

func sxRecord(n *sx, field string, r *grammar.Record) {
	rec := n.add(field, "record", r.Span())
	sxEntries(rec, "record_property", r.Entries)
}

func sxEntries(n *sx, kind string, entries []grammar.Entry) {
	for i := range entries {
		e := &entries[i]
		p := n.add("", kind, e.Span())
		sxName(p, "key", e.Key)
		sxValue(p, "value", &e.Value)
	}
}

func sxValue(n *sx, field string, v *grammar.Value) {
	switch v.Kind() {
	case grammar.RangeValue:
		r := n.add(field, "range", v.Span())
		if v.Tok.Valid() {
			sxScalar(r, "lower", v.Tok)
		}
		if v.Upper().Valid() {
			sxScalar(r, "upper", v.Upper())
		}
	case grammar.ArrayValue:
		a := n.add(field, "array", v.Span())
		for i, items := 0, v.Items(); i < len(items); i++ {
			sxValue(a, "", &items[i])
		}
	case grammar.MapValue:
		m := n.add(field, "map", v.Span())
		sxEntries(m, "map_entry", v.Entries())
	default:
		sxScalar(n, field, v.Tok)
	}
}

func sxScalar(n *sx, field string, t grammar.Tok) {
	sp := t.Span()
	switch t.Type {
	case grammar.Integer:
		n.add(field, "integer", sp)
	case grammar.Decimal:
		n.add(field, "decimal", sp)
	case grammar.Hex:
		n.add(field, "hexadecimal", sp)
	case grammar.Octal:
		n.add(field, "octal", sp)
	case grammar.Measurement:
		n.add(field, "measurement", sp)
	case grammar.Bool:
		n.add(field, "boolean_literal", sp)
	case grammar.Symbol:
		n.add(field, "symbol", sp)
	case grammar.String, grammar.Backtick:
		sxQuoted(n, field, "string_literal", t)
	case grammar.Fenced:
		s := n.add(field, "string_literal", sp)
		if c := grammar.FencedContent(t.Value); c != "" {
			off := t.End() - 3 - len(c)
			s.add("content", "string_content", diag.Span{Start: off, End: off + len(c)})
		}
	case grammar.Tagged:
		s := n.add(field, "tagged_string", sp)
		tag := grammar.Tag(t)
		s.add("tag", "symbol", diag.Span{Start: t.Start(), End: t.Start() + len(tag)})
		s.add("content", "string_content", diag.Span{Start: t.Start() + grammar.ContentStart(t), End: t.End() - 1})
	case grammar.TaggedFenced:
		s := n.add(field, "tagged_string", sp)
		ts, te := grammar.TagSpan(t)
		s.add("tag", "symbol", diag.Span{Start: t.Start() + ts, End: t.Start() + te})
		if c := grammar.FencedContent(t.Value); c != "" {
			off := t.End() - 3 - len(c)
			s.add("content", "string_content", diag.Span{Start: off, End: off + len(c)})
		}
	}
}
