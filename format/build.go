// The builder: walks the syntax tree in source order and produces the layout
// operations of the printer (see print.go), placing every comment where it
// falls between tokens.
//
// Comments are emitted in source order at flush points: before each token, all
// comments that start before it are emitted. Separators (`,` and `|`) are the
// exception: comments written before a separator are emitted after it, so that
// `b // note` followed by `, c` becomes `b, // note` rather than a comma on a
// line of its own. Whether a comment is an end-of-line comment is decided by
// the source: it is one when code comes before it on its line.

package format

import (
	"strings"

	"github.com/gramlang/gram/grammar"
)

// item is a top-level item: the header record or a top-level pattern.
type item struct {
	start, end int
	header     *grammar.Record
	pattern    *grammar.TopPattern
}

type builder struct {
	src      string
	comments []grammar.Comment
	ci       int // the next comment to emit
	last     int // the source offset after the last token emitted
	ops      []op
	open     []int32 // indices of the open groups
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// skipTrivia returns the offset of the first byte at or after off that is not
// white space or part of a comment.
func (b *builder) skipTrivia(off int) int { return grammar.SkipTrivia(b.src, off) }

// newlinesBefore counts the line breaks in the white space that ends at off;
// start reports whether that white space reaches the start of the source.
func (b *builder) newlinesBefore(off int) (n int, start bool) {
	i := off - 1
	for i >= 0 && isSpace(b.src[i]) {
		if b.src[i] == '\n' {
			n++
		}
		i--
	}
	return n, i < 0
}

// blankBefore reports whether a blank line comes right before off.
func (b *builder) blankBefore(off int) bool {
	n, start := b.newlinesBefore(off)
	return n >= 2 && !start
}

func (b *builder) add(o op) { b.ops = append(b.ops, o) }

// markHard makes the innermost open group that is not a path break, and so
// every group around it (see end).
func (b *builder) markHard() {
	for i := len(b.open) - 1; i >= 0; i-- {
		if g := &b.ops[b.open[i]]; !g.path {
			g.hard = true
			return
		}
	}
}

func (b *builder) group() {
	b.open = append(b.open, int32(len(b.ops)))
	b.add(op{kind: opGroup})
}

func (b *builder) pathGroup() {
	b.open = append(b.open, int32(len(b.ops)))
	b.add(op{kind: opGroup, path: true})
}

func (b *builder) end() {
	n := len(b.open) - 1
	g := b.open[n]
	b.open = b.open[:n]
	b.ops[g].end = int32(len(b.ops))
	b.add(op{kind: opEnd})
	if b.ops[g].hard {
		b.markHard()
	}
}

func (b *builder) indent()          { b.add(op{kind: opIndent}) }
func (b *builder) dedent()          { b.add(op{kind: opDedent}) }
func (b *builder) space()           { b.add(op{kind: opSpace}) }
func (b *builder) line(blank bool)  { b.add(op{kind: opLine, blank: blank}) }
func (b *builder) soft()            { b.add(op{kind: opSoft}) }
func (b *builder) hardLine(bl bool) { b.add(op{kind: opHard, blank: bl}) }
func (b *builder) text(s string)    { b.add(op{kind: opText, s: s, w: int32(width(s))}) }

// flushGap emits the comments between the last token emitted and the next one.
func (b *builder) flushGap() { b.flush(b.skipTrivia(b.last), false) }

// at emits punctuation s that stands at offset off of the source.
func (b *builder) at(off int, s string) {
	b.flush(off, false)
	b.text(s)
	b.last = off + len(s)
}

// tok emits a token of the syntax tree, as written.
func (b *builder) tok(t grammar.Tok) {
	b.flush(t.Start(), false)
	s := t.Value
	b.last = t.End()
	// A comment inside the token (between a tag and its string, or on the
	// opening line of a fenced string) is part of its text.
	inside := false
	for b.ci < len(b.comments) && b.comments[b.ci].Span.Start < t.End() {
		b.ci++
		inside = true
	}
	if t.Type == grammar.Tagged && !inside {
		// White space between the tag and the string goes: md`text`.
		s = grammar.Tag(t) + s[grammar.ContentStart(t)-1:]
	}
	if t.Type == grammar.Fenced || t.Type == grammar.TaggedFenced || t.Type == grammar.Tagged {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			j := strings.LastIndexByte(s, '\n')
			b.add(op{kind: opText, s: s, multi: true, w: int32(width(s[:i])), last: int32(width(s[j+1:]))})
			b.markHard()
			return
		}
	}
	b.text(s)
}

// flush emits the comments that start before off. With first, the first of
// them gets no blank line before it (it opens a list).
func (b *builder) flush(off int, first bool) {
	for b.ci < len(b.comments) && b.comments[b.ci].Span.Start < off {
		c := b.comments[b.ci].Span
		b.ci++
		text := strings.TrimRight(b.src[c.Start:c.End], " \t\r\f\v")
		n, start := b.newlinesBefore(c.Start)
		kind := opOwn
		if n == 0 && !start {
			kind = opTrail
		}
		b.add(op{kind: kind, s: text, blank: n >= 2 && !start && !first})
		first = false
		b.markHard()
	}
}

// document emits the items and every comment of the source between from and
// to.
func (b *builder) document(items []item, to int, p *printer) {
	for _, it := range items {
		b.flush(it.start, false)
		b.hardLine(b.blankBefore(it.start))
		if it.header != nil {
			r := it.header
			b.record(int(r.Start), int(r.End), r.Entries)
		} else {
			b.topPattern(it.pattern)
		}
		p.print(b.ops)
		b.ops = b.ops[:0]
	}
	b.flush(to, false)
	p.print(b.ops)
	b.ops = b.ops[:0]
}

