// The previous program's elements and diagnostics in the new one: taken as
// they are before the edit when what they refer to is too, else copied and
// moved to the new text (see reuse.go).

package schema

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// span returns s moved to the new text: as it is before the edit, moved by
// the change in length after it. A span across the edit, or an empty one
// where text was inserted (before or after it?), fails the reuse. The zero
// span stands for none and stays.
func (r *reuse) span(s diag.Span) diag.Span {
	switch r.side(s) {
	case 0:
		return s
	case 1:
		return diag.Span{Start: s.Start + r.delta, End: s.End + r.delta}
	}
	r.failed = true
	return s
}

// side tells where s is: 0 before the edit (or none), 1 after it, -1 across
// it.
func (r *reuse) side(s diag.Span) int {
	e := r.edit
	before, after := s.End <= e.Start, s.Start >= e.End
	if s.Start == s.End && e.Start < e.End {
		// A place: the edit's start stays, its end moves.
		before, after = s.Start <= e.Start, s.Start >= e.End
	} else if s.Start == s.End {
		before, after = s.Start < e.Start, s.Start > e.End
	}
	switch {
	case before || s == (diag.Span{}):
		return 0
	case after:
		return 1
	}
	return -1
}

// stays reports whether every span of d is before the edit.
func (r *reuse) stays(d *diag.Diagnostic) bool {
	if r.side(d.Span) != 0 {
		return false
	}
	for _, x := range d.Related {
		if r.side(x.Span) != 0 {
			return false
		}
	}
	for _, f := range d.Fixes {
		for _, e := range f.Edits {
			if r.side(e.Span) != 0 {
				return false
			}
		}
	}
	return true
}

// moveDiags appends the diagnostics ds, moved, to out.
func (r *reuse) moveDiags(out, ds diag.List) diag.List {
	for _, d := range ds {
		if r.stays(&d) {
			out = append(out, d)
			continue
		}
		d.Span = r.span(d.Span)
		if len(d.Related) > 0 {
			rel := make([]diag.Related, len(d.Related))
			for i, x := range d.Related {
				rel[i] = diag.Related{Span: r.span(x.Span), Message: x.Message}
			}
			d.Related = rel
		}
		if len(d.Fixes) > 0 {
			fixes := make([]diag.Fix, len(d.Fixes))
			for i, f := range d.Fixes {
				edits := make([]diag.Edit, len(f.Edits))
				for j, e := range f.Edits {
					edits[j] = diag.Edit{Span: r.span(e.Span), NewText: e.NewText}
				}
				fixes[i] = diag.Fix{Title: f.Title, Edits: edits}
			}
			d.Fixes = fixes
		}
		out = append(out, d)
	}
	return out
}

// copyRecords makes the records of the new program, and its table of
// records by name as declareRecord makes it: a record before the edit
// whose fields refer to no record that is copied is taken as it is; the
// others are copied, moved.
func (r *reuse) copyRecords(c *compiler) {
	r.records = make(map[*Record]*Record, len(r.prev.Records))
	for _, o := range r.prev.Records {
		if r.side(o.Span) == 0 {
			r.records[o] = o
		}
	}
	// A record referring to a copied one is copied too, until none is.
	for changed := true; changed; {
		changed = false
		for _, o := range r.prev.Records {
			if r.records[o] == o && !r.typesStay(o.Fields) {
				delete(r.records, o)
				changed = true
			}
		}
	}
	for _, o := range r.prev.Records {
		n := r.records[o]
		if n == nil {
			n = c.slabs.records.new()
			r.records[o] = n
		}
		c.prog.Records = append(c.prog.Records, n)
		if o.Name != "" && !IsBuiltinType(o.Name) && c.records[o.Name] == nil {
			c.records[o.Name] = n
		}
	}
	for i, o := range r.prev.Records {
		if n := c.prog.Records[i]; n != o {
			n.Name, n.Description, n.Span, n.NameSpan, n.Props = o.Name, o.Description, r.span(o.Span), r.span(o.NameSpan), r.props(c, o.Props)
			if o.Fields != nil {
				n.Fields = r.params(c, o.Fields)
			}
		}
	}
}

// typesStay reports whether the types of ps refer only to records taken as
// they are.
func (r *reuse) typesStay(ps []*Param) bool {
	for _, p := range ps {
		if !r.typeStays(p.Type) {
			return false
		}
	}
	return true
}

// typeStays reports whether t refers only to records taken as they are.
func (r *reuse) typeStays(t *Type) bool {
	for ; t != nil; t = t.Items {
		if t.Record != nil && r.records[t.Record] != t.Record {
			return false
		}
	}
	return true
}

// props returns copies of props, moved.
func (r *reuse) props(c *compiler, props []Prop) []Prop {
	if props == nil {
		return nil
	}
	out := c.slabs.props.make(len(props))
	for i, p := range props {
		out[i] = Prop{Key: p.Key, KeySpan: r.span(p.KeySpan), ValueSpan: r.span(p.ValueSpan)}
	}
	return out
}

