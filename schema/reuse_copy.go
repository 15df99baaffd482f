// The previous program's elements and diagnostics in the new one: copied,
// their spans moved to the new text and their strings cut from it, so that
// the new program keeps nothing of the previous one, nor of its text, alive
// (see reuse.go). A string of a program lies in the program's text, in the
// older text its document's syntax may still point into (see
// parser.Document.BaseText), or in memory of its own; [reuse.str] keeps it so.

package schema

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// str returns s as the new program holds it: a string cut from the previous
// program's text, or from the older text its document's syntax pointed
// into, is cut from the new text at its moved place (the declarations copied
// are the same text there); a string across the edit is copied; any other
// string is its own and is returned as it is.
func (r *reuse) str(s string) string {
	if s == "" {
		return s
	}
	for _, t := range [2][]byte{r.prev.File.Text, r.m.base} {
		o, ok := offsetIn(s, t)
		if !ok {
			continue
		}
		at := diag.Span{Start: o, End: o + len(s)}
		switch r.side(at) {
		case 0:
		case 1:
			at.Start += r.delta
		default:
			return strings.Clone(s)
		}
		if at.Start < 0 || at.Start+len(s) > len(r.text) {
			return strings.Clone(s)
		}
		return unsafe.String(&r.text[at.Start], len(s))
	}
	return s
}

// offsetIn returns the offset of s in t when s lies within t's bytes.
func offsetIn(s string, t []byte) (int, bool) {
	if len(t) == 0 {
		return 0, false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(t)))
	if p < b || p-b+uintptr(len(s)) > uintptr(len(t)) {
		return 0, false
	}
	return int(p - b), true
}

// value returns a copy of the JSON value v (see [Object] for the forms)
// whose strings are as [reuse.str] gives them.
func (r *reuse) value(c *compiler, v any) any {
	switch x := v.(type) {
	case string:
		return r.str(x)
	case json.Number:
		return json.Number(r.str(string(x)))
	case []any:
		return r.values(c, x)
	case Object:
		return Object(r.members(c, x))
	case []Object:
		out := make([]Object, len(x))
		for i, o := range x {
			out[i] = r.members(c, o)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[r.str(k)] = r.value(c, e)
		}
		return out
	}
	return v
}

// values returns a copy of the JSON values vs (see [reuse.value]).
func (r *reuse) values(c *compiler, vs []any) []any {
	out := c.slabs.values.make(len(vs))
	for i, v := range vs {
		out[i] = r.value(c, v)
	}
	return out
}

// members returns a copy of the object members ms (see [reuse.value]).
func (r *reuse) members(c *compiler, ms []Member) []Member {
	out := c.slabs.members.make(len(ms))
	for i, m := range ms {
		out[i] = Member{Key: r.str(m.Key), Value: r.value(c, m.Value)}
	}
	return out
}

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

// moveDiags appends the diagnostics ds, moved, their strings cut from the
// new text, to out.
func (r *reuse) moveDiags(out, ds diag.List) diag.List {
	for _, d := range ds {
		d.Span, d.Message, d.Detail = r.span(d.Span), r.str(d.Message), r.str(d.Detail)
		if len(d.Related) > 0 {
			rel := make([]diag.Related, len(d.Related))
			for i, x := range d.Related {
				rel[i] = diag.Related{Span: r.span(x.Span), Message: r.str(x.Message)}
			}
			d.Related = rel
		}
		if len(d.Fixes) > 0 {
			fixes := make([]diag.Fix, len(d.Fixes))
			for i, f := range d.Fixes {
				edits := make([]diag.Edit, len(f.Edits))
				for j, e := range f.Edits {
					edits[j] = diag.Edit{Span: r.span(e.Span), NewText: r.str(e.NewText)}
				}
				fixes[i] = diag.Fix{Title: r.str(f.Title), Edits: edits}
			}
			d.Fixes = fixes
		}
		out = append(out, d)
	}
	return out
}

