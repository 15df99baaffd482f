// Moving syntax trees: when an edit changes a file, the top-level units after it
// keep their syntax and only move by the edit's change in length. [Unit.Shifted]
// copies a unit with every offset moved and every token's text taken from the
// new source, so the copy shares nothing with the old text.

package grammar

import (
	"slices"

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
//
// The copy is made by one [Inspect] walk over it: each node, already a copy
// of the old one, replaces its children by copies before Inspect visits
// them, and moves its own offsets.
func (u *Unit) Shifted(src string, delta int) *Unit {
	s := shifter{src: src, d: delta}
	c := *u
	Inspect(&c, func(n Node) bool {
		if n == nil {
			return false
		}
		s.node(n)
		return true
	})
	return &c
}

// ShiftSpan moves a span by delta.
func ShiftSpan(sp diag.Span, delta int) diag.Span { return shifter{d: delta}.span(sp) }

// clone returns a copy of *p, or nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// node moves the offsets n holds itself and replaces its children by
// copies; the tokens among them are moved when they are visited.
func (s shifter) node(n Node) {
	switch n := n.(type) {
	case *Unit:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Header, n.Pattern = clone(n.Header), clone(n.Pattern)
	case *TopPattern:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Annotations, n.Subject, n.Path = clone(n.Annotations), clone(n.Subject), clone(n.Path)
	case *Annotations:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Identified = clone(n.Identified)
		var props []*PropertyAnnotation
		for _, pa := range n.Properties {
			props = append(props, clone(pa))
		}
		n.Properties = props
	case *IdentifiedAnnotation:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Subject = clone(n.Subject)
	case *PropertyAnnotation:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Key, n.Value = clone(n.Key), clone(n.Value)
	case *SubjectPattern:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Subject = clone(n.Subject)
		if n.Elements != nil {
			elems := make([]*Element, len(n.Elements))
			for i, e := range n.Elements {
				elems[i] = clone(e)
			}
			n.Elements = elems
		}
	case *Element:
		n.Pos, n.EndPos = s.pos(n.Pos), s.pos(n.EndPos)
		n.Subject, n.Path, n.Ref = clone(n.Subject), clone(n.Path), clone(n.Ref)
	case *Path:
		n.Start, n.End = s.i32(n.Start), s.i32(n.End)
		n.Left, n.Arrow, n.Right = clone(n.Left), clone(n.Arrow), clone(n.Right)
	case *NodePattern:
		n.Start, n.End = s.i32(n.Start), s.i32(n.End)
		n.Subject = clone(n.Subject)
	case *Arrow:
		n.Start, n.End = s.i32(n.Start), s.i32(n.End)
		n.Subject = clone(n.Subject)
	case *Subject:
		n.Start, n.End = s.i32(n.Start), s.i32(n.End)
		n.Labels = slices.Clone(n.Labels)
		n.Record = clone(n.Record)
	case *Record:
		n.Start, n.End = s.i32(n.Start), s.i32(n.End)
		n.Entries = slices.Clone(n.Entries)
	case *Entry:
		n.sepOff = s.i32(n.sepOff)
	case *Value:
		if m := clone(n.more); m != nil {
			m.start, m.end = s.i32(m.start), s.i32(m.end)
			m.items, m.entries = slices.Clone(m.items), slices.Clone(m.entries)
			n.more = m
		}
	case *Ref:
		n.Tok = s.tok(n.Tok)
	case *Name:
		n.Tok = s.tok(n.Tok)
	case *Tok:
		*n = s.tok(*n)
	}
}