func (b *builder) topPattern(p *grammar.TopPattern) {
	if a := p.Annotations; a != nil {
		if id := a.Identified; id != nil {
			b.at(int(id.Start), "@@")
			b.subject(id.Subject)
			b.flushGap()
			if len(a.Properties) > 0 {
				b.hardLine(false)
			} else {
				b.space()
			}
		}
		for _, pa := range a.Properties {
			b.at(int(pa.Start), "@")
			b.tok(pa.Key.Tok)
			b.at(b.skipTrivia(pa.Key.End()), "(")
			b.value(pa.Value)
			b.at(int(pa.End)-1, ")")
			b.flushGap()
			b.hardLine(false)
		}
	}
	if p.Subject != nil {
		b.subjectPattern(p.Subject)
	} else {
		b.path(p.Path)
	}
}

// subjectPattern emits `[subject | element, ...]`; broken, each element is on
// its own line, indented, and the `]` on a line of its own.
func (b *builder) subjectPattern(sp *grammar.SubjectPattern) {
	closing := int(sp.End) - 1
	b.flush(int(sp.Start), false)
	b.group()
	b.at(int(sp.Start), "[")
	if sp.Subject != nil {
		b.subject(sp.Subject)
	}
	if sp.Bar {
		if sp.Subject != nil {
			b.space()
		}
		b.text("|")
		b.indent()
		for i, e := range sp.Elements {
			start := e.Span().Start
			if i > 0 {
				b.text(",")
			}
			b.flush(start, i == 0)
			b.line(i > 0 && b.blankBefore(start))
			b.element(e)
		}
		b.flush(closing, false)
		b.dedent()
		b.soft()
	}
	b.at(closing, "]")
	b.end()
}

func (b *builder) element(e *grammar.Element) {
	switch {
	case e.Subject != nil:
		b.subjectPattern(e.Subject)
	case e.Path != nil:
		b.path(e.Path)
	default:
		b.tok(e.Ref.Tok)
	}
}

// path emits a node and its arrows; broken, it breaks after every arrow and
// each node starts a line at the same indentation.
func (b *builder) path(p *grammar.Path) {
	if p.Arrow == nil {
		b.node(p.Left)
		return
	}
	b.flush(int(p.Start), false)
	b.pathGroup()
	for q := p; q != nil; q = q.Right {
		b.node(q.Left)
		if q.Arrow != nil {
			b.arrow(q.Arrow)
			b.flushGap()
			b.soft()
		}
	}
	b.end()
}

func (b *builder) node(n *grammar.NodePattern) {
	b.at(int(n.Start), "(")
	if n.Subject != nil {
		b.subject(n.Subject)
	}
	b.at(int(n.End)-1, ")")
}

func (b *builder) arrow(a *grammar.Arrow) {
	b.tok(a.Open)
	if a.Bracket {
		b.at(b.skipTrivia(a.Open.End()), "[")
		if a.Subject != nil {
			b.subject(a.Subject)
		}
		b.at(b.skipTrivia(b.last), "]")
	}
	b.tok(a.Close)
}

func (b *builder) subject(s *grammar.Subject) {
	if s.Ident.Valid() {
		b.tok(s.Ident)
	}
	for _, l := range s.Labels {
		b.tok(l.Sep())
		b.tok(l.Name)
	}
	if r := s.Record; r != nil {
		if s.Ident.Valid() || len(s.Labels) > 0 {
			b.flush(int(r.Start), false)
			b.space()
		}
		b.record(int(r.Start), int(r.End), r.Entries)
	}
}

// record emits a record or map `{key: value, ...}`; broken, one entry per line.
func (b *builder) record(start, end int, entries []grammar.Entry) {
	b.flush(start, false)
	b.group()
	b.at(start, "{")
	if len(entries) > 0 {
		b.indent()
		for i := range entries {
			e := &entries[i]
			k := e.Key.Start()
			if i > 0 {
				b.text(",")
			}
			b.flush(k, i == 0)
			if i == 0 {
				b.soft()
			} else {
				b.line(b.blankBefore(k))
			}
			b.tok(e.Key)
			sep := e.SepSpan()
			b.flush(sep.Start, false)
			if e.Declared() {
				b.space()
				b.text("::")
			} else {
				b.text(":")
			}
			b.last = sep.End
			b.flushGap()
			b.space()
			b.value(&e.Value)
		}
		b.flush(end-1, false)
		b.dedent()
		b.soft()
	} else {
		b.flush(end-1, true)
	}
	b.at(end-1, "}")
	b.end()
}

func (b *builder) value(v *grammar.Value) {
	switch v.Kind() {
	case grammar.ScalarValue:
		b.tok(v.Tok)
	case grammar.RangeValue:
		lower, upper := v.Tok, v.Upper()
		dots := "..."
		at := v.Span().Start
		if lower.Valid() {
			b.tok(lower)
			at = b.skipTrivia(lower.End())
			if upper.Valid() {
				dots = ".."
			}
		}
		b.at(at, dots)
		if upper.Valid() {
			b.tok(upper)
		}
	case grammar.ArrayValue:
		span := v.Span()
		b.flush(span.Start, false)
		b.group()
		b.at(span.Start, "[")
		b.indent()
		for i, item := range v.Items() {
			start := item.Span().Start
			if i > 0 {
				b.text(",")
			}
			b.flush(start, i == 0)
			if i == 0 {
				b.soft()
			} else {
				b.line(b.blankBefore(start))
			}
			b.value(&item)
		}
		b.flush(span.End-1, false)
		b.dedent()
		b.soft()
		b.at(span.End-1, "]")
		b.end()
	case grammar.MapValue:
		span := v.Span()
		b.record(span.Start, span.End, v.Entries())
	}
}
