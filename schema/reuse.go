// Compiling a version of a document from the program of the version before.
//
// A version made by parser.Reparse keeps, by pointer, the lowered pattern
// of every unit the edit left as it was and whose references resolve as
// before; its spans are positions, which stay put while the text around
// them moves (see diag.Positions). A declaration whose pattern is the same
// pointer compiles to what it compiled to before, as long as what it reads
// of the other declarations is the same too: their names and labels, the
// records (the types of parameters) and, for an agent, the tools it lists.
// So [Recompile] takes the tools, agents and diagnostics of the unchanged
// declarations from the previous program as they are, compiles the others
// again, and runs the file-wide checks; it compiles in full when a record
// changed, a declaration was added, removed, renamed or relabelled, when the
// file has tests, or uses the older notation's record parameters. Either way
// the result is what [Compile] gives.

package schema

import (
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// compileMemo is what a compile did, kept with its program.
type compileMemo struct {
	// decls are the declarations, in order.
	decls []decl
	// diags are the diagnostics in the order they were made: those of
	// finding the declarations up to collected, then those of the records
	// (their fields and cycles) up to recorded, then those of the steps,
	// then from checks on those of the file-wide checks.
	diags                       diag.List
	collected, recorded, checks int
	// steps are the compiles of the tools, then of the agents, in order.
	steps []step
	// pats are the patterns of the program's tools, by the tools' places.
	pats []*parser.Pattern
	// records are the records by name, which a Recompile that changes no
	// record shares; unique is set when the tools' names are.
	records map[string]*Record
	unique  bool
	// reused counts the declarations whose results were taken from another
	// program (for tests).
	reused int
}

// Recompile compiles doc, a version of the document prev was compiled
// from (see parser.Reparse). It gives what Compile(doc) gives, taking prev's
// elements and diagnostics for the declarations that are as they were (see
// the top of this file); prev must be the program of a [Compile] or a
// Recompile.
func Recompile(prev *Program, doc *parser.Document) (*Program, diag.List) {
	if prev != nil && prev.memo != nil && doc.File != nil {
		if prog, diags, ok := recompile(prev, doc); ok {
			return prog, diags
		}
	}
	return Compile(doc)
}

// recompile compiles doc from prev; ok is false when prev's results cannot
// be taken.
func recompile(prev *Program, doc *parser.Document) (*Program, diag.List, bool) {
	pm := prev.memo
	c := makeCompiler(doc, nil, declCounts{decls: len(pm.decls), agents: len(prev.Agents)})
	decls := c.findDecls(pm.decls)
	if len(c.diags) > 0 || pm.collected > 0 || !sameDecls(decls, pm.decls) {
		return nil, nil, false
	}
	c.prog.Tools, c.used = make([]*Tool, 0, len(prev.Tools)), make([]bool, 0, len(prev.Tools))
	m := &compileMemo{decls: decls, steps: make([]step, 0, len(pm.steps)), pats: make([]*parser.Pattern, 0, len(pm.pats))}
	c.prog.Records = append(c.prog.Records, prev.Records...)
	c.records = pm.records
	c.diags = append(c.diags, pm.diags[pm.collected:pm.recorded]...)
	m.recorded = len(c.diags)
	for _, st := range pm.steps {
		d := decls[st.decl]
		var ns step
		ok := d.p == pm.decls[st.decl].p
		if ok {
			ns, ok = take(c, prev, st, d)
		}
		if ok {
			m.reused++
			m.pats = append(m.pats, pm.pats[st.t0:st.t1]...)
		} else {
			// Changed, or an agent that lists a tool compiled again.
			if ns, ok = again(c, st, d); !ok {
				return nil, nil, false
			}
			if d.label == ToolLabel {
				m.pats = append(m.pats, d.p)
			} else {
				m.pats = append(m.pats, inlineTools(c, d.p)...)
			}
		}
		m.steps = append(m.steps, ns)
	}
	if c.legacyNamed || len(m.pats) != len(c.prog.Tools) {
		return nil, nil, false
	}
	m.checks = len(c.diags)
	// The names are those of the previous compile (see sameDecls).
	m.unique, m.records = c.toolChecks(len(c.prog.Agents) > 0, pm.unique), pm.records
	m.diags = c.diags
	c.prog.memo = m
	prog, diags := c.finish()
	return prog, diags, true
}

// sameDecls reports whether decls are the declarations old with at most
// the patterns of tools and agents changed: in the same order, of the same
// names and labels, the same records, and the changed ones with the same
// declarations inside (see innerDecls).
func sameDecls(decls, old []decl) bool {
	if len(decls) != len(old) {
		return false
	}
	for i, d := range decls {
		o := old[i]
		if d.p == o.p {
			continue
		}
		if d.label != o.label || (d.label != ToolLabel && d.label != AgentLabel) ||
			d.p.Subject.Identity != o.p.Subject.Identity || !slices.Equal(d.p.Subject.Labels, o.p.Subject.Labels) ||
			!slices.Equal(innerDecls(d.p, nil), innerDecls(o.p, nil)) {
			return false
		}
	}
	return true
}

// again compiles the changed declaration d, whose previous compile was st;
// ok is false when it makes another number of tools or agents.
func again(c *compiler, st step, d decl) (step, bool) {
	compile := (*compiler).agent
	if d.label == ToolLabel {
		compile = func(s *compiler, d decl) { s.tool(d, true) }
	}
	ns := c.step(st.decl, d, compile)
	return ns, ns.t1-ns.t0 == st.t1-st.t0 && ns.a1-ns.a0 == st.a1-st.a0
}

// take adds to c what prev's step st made, as it is, for the declaration d,
// which is the one st compiled; ok is false, and nothing added, when an
// agent lists a tool that is no longer the program's (it was compiled
// again).
func take(c *compiler, prev *Program, st step, d decl) (step, bool) {
	ns := step{decl: st.decl, d0: len(c.diags), t0: len(c.prog.Tools), a0: len(c.prog.Agents)}
	if ns.t0 != st.t0 || ns.a0 != st.a0 {
		return ns, false
	}
	for _, a := range prev.Agents[st.a0:st.a1] {
		for j, i := range a.toolIdx {
			if i >= st.t1 || i < st.t0 && c.prog.Tools[i] != a.Tools[j] {
				return ns, false
			}
		}
	}
	tools, patterns := prev.Tools[st.t0:st.t1], prev.memo.pats[st.t0:st.t1]
	for i, t := range tools {
		c.taken = append(c.taken, toolPattern{patterns[i], len(c.prog.Tools)})
		c.prog.Tools = append(c.prog.Tools, t)
		c.used = append(c.used, false)
	}
	for _, a := range prev.Agents[st.a0:st.a1] {
		for _, i := range a.toolIdx {
			c.used[i] = true
		}
		c.prog.Agents = append(c.prog.Agents, a)
	}
	c.diags = append(c.diags, prev.memo.diags[st.d0:st.d1]...)
	ns.d1, ns.t1, ns.a1 = len(c.diags), len(c.prog.Tools), len(c.prog.Agents)
	return ns, true
}

// toolPattern is a tool's pattern and its index in the program's tools.
type toolPattern struct {
	p *parser.Pattern
	i int
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

// innerDecls appends to out the identities defined inside p with a label
// of the agent language, with their labels, in order: the inline tools,
// whose names the file-wide checks compare, and whatever else another
// declaration's compile could take for a declaration. The parameters and
// fields (a type is a label) are left out: what they are is read by their
// own declaration's compile alone, and another declaration that refers to
// one is lowered again with it.
func innerDecls(p *parser.Pattern, out []string) []string {
	for _, e := range p.Elements {
		if !e.IsReference() && e.Subject.Identity != "" && declLabelsOf(e).n > 0 {
			out = append(out, e.Subject.Identity)
			out = append(out, e.Subject.Labels...)
			out = append(out, "")
		}
		out = innerDecls(e, out)
	}
	return out
}
