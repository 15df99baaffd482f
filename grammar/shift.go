// Moving syntax trees: when an edit changes a file, the top-level units after it
// keep their syntax and only move by the edit's change in length. [Unit.Shifted]
// copies a unit with every offset moved and every token's text taken from the
// new source, so the copy shares nothing with the old text.

package grammar

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gramlang/gram/diag"
)

// shifter moves offsets by d and re-slices token texts from src.
type shifter struct {
	src string
	d   int
}

func (s shifter) tok(t Tok) Tok {
	if !t.Valid() {
		return t
	}
	off := int(t.Off) + s.d
	return Tok{Value: s.src[off : off+len(t.Value)], Off: int32(off), Type: t.Type}
}

func (s shifter) i32(v int32) int32 { return v + int32(s.d) }

func (s shifter) pos(p lexer.Position) lexer.Position {
	p.Offset += s.d
	return p
}

// Span moves a span by d.
func (s shifter) span(sp diag.Span) diag.Span {
	return diag.Span{Start: sp.Start + s.d, End: sp.End + s.d}
}

// Shifted returns a copy of u whose offsets are moved by delta, its token texts
// taken from src (the text in which u now starts at u.Pos.Offset+delta).
func (u *Unit) Shifted(src string, delta int) *Unit {
	s := shifter{src: src, d: delta}
	return &Unit{
		Pos:     s.pos(u.Pos),
		EndPos:  s.pos(u.EndPos),
		Header:  s.record(u.Header),
		Pattern: s.top(u.Pattern),
	}
}

// ShiftSpan moves a span by delta.
func ShiftSpan(sp diag.Span, delta int) diag.Span { return shifter{d: delta}.span(sp) }

func (s shifter) top(p *TopPattern) *TopPattern {
	if p == nil {
		return nil
	}
	return &TopPattern{
		Pos:         s.pos(p.Pos),
		EndPos:      s.pos(p.EndPos),
		Annotations: s.annotations(p.Annotations),
		Subject:     s.subjectPattern(p.Subject),
		Path:        s.path(p.Path),
	}
}

func (s shifter) annotations(a *Annotations) *Annotations {
	if a == nil {
		return nil
	}
	out := &Annotations{Pos: s.pos(a.Pos), EndPos: s.pos(a.EndPos)}
	if id := a.Identified; id != nil {
		out.Identified = &IdentifiedAnnotation{Pos: s.pos(id.Pos), EndPos: s.pos(id.EndPos), Subject: s.subject(id.Subject)}
	}
	for _, pa := range a.Properties {
		v := s.value(*pa.Value)
		out.Properties = append(out.Properties, &PropertyAnnotation{
			Pos:    s.pos(pa.Pos),
			EndPos: s.pos(pa.EndPos),
			Key:    &Name{s.tok(pa.Key.Tok)},
			Value:  &v,
		})
	}
	return out
}

func (s shifter) subjectPattern(sp *SubjectPattern) *SubjectPattern {
	if sp == nil {
		return nil
	}
	out := &SubjectPattern{Pos: s.pos(sp.Pos), EndPos: s.pos(sp.EndPos), Subject: s.subject(sp.Subject), Bar: sp.Bar}
	if sp.Elements != nil {
		out.Elements = make([]*Element, len(sp.Elements))
		for i, e := range sp.Elements {
			ne := &Element{Pos: s.pos(e.Pos), EndPos: s.pos(e.EndPos), Subject: s.subjectPattern(e.Subject), Path: s.path(e.Path)}
			if e.Ref != nil {
				ne.Ref = &Ref{s.tok(e.Ref.Tok)}
			}
			out.Elements[i] = ne
		}
	}
	return out
}

func (s shifter) path(p *Path) *Path {
	if p == nil {
		return nil
	}
	out := &Path{}
	for cur := out; ; {
		cur.Start, cur.End = s.i32(p.Start), s.i32(p.End)
		cur.Left = &NodePattern{Subject: s.subject(p.Left.Subject), Start: s.i32(p.Left.Start), End: s.i32(p.Left.End)}
		if p.Arrow == nil {
			return out
		}
		a := p.Arrow
		cur.Arrow = &Arrow{Open: s.tok(a.Open), Close: s.tok(a.Close), Bracket: a.Bracket, Subject: s.subject(a.Subject), Start: s.i32(a.Start), End: s.i32(a.End)}
		cur.Right = &Path{}
		cur, p = cur.Right, p.Right
	}
}

func (s shifter) subject(sb *Subject) *Subject {
	if sb == nil {
		return nil
	}
	out := &Subject{Ident: s.tok(sb.Ident), Record: s.record(sb.Record), Start: s.i32(sb.Start), End: s.i32(sb.End)}
	if sb.Labels != nil {
		out.Labels = make([]Label, len(sb.Labels))
		for i, l := range sb.Labels {
			out.Labels[i] = Label{Sep: s.tok(l.Sep), Name: s.tok(l.Name)}
		}
	}
	return out
}

func (s shifter) record(r *Record) *Record {
	if r == nil {
		return nil
	}
	return &Record{Entries: s.entries(r.Entries), Start: s.i32(r.Start), End: s.i32(r.End)}
}

func (s shifter) entries(es []Entry) []Entry {
	if es == nil {
		return nil
	}
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = Entry{Key: s.tok(e.Key), sepOff: s.i32(e.sepOff), decl: e.decl, Value: s.value(e.Value)}
	}
	return out
}

func (s shifter) value(v Value) Value {
	out := Value{Tok: s.tok(v.Tok), Kind: v.Kind}
	if m := v.more; m != nil {
		p := &valueParts{upper: s.tok(m.upper), entries: s.entries(m.entries), start: s.i32(m.start), end: s.i32(m.end)}
		if m.items != nil {
			p.items = make([]Value, len(m.items))
			for i, it := range m.items {
				p.items[i] = s.value(it)
			}
		}
		out.more = p
	}
	return out
}