// params returns copies of ps, moved, their types referring to the new
// records.
func (r *reuse) params(c *compiler, ps []*Param) []*Param {
	out := c.slabs.paramPtr.make(len(ps))
	for i, o := range ps {
		n := c.slabs.params.new()
		*n = *o
		n.Type, n.Span, n.NameSpan, n.Props = r.typ(c, o.Type), r.span(o.Span), r.span(o.NameSpan), r.props(c, o.Props)
		out[i] = n
	}
	return out
}

// typ returns a copy of t, moved, referring to the new records.
func (r *reuse) typ(c *compiler, t *Type) *Type {
	if t == nil {
		return nil
	}
	n := c.slabs.types.new()
	*n = *t
	n.Span, n.Items = r.span(t.Span), r.typ(c, t.Items)
	if t.Record != nil {
		if n.Record = r.records[t.Record]; n.Record == nil {
			r.failed = true // a record not of the file
		}
	}
	return n
}

// tool adds the previous program's tool i to the new program as the tool
// of pattern p: taken as it is before the edit when its types refer to
// records taken as they are, else copied, moved.
func (r *reuse) tool(c *compiler, i int, p *parser.Pattern) {
	t := r.prev.Tools[i]
	n := t
	if r.side(t.Span) != 0 || !r.typesStay(t.Params) || !r.typeStays(t.Returns) {
		n = c.slabs.tools.new()
		n.Name, n.Description, n.ReturnDescription, n.TopLevel = t.Name, t.Description, t.ReturnDescription, t.TopLevel
		if t.Params != nil {
			n.Params = r.params(c, t.Params)
		}
		n.Returns = r.typ(c, t.Returns)
		n.Span, n.NameSpan, n.SignatureSpan, n.ReturnSpan = r.span(t.Span), r.span(t.NameSpan), r.span(t.SignatureSpan), r.span(t.ReturnSpan)
		n.Props = r.props(c, t.Props)
	}
	r.newIdx[i] = len(c.prog.Tools)
	if r.wantPairs {
		r.pairs = append(r.pairs, toolPair{p, len(c.prog.Tools)})
	}
	c.prog.Tools = append(c.prog.Tools, n)
	c.used = append(c.used, false)
}

// copyStep adds to c what the previous compile's step st made, taken or
// copied, for the declaration d of the new document, and returns the new
// step; ok is false when the declaration's inline tools are not as many.
func (r *reuse) copyStep(c *compiler, st step, d decl) (step, bool) {
	ns := step{decl: st.decl, d0: len(c.diags), t0: len(c.prog.Tools), a0: len(c.prog.Agents)}
	if d.label == ToolLabel {
		if st.t1 != st.t0+1 {
			return ns, false
		}
		r.tool(c, st.t0, d.p)
	} else {
		// The same text makes as many inline tools; their patterns are
		// wanted only for the table of an agent compiled again after.
		var inline []*parser.Pattern
		if r.wantPairs {
			if inline = inlineTools(c, d.p); len(inline) != st.t1-st.t0 {
				return ns, false
			}
		}
		if st.a1 != st.a0+1 {
			return ns, false
		}
		for i := st.t0; i < st.t1; i++ {
			var e *parser.Pattern
			if inline != nil {
				e = inline[i-st.t0]
			}
			r.tool(c, i, e)
		}
		if !r.agent(c, r.prev.Agents[st.a0]) {
			return ns, false
		}
	}
	c.diags = r.moveDiags(c.diags, r.m.diags[st.d0:st.d1])
	ns.d1, ns.t1, ns.a1 = len(c.diags), len(c.prog.Tools), len(c.prog.Agents)
	return ns, true
}

// agent adds the previous program's agent a to the new program, taken as
// it is before the edit when its tools are, else copied, moved, its tools
// the new ones; it marks them used, and reports false when one of them has
// no counterpart.
func (r *reuse) agent(c *compiler, a *Agent) bool {
	same := r.side(a.Span) == 0
	for j, i := range a.toolIdx {
		k := r.newIdx[i]
		if k < 0 {
			return false
		}
		c.used[k] = true
		same = same && k == i && c.prog.Tools[k] == a.Tools[j]
	}
	if same {
		c.prog.Agents = append(c.prog.Agents, a)
		return true
	}
	n := c.slabs.agents.new()
	*n = *a
	n.Span, n.NameSpan, n.Props = r.span(a.Span), r.span(a.NameSpan), r.props(c, a.Props)
	n.Model.Span = r.span(a.Model.Span)
	if a.addSep != "" {
		n.addAt = r.span(diag.Span{Start: a.addAt, End: a.addAt}).Start
	}
	if a.Tools != nil {
		n.Tools = c.slabs.toolPtr.make(len(a.Tools))
		n.toolIdx = c.slabs.ints.make(len(a.Tools))
		for j, i := range a.toolIdx {
			n.toolIdx[j] = r.newIdx[i]
			n.Tools[j] = c.prog.Tools[n.toolIdx[j]]
		}
	}
	c.prog.Agents = append(c.prog.Agents, n)
	return true
}