// copyRecords makes the records of the new program, copies of the previous
// ones, moved, and its table of records by name as declareRecord makes it.
func (r *reuse) copyRecords(c *compiler) {
	r.records = make(map[*Record]*Record, len(r.prev.Records))
	for _, o := range r.prev.Records {
		n := c.slabs.records.new()
		r.records[o] = n
		c.prog.Records = append(c.prog.Records, n)
		if o.Name != "" && !IsBuiltinType(o.Name) && c.records[o.Name] == nil {
			c.records[o.Name] = n
		}
	}
	for i, o := range r.prev.Records {
		n := c.prog.Records[i]
		n.Name, n.Description, n.Span, n.NameSpan, n.Props = r.str(o.Name), r.str(o.Description), r.span(o.Span), r.span(o.NameSpan), r.props(c, o.Props)
		if o.Fields != nil {
			n.Fields = r.params(c, o.Fields)
		}
	}
}

// props returns copies of props, moved.
func (r *reuse) props(c *compiler, props []Prop) []Prop {
	if props == nil {
		return nil
	}
	out := c.slabs.props.make(len(props))
	for i, p := range props {
		out[i] = newProp(r.str(p.Key), r.span(p.KeySpan()), r.span(p.ValueSpan()))
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
		n.Name, n.Description, n.Default = r.str(o.Name), r.str(o.Description), r.value(c, o.Default)
		n.Type, n.Span, n.NameSpan, n.Props = r.typ(c, o.Type), r.span(o.Span), r.span(o.NameSpan), r.props(c, o.Props)
		if o.Enum != nil {
			n.Enum = r.values(c, o.Enum)
		}
		if o.Constraints != nil {
			n.Constraints = r.members(c, o.Constraints)
		}
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
	n.Name, n.Span, n.Items = r.str(t.Name), r.span(t.Span), r.typ(c, t.Items)
	if t.Record != nil {
		if n.Record = r.records[t.Record]; n.Record == nil {
			r.failed = true // a record not of the file
		}
	}
	return n
}

// tool adds a copy of the previous program's tool i, moved, to the new
// program as the tool of pattern p.
func (r *reuse) tool(c *compiler, i int, p *parser.Pattern) {
	t := r.prev.Tools[i]
	n := c.slabs.tools.new()
	n.Name, n.Description, n.ReturnDescription, n.TopLevel = r.str(t.Name), r.str(t.Description), r.str(t.ReturnDescription), t.TopLevel
	if t.Params != nil {
		n.Params = r.params(c, t.Params)
	}
	n.Returns = r.typ(c, t.Returns)
	n.Span, n.NameSpan, n.SignatureSpan, n.ReturnSpan = r.span(t.Span), r.span(t.NameSpan), r.span(t.SignatureSpan), r.span(t.ReturnSpan)
	n.Props = r.props(c, t.Props)
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

// agent adds a copy of the previous program's agent a, moved, to the new
// program, its tools the new ones; it marks them used, and reports false
// when one of them has no counterpart.
func (r *reuse) agent(c *compiler, a *Agent) bool {
	for _, i := range a.toolIdx {
		k := r.newIdx[i]
		if k < 0 {
			return false
		}
		c.used[k] = true
	}
	n := c.slabs.agents.new()
	*n = *a
	n.Name, n.Description, n.Instruction = r.str(a.Name), r.str(a.Description), r.str(a.Instruction)
	n.Model.Provider, n.Model.ID = Provider(r.str(string(a.Model.Provider))), r.str(a.Model.ID)
	n.Span, n.NameSpan, n.Props = r.span(a.Span), r.span(a.NameSpan), r.props(c, a.Props)
	n.Model.Span = r.span(a.Model.Span)
	if a.Settings.Temperature != nil {
		n.Settings.Temperature = c.slabs.floats.new()
		*n.Settings.Temperature = *a.Settings.Temperature
	}
	if a.addSep != "" {
		n.addAt = r.span(diag.Span{Start: a.addAt, End: a.addAt}).Start
		n.addSep = r.str(a.addSep)
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
