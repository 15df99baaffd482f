// Compiling a document again after an edit inside one declaration.
//
// Most edits of an agent file are typing inside one tool or agent: its
// description, instruction or signature. The declarations before and after
// it are then the same text as before, at the same place or moved by the
// edit's change in length, and compile to the same elements and
// diagnostics, moved alike; only the edited declaration is compiled again.
// What one declaration's compile reads of the others is their names and
// labels (a reference to a tool, a record named as a type, the definitions
// an agent's elements refer to), the records (not edited here) and the
// tools an agent lists; so the edit must leave the names and labels of the
// declarations, and of the definitions inside the edited one, as they
// were. Everything else (a record edited, a declaration added or renamed,
// an edit across declarations, tests, the older notation's record names)
// is compiled in full. Either way the result is what [Compile] gives. The
// new program shares nothing with the previous one: what it takes from it is
// copied (see reuse_copy.go), so that no earlier version stays alive.

package schema

import (
	"bytes"
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// compileMemo is what a compile did, kept with its program.
type compileMemo struct {
	// decls are the declarations, in order.
	decls []decl
	// base is the older text the document's syntax may point into (see
	// parser.Document.BaseText), and so the program's strings.
	base []byte
	// diags are the diagnostics in the order they were made: those of
	// finding the declarations up to collected, then those of the records
	// (their fields and cycles) up to recorded, then those of the steps,
	// then from checks on those of the file-wide checks.
	diags                       diag.List
	collected, recorded, checks int
	// steps are the compiles of the tools, then of the agents, in order.
	steps []step
	// reused is set when the program was made by taking another's results
	// (for tests).
	reused bool
}

// Recompile compiles doc, the document of prev's file after one edit that
// replaced the bytes in edit (offsets in prev's text) by newLen bytes. It
// gives what Compile(doc) gives, taking prev's elements and diagnostics,
// moved, for the declarations the edit left as they were when it can (see
// the top of this file); prev must be the program of a [Compile] or a
// Recompile.
func Recompile(prev *Program, doc *parser.Document, edit diag.Span, newLen int) (*Program, diag.List) {
	if prev != nil && prev.memo != nil && prev.File != nil && doc.File != nil {
		r := reuse{prev: prev, m: prev.memo, edit: edit, delta: newLen - edit.Len(), text: doc.File.Text}
		if prog, diags, ok := r.compile(doc); ok {
			return prog, diags
		}
	}
	return Compile(doc)
}

// reuse is one Recompile that takes the previous program's results.
type reuse struct {
	prev  *Program
	m     *compileMemo
	edit  diag.Span
	delta int
	// text is the new text, which the copies' strings are cut from (see
	// [reuse.str]).
	text []byte
	// k is the index of the edited declaration, or -1.
	k int
	// failed is set when a span to move lies across the edit.
	failed bool
	// records maps the previous program's records to their copies in the
	// new program.
	records map[*Record]*Record
	// newIdx maps the index of each of the previous program's tools to the
	// index of its counterpart in the new program, or -1.
	newIdx []int
	// pairs are the tool patterns of the new document and the indexes of
	// their tools, for the table an agent compiled again looks them up in;
	// wantPairs is set while they are gathered (before the edited agent).
	pairs     []toolPair
	wantPairs bool
}

// toolPair is a tool pattern and the index of its tool.
type toolPair struct {
	p *parser.Pattern
	i int
}

// compile compiles doc; ok is false when prev's results cannot be taken.
func (r *reuse) compile(doc *parser.Document) (*Program, diag.List, bool) {
	c, decls := newCompiler(doc, nil)
	if len(c.diags) > 0 || r.m.collected > 0 || !r.matches(decls, r.prev.File.Text, doc.File.Text) {
		return nil, nil, false
	}
	m := &compileMemo{decls: decls, base: doc.BaseText(), reused: true}
	r.copyRecords(c)
	c.diags = r.moveDiags(c.diags, r.m.diags[r.m.collected:r.m.recorded])
	m.recorded = len(c.diags)
	r.newIdx = make([]int, len(r.prev.Tools))
	for i := range r.newIdx {
		r.newIdx[i] = -1
	}
	if r.wantPairs = r.k >= 0 && decls[r.k].label == AgentLabel; r.wantPairs {
		r.pairs = make([]toolPair, 0, len(r.prev.Tools))
	}
	for _, st := range r.m.steps {
		d := decls[st.decl]
		var ns step
		if st.decl == r.k {
			ns = r.again(c, st, d)
		} else {
			var ok bool
			if ns, ok = r.copyStep(c, st, d); !ok {
				return nil, nil, false
			}
		}
		if c.legacyNamed || r.failed {
			return nil, nil, false
		}
		m.steps = append(m.steps, ns)
	}
	m.checks = len(c.diags)
	c.fileChecks(len(c.prog.Agents) > 0)
	m.diags = c.diags
	c.prog.memo = m
	prog, diags := c.finish()
	return prog, diags, true
}

// again compiles the edited declaration d, whose previous compile was st.
// Its tools stand for the previous ones, in order, when they are as many
// (agents taken from the previous program may list them).
func (r *reuse) again(c *compiler, st step, d decl) step {
	compile := (*compiler).agent
	if d.label == ToolLabel {
		compile = func(s *compiler, d decl) { s.tool(d, true) }
	} else {
		for _, p := range r.pairs {
			c.tools[p.p] = p.i
		}
	}
	ns := c.step(st.decl, d, compile)
	if ns.t1-ns.t0 == st.t1-st.t0 {
		for i := ns.t0; i < ns.t1; i++ {
			r.newIdx[st.t0+i-ns.t0] = i
		}
	}
	r.wantPairs = false // no other declaration is compiled again
	return ns
}

// inlineTools returns the tools written inside the agent p, in the order
// agentTools compiles them.
func inlineTools(c *compiler, p *parser.Pattern) []*parser.Pattern {
	var out []*parser.Pattern
	for _, e := range p.Elements {
		if e.Kind == parser.GroupKind && isToolPattern(e) {
			if ed, _ := c.declOfQuiet(e); ed.label == ToolLabel {
				out = append(out, e)
			}
		}
	}
	return out
}

// matches reports whether the new declarations are the previous ones with
// at most the one that holds the edit changed inside (setting r.k), and
// that one a tool or an agent whose name, labels and inner definitions are
// as they were.
func (r *reuse) matches(decls []decl, old, text []byte) bool {
	prev := r.m.decls
	if len(decls) != len(prev) {
		return false
	}
	r.k = -1
	e := r.edit
	for i, d := range decls {
		o := prev[i]
		if d.label != o.label || d.p.Subject.Identity != o.p.Subject.Identity || !slices.Equal(d.p.Subject.Labels, o.p.Subject.Labels) {
			return false
		}
		want := o.top
		switch {
		case o.top.End <= e.Start:
		case o.top.Start >= e.End:
			want = diag.Span{Start: o.top.Start + r.delta, End: o.top.End + r.delta}
		case o.top.Start < e.Start && e.End < o.top.End && r.k < 0:
			r.k = i
			if d.top != (diag.Span{Start: o.top.Start, End: o.top.End + r.delta}) || (d.label != ToolLabel && d.label != AgentLabel) ||
				!slices.Equal(innerDefs(d.p, nil), innerDefs(o.p, nil)) {
				return false
			}
			continue
		default:
			return false
		}
		if d.top != want || !bytes.Equal(old[o.top.Start:o.top.End], text[want.Start:want.End]) {
			return false
		}
	}
	return true
}

// innerDefs appends to out the identities defined inside p, with their
// labels, in order.
func innerDefs(p *parser.Pattern, out []string) []string {
	for _, e := range p.Elements {
		if !e.IsReference() && e.Subject.Identity != "" {
			out = append(out, e.Subject.Identity)
			out = append(out, e.Subject.Labels...)
			out = append(out, "")
		}
		out = innerDefs(e, out)
	}
	return out
}
