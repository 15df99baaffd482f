// Units that own their text: [Unit.Rebased] copies a unit with its token
// texts cut from a text of its own and its offsets moved to the positions
// the unit has in a version of a document (see diag.Positions). A unit made
// so shares nothing with the text it was parsed from, so later versions of
// the document keep it, as it is, without keeping that text.

package grammar

// shifter moves offsets by d and cuts token texts from own, which starts at
// offset at.
type shifter struct {
	own string
	at  int
	d   int
}

func (s shifter) tok(t Tok) Tok {
	if !t.Valid() {
		return t
	}
	off := int(t.Off) - s.at
	return Tok{Value: s.own[off : off+len(t.Value)], Off: t.Off + int32(s.d), Type: t.Type}
}

func (s shifter) i32(v int32) int32 { return v + int32(s.d) }

// Rebased returns a copy of u whose token texts are cut from own, u's text
// (own[0] is at offset at), and whose offsets are moved by delta.
//
// The copy is made by a walk over the tree, typed node by node (it does
// without Inspect's dynamic dispatch); the slices of a node's children are
// copied whole.
func (u *Unit) Rebased(own string, at, delta int) *Unit {
	s := shifter{own: own, at: at, d: delta}
	c := *u
	c.Start, c.End = s.i32(u.Start), s.i32(u.End)
	c.Header = s.record(u.Header)
	c.Pattern = s.top(u.Pattern)
	return &c
}

func (s shifter) top(p *TopPattern) *TopPattern {
	if p == nil {
		return nil
	}
	c := *p
	c.Start, c.End = s.i32(p.Start), s.i32(p.End)
	c.Annotations = s.annotations(p.Annotations)
	c.Subject = s.subjectPattern(p.Subject)
	c.Path = s.path(p.Path)
	return &c
}

func (s shifter) annotations(a *Annotations) *Annotations {
	if a == nil {
		return nil
	}
	c := *a
	c.Start, c.End = s.i32(a.Start), s.i32(a.End)
	if id := a.Identified; id != nil {
		ci := *id
		ci.Start, ci.End = s.i32(id.Start), s.i32(id.End)
		ci.Subject = s.subject(id.Subject)
		c.Identified = &ci
	}
	if a.Properties != nil {
		c.Properties = make([]*PropertyAnnotation, len(a.Properties))
		for i, pa := range a.Properties {
			if pa == nil {
				continue
			}
			cp := *pa
			cp.Start, cp.End = s.i32(pa.Start), s.i32(pa.End)
			if pa.Key != nil {
				cp.Key = &Name{s.tok(pa.Key.Tok)}
			}
			if pa.Value != nil {
				v := s.value(*pa.Value)
				cp.Value = &v
			}
			c.Properties[i] = &cp
		}
	}
	return &c
}

func (s shifter) subjectPattern(p *SubjectPattern) *SubjectPattern {
	if p == nil {
		return nil
	}
	c := *p
	c.Start, c.End = s.i32(p.Start), s.i32(p.End)
	c.Subject = s.subject(p.Subject)
	if p.Elements != nil {
		elems := make([]Element, len(p.Elements))
		c.Elements = make([]*Element, len(p.Elements))
		for i, e := range p.Elements {
			if e == nil {
				continue
			}
			ce := &elems[i]
			*ce = *e
			ce.Start, ce.End = s.i32(e.Start), s.i32(e.End)
			ce.Subject = s.subjectPattern(e.Subject)
			ce.Path = s.path(e.Path)
			if e.Ref != nil {
				ce.Ref = &Ref{s.tok(e.Ref.Tok)}
			}
			c.Elements[i] = ce
		}
	}
	return &c
}

// path copies a path, hop by hop.
func (s shifter) path(p *Path) *Path {
	var first *Path
	for link := &first; p != nil; p = p.Right {
		c := *p
		c.Start, c.End = s.i32(p.Start), s.i32(p.End)
		if p.Left != nil {
			n := *p.Left
			n.Start, n.End = s.i32(n.Start), s.i32(n.End)
			n.Subject = s.subject(n.Subject)
			c.Left = &n
		}
		if p.Arrow != nil {
			a := *p.Arrow
			a.Open, a.Close = s.tok(a.Open), s.tok(a.Close)
			a.Subject = s.subject(a.Subject)
			c.Arrow = &a
		}
		*link = &c
		link = &c.Right
	}
	return first
}

func (s shifter) subject(sb *Subject) *Subject {
	if sb == nil {
		return nil
	}
	c := *sb
	c.Start, c.End = s.i32(sb.Start), s.i32(sb.End)
	c.Ident = s.tok(sb.Ident)
	if sb.Labels != nil {
		c.Labels = make([]Label, len(sb.Labels))
		for i, l := range sb.Labels {
			c.Labels[i] = Label{Name: s.tok(l.Name), sepOff: s.i32(l.sepOff), double: l.double}
		}
	}
	c.Record = s.record(sb.Record)
	return &c
}

func (s shifter) record(r *Record) *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.Start, c.End = s.i32(r.Start), s.i32(r.End)
	c.Entries = s.entries(r.Entries)
	return &c
}

func (s shifter) entries(es []Entry) []Entry {
	if es == nil {
		return nil
	}
	out := make([]Entry, len(es))
	for i := range es {
		e := &out[i]
		*e = es[i]
		e.Key, e.sepOff = s.tok(e.Key), s.i32(e.sepOff)
		e.Value = s.value(e.Value)
	}
	return out
}

func (s shifter) value(v Value) Value {
	v.Tok = s.tok(v.Tok)
	if m := v.more; m != nil {
		c := *m
		c.start, c.end = s.i32(m.start), s.i32(m.end)
		c.upper = s.tok(m.upper)
		if m.items != nil {
			c.items = make([]Value, len(m.items))
			for i, it := range m.items {
				c.items[i] = s.value(it)
			}
		}
		c.entries = s.entries(m.entries)
		v.more = &c
	}
	return v
}
